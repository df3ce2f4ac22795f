"""A learner can look up every citation of the labs in the student release (issue 47 item 7): its
REFERENCES.md has an entry for each seed a lab cites ("seed NNN": title, authors, where it appeared,
where to read it), names the data/ tables holding each seed's figures, and the tables ship with their
source column; the learner README says where the page is. The release is built into a temporary
folder (a copy of about 200 files, well under a second)."""
from __future__ import annotations

import csv
import json
import re

import pytest

from cephlab.course import student_release
from cephlab.course.notebooks import ROOT

# The first number of every "seed NNN" in a lab's text, read independently of the release code
CITED = re.compile(r"(?i)\bseeds?\s+(\d{3})\b")


def lab_texts():
    for path in sorted((ROOT / "labs").glob("*/*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        yield path.parent.name, "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                                          for c in cells)


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    folder = student_release.build(tmp_path_factory.mktemp("release") / "ceph-storage-lab")
    return folder, (folder / student_release.REFERENCES).read_text(encoding="utf-8")


def entry(page: str, number: str) -> str:
    """The page's section on one seed, from its heading to the next heading."""
    m = re.search(rf"^### seed {number}: .*?(?=^##)", page, re.M | re.S)
    assert m, f"REFERENCES.md has no entry for seed {number}"
    return m.group(0)


def test_every_seed_a_lab_cites_has_an_entry_on_the_references_page(release):
    _, page = release
    cited = {n: sorted(lab for lab, text in lab_texts() if n in CITED.findall(text))
             for _, text in lab_texts() for n in CITED.findall(text)}
    assert cited, "the labs cite no seed: the probe is broken"
    for n, labs in cited.items():
        section = entry(page, n)
        for lab in labs:
            assert f"`labs/{lab}`" in section, f"seed {n}'s entry does not name {lab}, which cites it"


def test_each_entry_says_what_who_where_and_how_to_read_it(release):
    _, page = release
    for n, seed in student_release.SEEDS.items():
        section = entry(page, n)
        assert section.splitlines()[0] == f"### seed {n}: {seed.title}"
        for field in ("- What: ", "- Where: ", "- Cited by: ", "- In `data/`: ", "- Read it: "):
            assert field in section, f"seed {n}: no {field.strip()!r} line"
        assert seed.by in section and seed.where in section
        assert seed.link or seed.look_up, f"seed {n}: neither a public address nor how to find it"
        if seed.link:
            assert seed.link.startswith(("https://", "http://")) and f"<{seed.link}>" in section
    # the two seeds with a public copy checked against their text
    assert "slideshare.net" in entry(page, "000") and "ocadotechnology.com" in entry(page, "001")


def test_the_cited_tables_ship_with_their_source_column_and_are_named_on_the_page(release):
    folder, page = release
    tables = sorted((ROOT / "data").glob("*.csv"))
    assert len(tables) >= 5
    for path in tables:
        shipped = folder / "data" / path.name
        assert shipped.read_bytes() == path.read_bytes(), f"data/{path.name} is not in the release as it is"
        header = next(csv.reader(line for line in shipped.read_text().splitlines() if not line.startswith("#")))
        assert "source" in header, f"data/{path.name} has no source column"
        assert f"| `data/{path.name}` |" in page
        named = re.match(r"seed(\d{3})_", path.name)
        if named:
            assert f"`data/{path.name}`" in entry(page, named.group(1))


def test_the_readmes_say_where_the_references_are(release):
    folder, page = release
    assert "REFERENCES.md" in (folder / "README.md").read_text() and "REFERENCES.md" in (
        folder / "labs" / "README.md").read_text()
    assert "src/mon/OSDMonitor.cc" in page, "the Ceph code and papers of book/references.md follow the seeds"
    for word in ("solutions/", "hidden", "instructor-guide"):
        assert word not in page, f"REFERENCES.md mentions {word!r}"


@pytest.mark.parametrize("text, numbers", [
    ("as seed 003 shows", {"003"}),
    ("Seed 000's *Write Flow* slide", {"000"}),
    ("the write flow (seed\n000)", {"000"}),
    ("seeds 000, 002 and 004", {"000", "002", "004"}),
    ("(the `seed 000` … `seed 004` you will see cited)", {"000", "004"}),
    ("seed004_mdtest, seed_lo, a seed of 1234, random seed 1234", set()),
])
def test_seed_numbers_reads_the_forms_the_labs_use(text, numbers):
    assert student_release.seed_numbers(text) == numbers


def test_a_lab_citing_a_seed_the_page_does_not_describe_stops_the_build(tmp_path):
    fake = tmp_path / "root"
    for rel in ("Makefile", "cephlab/course/learner-README.md"):
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_text((ROOT / rel).read_text())
    lab = fake / "labs" / "01-redundancy" / "01-redundancy.ipynb"
    lab.parent.mkdir(parents=True)
    lab.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": ["As seed 007 measured, ..."]}]}))
    with pytest.raises(student_release.ReleaseError, match=r"labs/01-redundancy cite seed 007"):
        student_release.build(tmp_path / "out", root=fake)
