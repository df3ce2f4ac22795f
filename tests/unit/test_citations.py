"""Everything the project cites is in the repository, so a reader can look it up: no path into the authors' own
machines or course folders (shared/notes, shared/seeds, /work/...). Measured facts the labs rely
on live in data/ with a source column; the seeds are cited by name and title."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# /work/ as a top folder (the authors' machines), not a folder named work inside a path
OUTSIDE = re.compile(r"shared/(notes|seeds)|(?<![\w.-])/work/")
TEXT = (".py", ".md", ".ipynb", ".sh", ".csv", ".yml", ".yaml", ".txt", ".cfg", ".toml")


def tracked_text_files():
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / n for n in names.stdout.splitlines()
            if n.endswith(TEXT) and n != "tests/unit/test_citations.py" and (ROOT / n).is_file()]


def test_no_citation_points_outside_the_repository():
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()[:100]}"
             for p in tracked_text_files()
             for i, line in enumerate(p.read_text(errors="replace").splitlines(), 1)
             if OUTSIDE.search(line)]
    assert not found, "cites a file outside the repository:\n" + "\n".join(found)


def test_the_check_sees_a_citation():
    assert OUTSIDE.search("measured (shared/notes/native-cluster.md)")
    assert not OUTSIDE.search("data/native_cluster_reference.csv")
    assert OUTSIDE.search("see /work/main/notes.md") and OUTSIDE.search("(/work/shared)")
    assert not OUTSIDE.search("the volume at /home/learner/work/labs")
