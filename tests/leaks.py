"""What a learner must never see, read from the solutions (otter master notebooks), and the text
of a built folder to look for it in. Shared by tests/grading/test_release.py (the student release)
and tests/book/test_book.py (the learner site).

    hidden, solution = secrets()["01-redundancy"]     # sets of code lines
    texts = folder_texts(Path("build/release/ceph-storage-lab"))   # {path: searchable text}
"""
import html
import json
import re
from pathlib import Path

from cephlab.course import grading
from cephlab.course.notebooks import solution_notebooks


def masters():
    return {p.stem: grading.read(p) for p in solution_notebooks()}


def _lines(text):
    return {line.strip() for line in text.splitlines()}


def master_parts(master):
    """{"hidden", "public", "solution", "prompt"}: the code lines of each kind of cell."""
    parts = {"hidden": set(), "public": set(), "solution": set(), "prompt": set()}
    block = None
    for cell in master["cells"]:
        directive = grading._raw_directive(cell)
        if directive in ("BEGIN TESTS", "BEGIN SOLUTION"):
            block = directive.split()[1]
        elif directive in ("END TESTS", "END SOLUTION"):
            block = None
        if cell["cell_type"] != "code":
            continue
        src = grading._source(cell)
        if block == "TESTS":
            parts["hidden" if src.lstrip().startswith("# HIDDEN") else "public"] |= _lines(src)
        elif block == "SOLUTION":
            parts["solution"] |= {grading.SOLUTION_TAIL.sub("", line).strip() for line in src.splitlines()}
        else:   # an own-experiment cell after a measurement: its `# SOLUTION` lines are answers too
            answers = {line for line in src.splitlines() if grading.SOLUTION_TAIL.search(line)}
            parts["solution"] |= {grading.SOLUTION_TAIL.sub("", line).strip() for line in answers}
            parts["prompt"] |= _lines("\n".join(line for line in src.splitlines() if line not in answers))
    return parts


def _telling(found):
    """Lines long enough to be telling (not blank, `)`, a comment or a bare name)."""
    return {line for line in found if len(line) >= 8 and not line.startswith("#")}


def secrets():
    """{lab: (hidden-test lines, solution lines)}, less what a learner sees anyway (the public
    tests and the notebook's own code)."""
    out = {}
    for lab, master in masters().items():
        p = master_parts(master)
        seen = p["public"] | p["prompt"]
        out[lab] = (_telling(p["hidden"] - seen), _telling(p["solution"] - seen))
    return out


def folder_texts(folder):
    """{relative path: text}: notebooks as their cells' sources and outputs, HTML without its tags
    (highlighted code becomes its plain lines again), other text files as read."""
    texts = {}
    for path in Path(folder).rglob("*"):
        if not path.is_file():
            continue
        try:
            body = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if path.suffix == ".ipynb":
            nb = json.loads(body)
            body = "\n".join(grading._source(c) + "\n" + json.dumps(c.get("outputs", [])) for c in nb["cells"])
        elif path.suffix == ".html":
            body = html.unescape(re.sub(r"<[^>]+>", "", body))
        texts[str(path.relative_to(folder))] = body
    return texts


def leaks(texts, which):
    """[(lab, line, path)] for every secret line of kind `which` ("hidden" or "solution") found."""
    index = 0 if which == "hidden" else 1
    return [(lab, line, path) for lab, pair in secrets().items() for line in pair[index]
            for path, body in texts.items() if line in body]
