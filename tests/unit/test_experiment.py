"""cephlab.helpers.experiment: the learner's choice, and their reading of their own run checked
without the check printing the run's figure."""
import pytest

from cephlab.course.notebooks import strip_solution_lines
from cephlab.helpers import experiment


def test_a_measurement_uses_the_learners_choice_or_says_it_does_not(capsys):
    assert experiment.choice(4096, 6000, "my_object_bytes") == 4096
    assert experiment.choice(..., 6000, "my_object_bytes") == 6000
    assert "my_object_bytes is not set yet: measuring with 6000" in capsys.readouterr().out


def test_a_figure_read_off_the_run_matches_within_rounding(capsys):
    run = experiment.RunFigures()
    run.record(ratio=1.8349)
    assert run.matches("ratio", 1.83) is True
    assert run.matches("ratio", 1 / 1.8349) is False            # upside down
    assert run.matches("ratio", ...) is None
    for answer in (1.83, 1 / 1.8349, ...):
        run.check("my_ratio", answer, "ratio", hint="measured / model")
    out = capsys.readouterr().out
    assert "matches your run" in out and "Reconsider: measured / model" in out and "not set yet" in out
    assert "1.83" not in out.replace("1.83 ", "")          # the run's value is never printed
    assert "1.8349" not in out


def test_a_check_of_a_figure_the_run_did_not_record_says_what_to_do():
    with pytest.raises(KeyError, match="run the measuring cell"):
        experiment.RunFigures().matches("ratio", 2.0)


@pytest.mark.parametrize("bad", ["1.8", True, [1.8]])
def test_only_numbers_can_match(bad):
    run = experiment.RunFigures()
    run.record(ratio=1.8)
    assert run.matches("ratio", bad) is False


def test_a_figure_must_be_finite():
    with pytest.raises(ValueError, match="'ratio' must be a finite number"):
        experiment.RunFigures().record(ratio=float("nan"))


def test_student_cells_lose_their_solution_lines():
    src = "my_ratio = measured / model  # SOLUTION\nprint_thing()  # SOLUTION\nrun.check('my_ratio', my_ratio)"
    assert strip_solution_lines(src) == "my_ratio = ...\nrun.check('my_ratio', my_ratio)"
    assert strip_solution_lines("x == 1  # SOLUTION") == ""     # a comparison is not an answer to keep
    assert strip_solution_lines("a = 1\nb = 2") == "a = 1\nb = 2"
