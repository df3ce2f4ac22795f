"""The student release (cephlab.course.student_release, `make release`) holds what `make lab` needs and
nothing a learner must not see: no solutions/, no hidden test, no solution line, no autograder.

What must not leak is read from the solutions themselves (otter master notebooks): the lines of
every `# HIDDEN` test cell and of every `# BEGIN SOLUTION` block, less the lines a learner sees
anyway (the public tests, the notebook's own code). Fast: one copy of about 200 files, no cluster."""
import re
import subprocess
import tarfile
from pathlib import Path

import pytest

from cephlab.course import grading, student_release
from cephlab.course.notebooks import ROOT
from tests.leaks import folder_texts, leaks, masters, secrets

MASTERS = masters()
PLACEHOLDER = re.compile(r"^\s*(#.*|\.\.\.|pass|return \.\.\.|def \w+\(.*\):|"
                         r"(\w+(\s*,\s*\w+)*\s*=\s*)?\.\.\.\s*(#.*)?)$")


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    folder = student_release.build(tmp_path_factory.mktemp("release") / "ceph-storage-lab")
    return folder, folder_texts(folder)


def test_the_secrets_are_found_in_the_solutions():
    """The probe is real: every lab has hidden-test and solution lines to look for."""
    found = secrets()
    assert set(found) == set(MASTERS)
    for lab, (hidden, solution) in found.items():
        assert hidden and solution, f"{lab}: no hidden test or solution lines found in the master"
    assert "q1_overhead = erasure(P[\"q1_k\"], P[\"q1_m\"]).overhead" in found["01-redundancy"][1]
    in_solutions = folder_texts(ROOT / "solutions")
    for which in ("hidden", "solution"):        # the negative control: the search finds them there
        assert {lab for lab, _, _ in leaks(in_solutions, which)} == set(MASTERS), which


def test_no_solutions_no_tests_no_instructor_files(release):
    folder, texts = release
    tops = {Path(p).parts[0] for p in texts}
    assert not tops & {"solutions", "tests", "bench", "book", "build", ".ci"}, tops
    assert not [p for p in texts if p.endswith(".zip") or "instructor-guide" in p]
    assert not list(folder.rglob("*.zip"))
    assert "vagrant/up-and-check.sh" not in texts


def test_no_hidden_test_text_anywhere(release):
    _, texts = release
    found = leaks(texts, "hidden")
    assert not found, f"hidden test lines in the release: {found[:5]}"
    assert not [p for p, body in texts.items() if p.startswith("labs/") and "# HIDDEN" in body]


def test_no_solution_line_anywhere(release):
    _, texts = release
    found = leaks(texts, "solution")
    assert not found, f"solution lines in the release: {found[:5]}"


def test_every_answer_cell_is_a_placeholder(release):
    folder, _ = release
    for lab in MASTERS:
        student = grading.read(folder / "labs" / lab / f"{lab}.ipynb")
        cells = grading.answer_cells(student)
        assert set(cells) == set(grading.question_points(MASTERS[lab])), f"{lab}: questions differ"
        for q, indices in cells.items():
            for i in indices:
                src = grading._source(student["cells"][i])
                assert "..." in src, f"{lab} {q}: answer cell {i} has no placeholder"
                bad = [line for line in src.splitlines() if line.strip() and not PLACEHOLDER.match(line)]
                assert not bad, f"{lab} {q}: answer cell {i} holds code: {bad}"
        assert all(not c.get("outputs") for c in student["cells"] if c["cell_type"] == "code")


def test_public_tests_are_there_and_public(release):
    folder, _ = release
    for lab in MASTERS:
        tests = sorted((folder / "labs" / lab / "tests").glob("q*.py"))
        questions = sorted(grading.question_points(MASTERS[lab]), key=lambda q: int(q[1:]))
        assert [t.stem for t in tests] == questions


def test_make_lab_finds_every_file_it_uses(release):
    folder, _ = release
    bootstrap = (folder / "cephlab" / "bootstrap.sh").read_text()
    refs = set(re.findall(r"\$(?:\{ROOT\}|ROOT)/([\w./$-]+)", bootstrap)) - {".venv"}   # .venv: it makes it
    assert {"cephlab/packages-$1.txt", "pyproject.toml", "constraints.txt", "labs"} <= refs
    for ref in refs:
        for need in ("lab", "test"):       # bootstrap.sh reads both package lists
            assert (folder / ref.replace("$1", need)).exists(), f"bootstrap.sh uses $ROOT/{ref}: missing"
    assert (folder / "README.md").exists(), "pyproject.toml's readme (pip install -e . needs it)"
    assert {"cephlab", "models"} <= {p.parent.name for p in folder.glob("*/__init__.py")}
    for name in ("environment.yml", ".binder/environment.yml", ".binder/apt.txt", ".binder/postBuild",
                 ".binder/start", "data/disk_classes.csv"):
        assert (folder / name).exists(), name
    assert (folder / "cephlab" / "bootstrap.sh").stat().st_mode & 0o111, "bootstrap.sh lost its x bit"
    dry = subprocess.run(["make", "-C", str(folder), "-n", "lab", "setup"], capture_output=True, text=True)
    assert dry.returncode == 0 and "bash cephlab/bootstrap.sh lab" in dry.stdout, dry.stderr


def test_the_learner_makefile_and_readme_offer_nothing_that_needs_solutions(release):
    folder, texts = release
    targets = re.findall(r"^([\w-]+):", texts["Makefile"], re.M)
    assert targets == ["lab", "setup"]
    for page in ("README.md", "labs/README.md"):
        for word in ("make test", "make solutions", "make student", "solutions/", "hidden"):
            assert word not in texts[page], f"{page} mentions {word!r}, which a learner does not have"
    assert "make lab" in texts["README.md"]


def test_the_archive_unpacks_to_the_same_files(release, tmp_path):
    folder, texts = release
    tar = student_release.archive(folder)
    with tarfile.open(tar) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n and t.getmember(n).isfile()}
    assert names == {str(q.relative_to(folder)) for q in folder.rglob("*") if q.is_file()}
    assert set(texts) <= names


def test_building_over_a_folder_that_is_not_a_release_is_refused(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(student_release.ReleaseError, match="not a release"):
        student_release.build(tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    with pytest.raises(student_release.ReleaseError, match="outside the project"):
        student_release.build(ROOT / "labs")


def test_a_leak_stops_the_build(tmp_path):
    """The build's own last check: a hidden test in labs/ (a stale or hand-edited lab) fails it."""
    fake = tmp_path / "root"
    for rel in ("Makefile", "cephlab/course/learner-README.md", "labs/01-redundancy/tests/q1.py"):
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_text((ROOT / rel).read_text())
    (fake / "labs/01-redundancy/tests/q1.py").write_text("# HIDDEN\nassert q1_overhead == 0.375\n")
    with pytest.raises(student_release.ReleaseError, match="# HIDDEN"):
        student_release.build(tmp_path / "out", root=fake)


def test_files_a_gitignore_names_stay_out(tmp_path):
    """A Vagrant cluster's exported keyring and ssh key, caches, checkpoints: never shipped."""
    fake = tmp_path / "root"
    for rel in ("Makefile", "cephlab/course/learner-README.md", ".gitignore", "vagrant/.gitignore",
                "vagrant/README.md"):
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_text((ROOT / rel).read_text())
    for rel in ("vagrant/.export/ceph.client.admin.keyring", "vagrant/.vagrant/machines/id",
                "labs/01-redundancy/.ipynb_checkpoints/x.ipynb", "cephlab/__pycache__/x.pyc"):
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_text("secret")
    (fake / "labs" / "01-redundancy" / "01-redundancy.ipynb").write_text('{"cells": []}')
    out = student_release.build(tmp_path / "out", root=fake)
    shipped = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert shipped == [".cephlab-release", "Makefile", "README.md", "labs/01-redundancy/01-redundancy.ipynb",
                       "labs/README.md", "vagrant/.gitignore", "vagrant/README.md"]
