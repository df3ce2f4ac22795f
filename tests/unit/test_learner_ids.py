"""Which learner a notebook is graded as: the id the notebook showed it used (the hub user on a
hub), and a warning in the notebook when a typed id disagrees with the hub's."""
import pytest

from cephlab.course import grading, params


def nb_with_output(text):
    return {"cells": [{"cell_type": "code", "source": "LEARNER = params.learner_id('')", "metadata": {},
                       "outputs": [{"output_type": "stream", "name": "stdout", "text": [text]}]}]}


@pytest.mark.parametrize("text, used", [
    ("learner u123: the exercises use this learner's numbers\n", "u123"),
    ("learner example: the exercises use this learner's numbers\n", "example"),
    ("something else\n", ""),
])
def test_the_id_a_notebook_showed_it_used(text, used):
    assert grading.used_learner(nb_with_output(text)) == used


def test_a_notebook_without_outputs_shows_no_id():
    assert grading.used_learner({"cells": [{"cell_type": "code", "source": "", "outputs": []}]}) == ""


@pytest.fixture
def hub(monkeypatch):
    monkeypatch.setattr(params, "_recorded", None)
    monkeypatch.delenv("CEPHLAB_LEARNER", raising=False)
    monkeypatch.delenv("CEPHLAB_GRADING", raising=False)
    monkeypatch.setenv("JUPYTERHUB_USER", "u123")


def test_on_a_hub_a_different_typed_id_is_warned_and_the_hub_wins(hub, capsys):
    assert params.learner_id("s-4711") == "u123"
    err = capsys.readouterr().err
    assert "you typed learner id 's-4711', but the hub knows you as 'u123'" in err


def test_on_a_hub_the_same_typed_id_is_not_warned(hub, capsys):
    assert params.learner_id("u123") == "u123"
    assert capsys.readouterr().err == ""
