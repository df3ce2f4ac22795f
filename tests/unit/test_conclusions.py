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


def test_a_measurement_uses_the_learners_choice_or_says_it_does_not(capsys):
    from cephlab.helpers.lab import learner_choice
    assert learner_choice(4096, 6000, "my_object_bytes") == 4096
    assert learner_choice(..., 6000, "my_object_bytes") == 6000
    assert "my_object_bytes is not set yet: measuring with 6000" in capsys.readouterr().out
