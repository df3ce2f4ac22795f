"""`cephlab grade`'s choice of learner (whose parameters the hidden tests use): the id from the
submission's folder, one id given, or (default) the id typed into each notebook. The gradings themselves are proven in
tests/grading/test_params.py."""
import pytest

from cephlab.cli import build_parser
from cephlab.cli.grade import learner_of
from cephlab.course import grading


def parse(*argv):
    return build_parser().parse_args(["grade", *argv])


def test_default_is_the_id_typed_in_the_notebook():
    assert learner_of(parse("x.ipynb")) is None


def test_learner_from_folder_takes_the_parent_folder(tmp_path):
    assert learner_of(parse("subs/", "--learner-from-folder")) is grading.learner_from_folder
    notebook = tmp_path / "submissions" / "alice" / "03-disk-iops.ipynb"
    assert grading.learner_from_folder(notebook) == "alice"


def test_one_learner_for_every_notebook():
    pick = learner_of(parse("a.ipynb", "b.ipynb", "--learner", "bob"))
    assert pick("a.ipynb") == pick("b.ipynb") == "bob"


def test_the_two_ways_exclude_each_other(capsys):
    with pytest.raises(SystemExit):
        parse("subs/", "--learner-from-folder", "--learner", "bob")
    assert "not allowed with" in capsys.readouterr().err
