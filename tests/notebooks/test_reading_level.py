"""The labs' prose reads at the level of a second-year student who knows Linux and Python and has
never used Ceph (issue 47 item 6). Pure: it reads the student notebooks (labs/NN-topic/NN-topic.ipynb)
and book/glossary.md, runs nothing.

- No sentence of a lab's Markdown is over MAX_WORDS words. `sentences` cuts the Markdown into
  sentences: fenced code blocks, tables, headings, display and inline LaTeX, images, HTML tags and
  URLs go; a link keeps its text; inline code counts as one word; a list item, a blank line or a
  full stop, question or exclamation mark followed by a space ends a sentence (not the full stops
  of "e.g.", "i.e.", "vs.", "et al.", "cf."). Words are runs of letters and digits ("don't",
  "2,273" and "0.85" are one word each; "write-ahead" is two). A conclusion a code cell renders
  from the run is checked in the same way (its template, as the code cell holds it). When this
  test came (issue 47 item 6) the student notebooks held 121 such sentences, 1 to 25 per lab
  (lab 03: 25); the labs were rewritten to none.
- Each lab's first Markdown cell has a **Prerequisites:** line: the earlier labs it builds on
  ("lab 02", "labs 00-03") and skills, or "none". Every earlier lab its prose leans on ("as lab
  02's model says", "lab 01 showed") is named there.
- book/glossary.md, on the learner site, defines every term of GLOSSARY_TERMS (a `**term**`
  entry followed by its definition); each lab's first Markdown cell links to it
  (`../glossary.md`: labs/glossary.md is a symbolic link to book/glossary.md, which the student
  release copies as a file, so the link works in the learners' copy and on the course site, where
  the page sits next to labs/), and so does the learner site's index.
"""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDENT = sorted(p / f"{p.name}.ipynb" for p in (ROOT / "labs").glob("[0-9][0-9]-*")
                 if (p / f"{p.name}.ipynb").is_file())
IDS = [p.parent.name for p in STUDENT]
GLOSSARY = ROOT / "book" / "glossary.md"
LEARNER_INDEX = ROOT / "book" / "learner-index.md"
GLOSSARY_LINK = "../glossary.md"
MAX_WORDS = 40

# Every term a lab uses without defining it where it is first used; book/glossary.md defines each.
GLOSSARY_TERMS = [
    # the cluster and its daemons
    "Ceph", "Ceph releases", "CAP theorem", "cluster", "daemon", "OSD", "MON", "MGR", "MDS", "cephadm",
    "container", "librados", "balancer",
    # where data goes
    "object", "RADOS", "pool", "PG", "PG states", "pg_num", "acting set", "up set", "PG log", "CRUSH", "CRUSH rule",
    "failure domain", "primary OSD", "copyset",
    "replica", "replicated pool", "size", "min_size", "erasure coding", "k/m", "stripe", "allocation unit",
    "RBD", "thin provisioning", "CephFS", "capability",
    # inside an OSD
    "BlueStore", "BlueFS", "FileStore", "journal", "RocksDB", "WAL", "deferred write", "write amplification",
    "page cache",
    "messenger",
    # performance
    "IOPS", "throughput", "latency", "p99", "queue depth", "Little's law", "closed loop", "group commit", "fio",
    "rados bench",
    "throttle", "mClock", "perf counter",
    # failures and capacity
    "AFR", "durability", "nines", "recovery", "backfill", "degraded", "nearfull/full ratio",
    "MAX AVAIL", "ceph df", "ceph osd df",
    # how the labs compare a model with the cluster
    "model", "seed", "agreement check", "tolerance", "negative control", "spread", "self-check",
]

PREREQUISITES = re.compile(r"^\*\*Prerequisites[.:]?\*\*:?\s*(.+?)(?:\n\s*\n|\n\*\*|\Z)", re.M | re.S)
NOT_A_STOP = re.compile(r"(?:\be\.g|\bi\.e|\bvs|\bet al|\bcf|\betc|\bapprox|\bFig|\bNo)\.$", re.I)
WORD = re.compile(r"[^\W_]+(?:(?:['’]|(?<=\d)[.,](?=\d))[^\W_]+)*")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def text(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def notebook(path):
    return json.loads(path.read_text(encoding="utf-8"))


def prose(markdown):
    """A Markdown text as paragraphs and list items, one string each, with only its prose left."""
    markdown = re.sub(r"^\s*```.*?^\s*```[^\n]*$", "\n", markdown, flags=re.M | re.S)   # fenced code
    markdown = re.sub(r"\$\$.*?\$\$", " ", markdown, flags=re.S)                       # display LaTeX
    markdown = re.sub(r"<!--.*?-->", " ", markdown, flags=re.S)
    units: list[str] = []
    current: list[str] = []
    for line in markdown.splitlines():
        if not line.strip() or line.lstrip().startswith(("#", "|")):     # blank, heading, table row
            units.append(" ".join(current))
            current = []
            continue
        if LIST_ITEM.match(line):
            units.append(" ".join(current))
            current = [LIST_ITEM.sub("", line)]
            continue
        current.append(line.strip().lstrip(">").strip())
    units.append(" ".join(current))
    return [clean(u) for u in units if u.strip()]


def clean(unit):
    unit = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", unit)                     # images
    unit = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", unit)                   # links keep their text
    unit = re.sub(r"<https?://[^>]*>|https?://\S+", " ", unit)              # URLs
    unit = re.sub(r"`[^`]*`", "CODE", unit)                                # inline code: one word
    unit = re.sub(r"(?<!\\)\$[^$]+\$", "MATH", unit)                        # inline LaTeX
    unit = re.sub(r"<[^>]+>", " ", unit)                                   # HTML tags
    unit = unit.replace("**", "").replace("*", "")
    return " ".join(unit.split())


def split_sentences(unit):
    """A paragraph or list item cut at each full stop, question or exclamation mark + space."""
    found, start = [], 0
    for m in re.finditer(r"[.!?]+[)\"'”’]*(?=\s|$)", unit):
        head = unit[start:m.end()]
        if m.group(0).startswith(".") and NOT_A_STOP.search(unit[start:m.start() + 1]):
            continue
        found.append(head.strip())
        start = m.end()
    if unit[start:].strip():
        found.append(unit[start:].strip())
    return [s for s in found if s]


def sentences(markdown):
    return [s for unit in prose(markdown) for s in split_sentences(unit)]


def words(sentence):
    return WORD.findall(sentence)


RENDER = re.compile(r"render\(\s*(?:f|r|rf|fr)?(\"\"\"|''')(.*?)\1", re.S)


def conclusion_templates(cell):
    """The Markdown templates a code cell renders (`conclusions.render(<triple-quoted template>)`),
    each {placeholder} counted as one word."""
    if cell["cell_type"] != "code":
        return []
    return [re.sub(r"\{[^{}]*\}", "X", m.group(2)) for m in RENDER.finditer(text(cell))]


def long_sentences(nb):
    """[(cell index, word count, sentence)] of every sentence over MAX_WORDS words."""
    found = []
    for i, cell in enumerate(nb["cells"]):
        bodies = [text(cell)] if cell["cell_type"] == "markdown" else conclusion_templates(cell)
        for body in bodies:
            found += [(i, len(words(s)), s) for s in sentences(body) if len(words(s)) > MAX_WORDS]
    return found


def first_markdown(nb):
    return text(next(c for c in nb["cells"] if c["cell_type"] == "markdown"))


def lab_number(path):
    return int(path.parent.name[:2])


def labs_named(phrase):
    """The lab numbers a phrase names: "lab 02", "labs 00 and 01", "labs 00-03" (a range)."""
    found = set()
    for m in re.finditer(r"\blabs? (\d{2})((?:(?:, | and | or |-|–)\d{2}\b)*)", phrase):
        nums = [int(m.group(1))] + [int(n) for n in re.findall(r"\d{2}", m.group(2))]
        if re.search(r"[-–]", m.group(2)) and len(nums) == 2:
            nums = list(range(nums[0], nums[1] + 1))
        found |= set(nums)
    return found


# ---- the tests ----------------------------------------------------------------------------------

def test_there_are_student_notebooks():
    assert STUDENT, "labs/ holds no NN-topic/NN-topic.ipynb: run `make student`"


def test_no_sentence_is_over_40_words():
    report = [f"{path.parent.name} cell {i} ({n} words): {s}"
              for path in STUDENT for i, n, s in long_sentences(notebook(path))]
    assert not report, (f"{len(report)} sentences of the labs' prose are over {MAX_WORDS} words; split them:\n"
                        + "\n".join(report))


def prerequisite_problems(nb, here):
    """What is wrong with the Prerequisites line of lab number `here` (an empty list: nothing)."""
    m = PREREQUISITES.search(first_markdown(nb))
    if not m:
        return ["its first Markdown cell has no **Prerequisites:** line"]
    stated = m.group(1)
    named = labs_named(stated)
    problems = []
    if not named and not re.search(r"\bnone\b", stated, re.I):
        problems.append(f"Prerequisites names no lab and does not say none: {stated!r}")
    if any(n >= here for n in named):
        problems.append(f"a prerequisite must be an earlier lab: {stated!r}")
    body = "\n".join(text(c) for c in nb["cells"] if c["cell_type"] == "markdown")
    missing = sorted({n for n in labs_named(body) if n < here} - named)
    if missing:
        problems.append(f"its prose refers to lab(s) {missing} but its Prerequisites line does not name them: "
                        f"{stated!r}")
    return problems


@pytest.mark.parametrize("path", STUDENT, ids=IDS)
def test_prerequisites_at_the_top(path):
    problems = prerequisite_problems(notebook(path), lab_number(path))
    assert not problems, f"{path.parent.name}: " + "; ".join(problems)


@pytest.mark.parametrize("path", STUDENT, ids=IDS)
def test_the_top_links_to_the_glossary(path):
    assert f"]({GLOSSARY_LINK})" in first_markdown(notebook(path)), \
        f"{path.parent.name}: its first Markdown cell does not link to the glossary ({GLOSSARY_LINK})"


def test_the_glossary_link_resolves_in_the_labs_folder():
    copy = ROOT / "labs" / "glossary.md"
    assert copy.is_file() and copy.read_text(encoding="utf-8") == GLOSSARY.read_text(encoding="utf-8"), \
        "labs/glossary.md must be the glossary (a symbolic link to ../book/glossary.md)"


def test_the_learner_index_links_to_the_glossary():
    assert "](glossary.md)" in LEARNER_INDEX.read_text(encoding="utf-8")


def glossary_entries():
    """{term: definition} of book/glossary.md: each entry a line `**term**: definition` (or a
    list item), its definition running to the next entry or blank line."""
    body = GLOSSARY.read_text(encoding="utf-8")
    entries = {}
    for m in re.finditer(r"^(?:[-*]\s+)?\*\*(.+?)\*\*\s*[:.—–-]?\s*(.*?)(?=\n\s*\n|\n(?:[-*]\s+)?\*\*|\Z)",
                         body, re.M | re.S):
        entries[m.group(1).strip()] = " ".join(m.group(2).split())
    return entries


@pytest.mark.parametrize("term", GLOSSARY_TERMS)
def test_the_glossary_defines(term):
    entries = glossary_entries()
    heads = {name: d for head, d in entries.items() for name in re.split(r"\s*(?:,|\bor\b|\()\s*", head.rstrip(")"))}
    definition = entries.get(term) or heads.get(term)
    assert definition is not None, f"book/glossary.md has no entry **{term}**"
    assert len(words(definition)) >= 6, f"the glossary's entry for {term} is no definition: {definition!r}"


def test_the_glossary_reads_at_the_same_level():
    report = [f"({n} words): {s}" for s in sentences(GLOSSARY.read_text(encoding="utf-8"))
              if (n := len(words(s))) > MAX_WORDS]
    assert not report, "book/glossary.md has sentences over 40 words:\n" + "\n".join(report)


# ---- negative controls: the checks above catch what they are meant to catch --------------------

def test_a_long_sentence_is_caught_and_markup_is_not_counted():
    long = " ".join(["word"] * 41) + "."
    assert [n for _, n, _ in long_sentences({"cells": [{"cell_type": "markdown", "source": long}]})] == [41]
    short = ("A sentence with `a very long inline code span of many words` and a [link text](https://x.y/z), "
             "e.g. this, i.e. that.\n\n```\n" + " ".join(["code"] * 60) + "\n```\n"
             "| " + " | ".join(["cell"] * 50) + " |\n$$ " + " x +" * 50 + " $$\n# " + "heading " * 50)
    assert not long_sentences({"cells": [{"cell_type": "markdown", "source": short}]})
    items = "- " + " ".join(["a"] * 30) + "\n- " + " ".join(["b"] * 30)
    assert [len(words(s)) for s in sentences(items)] == [30, 30], "each list item is its own sentence"
    assert [len(words(s)) for s in sentences("One two three. Four five? Six, 2,273 and 0.85 don't.")] == [3, 2, 5]


def test_a_long_sentence_in_a_rendered_conclusion_is_caught():
    cell = {"cell_type": "code", "source": 'conclusions.render("""' + " ".join(["{x}"] * 41) + '.""", x=1)'}
    assert [n for _, n, _ in long_sentences({"cells": [cell]})] == [41]


def test_a_lab_leaning_on_an_unnamed_lab_is_caught():
    assert labs_named("labs 00-02 and lab 05") == {0, 1, 2, 5}
    assert labs_named("as lab 02's model says; labs 01 and 03") == {1, 2, 3}

    def lab(top, *more):
        return {"cells": [{"cell_type": "markdown", "source": top},
                          *({"cell_type": "markdown", "source": m} for m in more)]}
    assert not prerequisite_problems(lab("# Lab 06\n\n**Prerequisites:** lab 02 (PGs).", "as lab 02's model says"), 6)
    assert not prerequisite_problems(lab("# Lab 00\n\n**Prerequisites:** none.", "lab 04 counts them"), 0)
    assert prerequisite_problems(lab("# Lab 06\n\n**Prerequisites:** lab 01.", "as lab 02's model says"), 6)
    assert prerequisite_problems(lab("# Lab 06\n\n**You need:** a cluster."), 6)
    assert prerequisite_problems(lab("# Lab 06\n\n**Prerequisites:** Python."), 6)
    assert prerequisite_problems(lab("# Lab 02\n\n**Prerequisites:** lab 03."), 2)


def test_a_missing_glossary_entry_is_caught(monkeypatch, tmp_path):
    """Negative control: a term without an entry, or with a one-word definition, fails."""
    page = tmp_path / "glossary.md"
    page.write_text("# Glossary\n\n**OSD (object storage daemon)**: the daemon that stores data on one disk.\n\n"
                    "**MON**: a monitor.\n", encoding="utf-8")
    monkeypatch.setitem(globals(), "GLOSSARY", page)
    assert set(glossary_entries()) == {"OSD (object storage daemon)", "MON"}
    test_the_glossary_defines("OSD")
    test_the_glossary_defines("object storage daemon")
    with pytest.raises(AssertionError, match="no definition"):
        test_the_glossary_defines("MON")
    with pytest.raises(AssertionError, match="no entry"):
        test_the_glossary_defines("CRUSH")
