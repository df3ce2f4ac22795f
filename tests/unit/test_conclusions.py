"""cephlab.helpers.conclusions: measured figures in prose come from the run."""
import pytest

from cephlab.helpers import conclusions


def test_render_fills_the_figures_of_this_run():
    md = conclusions.render("""
        - took {seconds:.1f} s, {ratio:.2f}x the model
    """, seconds=12.14, ratio=1.2645)
    assert md.data == "- took 12.1 s, 1.26x the model"


def test_a_missing_figure_is_named():
    with pytest.raises(KeyError, match="needs a value for 'seconds'"):
        conclusions.render("took {seconds} s")

