"""The student release: exactly what learners get, with no solutions and no hidden tests.

    cephlab release build/release/ceph-storage-lab --archive     # = make release
    build("out/ceph-storage-lab")   # -> the folder; archive(folder) -> folder.tar.gz

It holds the student notebooks with their public tests (labs/), data/, the cephlab and models
packages, and what `make lab` needs (pyproject.toml, constraints.txt, environment.yml,
cephlab/bootstrap.sh with its package lists, .binder/, vagrant/ for lab 11's multi-host cluster,
container/ for the lab's image).
It leaves out solutions/, the autograders (build/), the instructor guide and the course site
(book/), the project's tests/ and bench/, .ci/ and the instructor's check script
vagrant/up-and-check.sh. Four files are written for learners instead of copied: README.md
(from cephlab/course/learner-README.md), a Makefile with only the learner's targets (no `make test`,
`make solutions` or `make student`, which need what is left out), labs/README.md and REFERENCES.md.
REFERENCES.md (`references_page`) lets a learner look up every citation of the labs: each source
document cited as "seed NNN" (what it is, who wrote it, where to read it, which labs cite it and
which data/ tables hold its figures), every data/ table with the sources its `source` column
names, and the Ceph code, documentation and papers of book/references.md. A lab citing a seed
number the page does not know stops the build.
Files the project's .gitignore files name (caches, a Vagrant cluster's keys in vagrant/.export/)
never get in.
"""
from __future__ import annotations

import csv
import fnmatch
import io
import json
import re
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

from cephlab.core.errors import CourseError
from cephlab.course.notebooks import ROOT

INCLUDE = ("labs", "data", "cephlab", "models", ".binder", "vagrant", "container", "pyproject.toml", "constraints.txt",
           "environment.yml", "LICENSE")
LEAVE_OUT = {"vagrant/up-and-check.sh", "cephlab/course/learner-README.md"}
ALWAYS_IGNORED = ("__pycache__/", "*.pyc", ".ipynb_checkpoints/", ".git/")   # even without a .gitignore
LEARNER_TARGETS = ("lab", "setup")
MARKER = ".cephlab-release"        # says a folder is a release (so building again may replace it)
# Never in a release, whatever changes upstream: build() refuses to finish when one shows up.
FORBIDDEN_TOP = ("solutions", "tests", "bench", "book", "build", ".ci")
FORBIDDEN_IN_LABS = ("# HIDDEN", "# BEGIN SOLUTION", "# END SOLUTION", "# BEGIN TESTS", "# BEGIN QUESTION")
LABS_README = """# The labs

One folder per lab, in learning order: open `NN-topic/NN-topic.ipynb` in JupyterLab (`make lab`
starts the mini cluster and opens this folder). Run the cells from the top. Each question has an
answer cell (`...` to replace) and a `grader.check("qN")` cell that runs its self-check tests,
kept in `NN-topic/tests/`. They help you check your work; grading runs further tests.
When a lab cites "seed 003" or a table in `data/`, `../REFERENCES.md` (in the folder above, next to
the README) says what that source is and where to read it.
`../README.md` says where your learner id comes from, how to hand a lab in, and what each lab
needs from your machine (root for lab 10's Ceph side, a usable /dev/fuse for lab 09, a cephadm
cluster for lab 11's second half).
"""
REFERENCES = "REFERENCES.md"


class ReleaseError(CourseError):
    """The release cannot be built (bad target folder, something forbidden would ship)."""


# -- the references page ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Seed:
    """One source document the labs cite as "seed NNN", described for a learner who wants to read it."""

    kind: str           # what it is
    title: str          # its title, as the labs cite it
    by: str             # who wrote it
    where: str          # where and when it appeared
    link: str = ""      # a public address of it (checked against its text), "" when none is known
    link_note: str = ""  # what that address holds, when it is not plainly the document
    look_up: str = ""   # how to find it without a link
    file: str = ""      # its file name in the course's seeds folder, as the seeds' README names it


SEEDS = {
    "000": Seed("slides of a talk", "Persistent storage for Docker containers with Ceph",
                "NAVER; the published deck names Jangseon Ryu as the speaker",
                "OpenStack Days 2017, as the labs cite it",
                link="https://www.slideshare.net/slideshow/naver-ceph-storage-on-ssd-for-container/83132080",
                link_note='the same slides, published on SlideShare under the title "Ceph Storage on SSD '
                          'for Container"',
                file="000_ff3932318711fad8.txt"),
    "001": Seed("a blog post", "Improving the performance of the Ceph storage platform at Ocado Technology",
                "Luis Periquito (Unix Team Lead), Ocado Technology", "Ocado Technology's blog",
                link="http://ocadotechnology.com/blog/improving-the-performance-of-the-ceph-storage-platform-"
                     "at-ocado-technology/",
                file="001_eae3490e2ea9fcac.txt"),
    "002": Seed("a bachelor thesis (B.Sc.)",
                "Running a CEPH-Cluster from a containerized infrastructure: Performance test with a "
                "mySQL-Database", "Julius Neudecker", "HAW Hamburg, May 2021",
                look_up="no public copy is known to the course: search for its title or ask your instructor. "
                        "The thesis cites the repository of its Docker set-up: "
                        "<https://github.com/codebaard/DockerCEPH>",
                file="002_696ca3a238e3edbe.txt"),
    "003": Seed("slides of a conference talk, with a paper of the same title",
                "Understanding Write Behaviors of Storage Backends in Ceph Object Store",
                "Dong-Yun Lee, Kisik Jeong, Sang-Hoon Han, Jin-Soo Kim (Sungkyunkwan University), "
                "Joo-Young Hwang and Sangyeun Cho (Samsung Electronics)",
                "IEEE International Conference on Massive Storage Systems and Technology (MSST), "
                "Santa Clara, 2017",
                look_up="the paper is in the MSST 2017 proceedings; search for its title",
                file="003_6caa91e4707f31ce.txt"),
    "004": Seed("slides of a conference talk", "Ceph Goes Online at Qihoo 360", "Xu Xuehan, Qihoo 360",
                "Cephalocon APAC 2018, Beijing, 22-23 March 2018",
                look_up="no public copy is known to the course: search for its title or ask your instructor",
                file="004_3d50276d8cea0e54.txt"),
}
# "seed 003", "seed\n004", "seeds 000, 002 and 004", "seed 000's": every number of such a run
SEED_RUN = re.compile(r"(?i)\bseeds?\s+(\d{3}(?!\d)(?:\s*(?:,|and|or|&)\s*\d{3}(?!\d))*)")
SEED_FILE = re.compile(r"^seed(\d{3})_")         # data/seed004_mdtest.csv: a table of seed 004


def seed_numbers(text: str) -> set[str]:
    """The seed numbers a text cites ("seed 003", "seeds 000 and 002", across line breaks)."""
    return {n for run in SEED_RUN.findall(text) for n in re.findall(r"\d{3}", run)}


def notebook_text(path: Path) -> str:
    """A notebook's cells as one text (its raw file when it is not a readable notebook)."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    try:
        cells = json.loads(raw).get("cells", [])
    except (json.JSONDecodeError, AttributeError):
        return raw
    return "\n".join("".join(c.get("source", "")) if isinstance(c.get("source"), list) else str(c.get("source", ""))
                     for c in cells if isinstance(c, dict))


def lab_citations(root: Path) -> dict[str, list[str]]:
    """{seed number: the labs (their folder names) whose notebook cites it}, from root's labs/*/*.ipynb."""
    cites: dict[str, list[str]] = {}
    for path in sorted((root / "labs").glob("*/*.ipynb")):
        for n in sorted(seed_numbers(notebook_text(path))):
            cites.setdefault(n, []).append(path.parent.name)
    return cites


def data_sources(root: Path) -> dict[str, set[str]]:
    """{data/NAME.csv: the seed numbers it holds figures of}: by its name (seedNNN_...) and by what its
    `source` column cites; a table of the lab's own measurements or of other public sources maps to
    an empty set."""
    tables: dict[str, set[str]] = {}
    for path in sorted((root / "data").glob("*.csv")):
        body = "".join(line for line in path.read_text(encoding="utf-8").splitlines(keepends=True)
                       if not line.startswith("#"))
        rows = list(csv.DictReader(io.StringIO(body)))
        seeds = {n for row in rows for n in seed_numbers(row.get("source") or "")}
        named = SEED_FILE.match(path.name)
        tables[f"data/{path.name}"] = seeds | ({named.group(1)} if named else set())
    return tables


def _labs_list(labs: list[str]) -> str:
    return ", ".join(f"`labs/{lab}`" for lab in labs) if labs else "none of the labs"


def references_page(root: Path = ROOT) -> str | None:
    """REFERENCES.md for the release made from root; None when its labs and data cite no seed.
    Raises ReleaseError when a lab or a data table cites a seed that SEEDS does not describe."""
    cites, tables = lab_citations(root), data_sources(root)
    named = set(cites) | {n for seeds in tables.values() for n in seeds}
    unknown = sorted(named - set(SEEDS))
    if unknown:
        where = sorted({f"labs/{lab}" for n in unknown for lab in cites.get(n, [])}
                       | {t for t, seeds in tables.items() if seeds & set(unknown)})
        raise ReleaseError(f"{', '.join(where)} cite seed {', '.join(unknown)}, which the references page "
                           "does not describe: add it to SEEDS in cephlab/course/student_release.py")
    if not named:
        return None
    first, last = min(SEEDS), max(SEEDS)
    out = ["# References", "",
           "The labs build on source documents by people who ran Ceph (talks, a blog post, a thesis) and",
           f'cite them by number, "seed {first}" to "seed {last}". The documents themselves are not in this',
           "folder. This page says what each one is, who wrote it, where to read it, which labs cite it and",
           "which tables in `data/` hold figures from it. Every table in `data/` has a `source` column",
           "naming, row by row, where its numbers come from; lines starting with `#` are notes on how they",
           'were read. In a notebook, `models.data.load("seed004_mdtest")` loads one.', "",
           "## The source documents", ""]
    for n, seed in SEEDS.items():
        own = [t for t, seeds in tables.items() if n in seeds]
        out += [f"### seed {n}: {seed.title}", "",
                f"- What: {seed.kind}, by {seed.by}.",
                f"- Where: {seed.where}.",
                f"- Cited by: {_labs_list(cites.get(n, []))}.",
                f"- In `data/`: {', '.join(f'`{t}`' for t in own) if own else 'no table names it'}."]
        if seed.link:
            out.append(f"- Read it: <{seed.link}>" + (f" ({seed.link_note})." if seed.link_note else "."))
        if seed.look_up:
            out.append(f"- Read it: {seed.look_up}.")
        out.append("")
    other = "none: the lab's own measurements or the public sources its `source` column names"
    out += ["## The tables in data/", "",
            "| table | seeds its `source` column or its name cites |", "|---|---|"]
    out += [f"| `{t}` | {', '.join(f'seed {n}' for n in sorted(seeds)) or other} |" for t, seeds in tables.items()]
    out.append("")
    book = root / "book" / "references.md"
    if book.is_file():
        text = book.read_text(encoding="utf-8")
        start = text.find("\n## Ceph's code")
        if start >= 0:
            out += [text[start:].strip(), ""]
    return "\n".join(out)


def ignore_rules(root: Path) -> list[tuple[str, str, bool]]:
    """(folder, pattern, folders only) from the .gitignore files at the root and under INCLUDE.
    The plain gitignore forms the project uses: `name`, `*.ext`, `dir/`, `sub/*.whl` (no `!`)."""
    rules = [("", p.rstrip("/"), p.endswith("/")) for p in ALWAYS_IGNORED]
    for gitignore in [root / ".gitignore"] + [g for top in INCLUDE if (root / top).is_dir()
                                              for g in (root / top).rglob(".gitignore")]:
        if not gitignore.is_file():
            continue
        base = "" if gitignore.parent == root else str(gitignore.parent.relative_to(root))
        for line in gitignore.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith(("#", "!")):
                rules.append((base, line.strip("/") if line.startswith("/") else line.rstrip("/"),
                              line.endswith("/")))
    return rules


def ignored(rel: str, rules) -> bool:
    """True when a file's relative path, or a folder on it, matches a rule (as git would)."""
    parts = rel.split("/")
    for base, pattern, folders_only in rules:
        if base and not rel.startswith(base + "/"):
            continue
        sub = parts[len(base.split("/")):] if base else parts
        candidates = sub[:-1] if folders_only else sub
        if "/" in pattern:          # anchored at its .gitignore's folder
            depth = pattern.count("/") + 1
            if any(fnmatch.fnmatch("/".join(sub[:i]), pattern) for i in range(depth, len(sub) + 1)):
                return True
        elif any(fnmatch.fnmatch(name, pattern) for name in candidates):
            return True
    return False


def source_files(root: Path = ROOT) -> list[str]:
    """Relative paths of the files to copy: those under INCLUDE that no .gitignore names (so a
    Vagrant cluster's keys and the caches stay out), without LEAVE_OUT."""
    rules, files = ignore_rules(root), set()
    for top in INCLUDE:
        path = root / top
        found = [path] if path.is_file() else path.rglob("*") if path.is_dir() else []
        files |= {str(p.relative_to(root)) for p in found if p.is_file()}
    return sorted(f for f in files if f not in LEAVE_OUT and not ignored(f, rules))


def learner_makefile(makefile: str) -> str:
    """The learner's Makefile: the project's rules for LEARNER_TARGETS only."""
    blocks = []
    for target in LEARNER_TARGETS:
        m = re.search(rf"^{target}:.*\n(?:\t.*\n)*", makefile, re.M)
        if not m:
            raise ReleaseError(f"the Makefile has no `{target}:` rule, which learners need")
        blocks.append(m.group(0))
    head = ("# The learner's Makefile (made by `cephlab release` from the course's own).\n"
            f".PHONY: {' '.join(LEARNER_TARGETS)}\n\n")
    return head + "\n".join(blocks)


def source_version(root: Path = ROOT) -> str:
    """The commit the release is made from, read from .git (no git program needed), or "unknown"
    (an unpacked archive). Uncommitted changes in the work tree are not detected."""
    git = root / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return f"commit {head[:12]}"
        ref = head[5:]
        if (git / ref).exists():
            return f"commit {(git / ref).read_text().strip()[:12]} ({ref.rsplit('/', 1)[-1]})"
        for line in (git / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref):
                return f"commit {line[:12]} ({ref.rsplit('/', 1)[-1]})"
    except OSError:
        pass
    return "unknown"


def prepare_target(target: Path) -> None:
    """An empty target folder; a previous release there is replaced, anything else refused."""
    if target.exists() and any(target.iterdir()):
        if not (target / MARKER).exists():
            raise ReleaseError(f"{target} exists and is not a release made by `cephlab release`: "
                               "choose a new or empty folder (nothing was changed)")
        shutil.rmtree(target)
    target.mkdir(parents=True, exist_ok=True)


def forbidden(target: Path) -> list[str]:
    """What must never be in a release but is: instructor folders, zips, otter's markers in labs/."""
    found = [f"{top}/" for top in FORBIDDEN_TOP if (target / top).exists()]
    found += [str(p.relative_to(target)) for p in target.rglob("*.zip")]
    for path in (target / "labs").rglob("*"):
        if path.is_file() and path.suffix in (".ipynb", ".py", ".md"):
            body = path.read_text(encoding="utf-8", errors="replace")
            found += [f"{path.relative_to(target)}: {m!r}" for m in FORBIDDEN_IN_LABS if m in body]
    return found


def build(target, root: Path = ROOT) -> Path:
    """Write the student release into target/ (new, empty, or a previous release); returns it."""
    target, root = Path(target).resolve(), Path(root).resolve()
    if target == root or root in target.parents and target.parts[len(root.parts)] != "build":
        raise ReleaseError(f"{target}: put the release outside the project or under build/, "
                           "not among the project's own files")
    prepare_target(target)
    for rel in source_files(root):
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target / rel)
    (target / "README.md").write_text((root / "cephlab" / "course" / "learner-README.md").read_text(encoding="utf-8"),
                                      encoding="utf-8")
    (target / "Makefile").write_text(learner_makefile((root / "Makefile").read_text(encoding="utf-8")),
                                     encoding="utf-8")
    (target / "labs" / "README.md").write_text(LABS_README, encoding="utf-8")
    page = references_page(root)
    if page is not None:
        (target / REFERENCES).write_text(page, encoding="utf-8")
    (target / MARKER).write_text(f"student release of the Ceph Storage Lab, from {source_version(root)}\n",
                                 encoding="utf-8")
    problems = forbidden(target)
    if problems:
        raise ReleaseError(f"refusing to finish the release in {target}: it would hold "
                           f"{'; '.join(problems[:10])}. Regenerate labs/ (make student) and check INCLUDE.")
    return target


def archive(folder) -> Path:
    """folder.tar.gz with folder's name as its top directory, entries sorted, owner-neutral."""
    folder = Path(folder)
    out = folder.with_name(folder.name + ".tar.gz")

    def neutral(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info
    with tarfile.open(out, "w:gz") as tar:
        tar.add(folder, arcname=folder.name, recursive=False, filter=neutral)
        for path in sorted(folder.rglob("*")):
            tar.add(path, arcname=f"{folder.name}/{path.relative_to(folder)}", recursive=False, filter=neutral)
    return out
