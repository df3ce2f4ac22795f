"""The student release: exactly what learners get, with no solutions and no hidden tests.

    cephlab release build/release/ceph-storage-lab --archive     # = make release
    build("out/ceph-storage-lab")   # -> the folder; archive(folder) -> folder.tar.gz

It holds the student notebooks with their public tests (labs/), data/, the cephlab and models
packages, and what `make lab` needs (pyproject.toml, constraints.txt, environment.yml,
cephlab/bootstrap.sh with its package lists, .binder/, vagrant/ for lab 11's multi-host cluster,
container/ for the lab's image).
It leaves out solutions/, the autograders (build/), the instructor guide and the course site
(book/), the project's tests/ and bench/, .ci/ and the instructor's check script
vagrant/up-and-check.sh. Three files are written for learners instead of copied: README.md
(from cephlab/course/learner-README.md), a Makefile with only the learner's targets (no `make test`,
`make solutions` or `make student`, which need what is left out) and labs/README.md.
Files the project's .gitignore files name (caches, a Vagrant cluster's keys in vagrant/.export/)
never get in.
"""
from __future__ import annotations

import fnmatch
import re
import shutil
import tarfile
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
"""


class ReleaseError(CourseError):
    """The release cannot be built (bad target folder, something forbidden would ship)."""


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
