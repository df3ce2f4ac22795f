"""Conclusions rendered from the run: a sentence that states a measured figure is built from the
numbers of this run, so it cannot contradict the table printed above it.

    conclusions.render('''
    - **Defaults.** The model said {model:.1f} s; the cluster took {measured:.1f} s ({ratio:.2f}x).
    ''', model=9.6, measured=12.1, ratio=12.1 / 9.6)

Fixed Markdown cells keep the reasoning that holds whatever the figures are; the figures come
from here. tests/notebooks/test_measured_prose.py checks that no fixed cell states one.
"""
from __future__ import annotations

import textwrap

from IPython.display import Markdown


def render(template: str, **values: object) -> Markdown:
    """The template (str.format fields, e.g. {seconds:.1f}) filled with this run's values, as
    Markdown a notebook displays. A missing value is an error naming it, not a silent blank."""
    try:
        text = textwrap.dedent(template).strip().format(**values)
    except KeyError as err:
        raise KeyError(f"conclusion template needs a value for {err.args[0]!r}; pass it to render()") from None
    return Markdown(text)
