"""Find every external program the project runs, and the Debian package that provides each.

Used by tests/setup/test_programs.py, so a program the lab runs but the set-up does not install
(e.g. `fusermount`: `fuse` is only *recommended* by ceph-fuse, and the set-up skips
recommends) fails CI instead of a learner's fresh machine.

Where a program name is found:
- Python: the first element of a list given to a process-running call (subprocess.run/Popen/...,
  and the project's own runner functions), directly or through a local variable; the argument of
  shutil.which/find_binary; the names given to paths.require_binaries / REQUIRED_BINARIES.
- Shell scripts run on the host: the first word of each simple command.
"""
from __future__ import annotations

import ast
import glob
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Calls that run their first argument as a command line.
RUNNERS = {"run", "Popen", "spawn", "check_output", "check_call", "call", "run_tool", "_run", "_run_tool",
           "_as_db"}
PROGRAM_NAME = re.compile(r"/?[a-zA-Z][\w.+/-]*[a-zA-Z0-9]")
LOOKUPS = {"which", "find_binary"}
BINARY_LISTS = {"require_binaries"}
PROGRAM_LIST_NAME = re.compile(r"BINARIES$|CANDIDATES$")    # REQUIRED_BINARIES, CHROMIUM_CANDIDATES
# Where the code lives and who needs it: "lab" code runs on a learner's machine after `make lab`,
# "test" code only under `make test`. vagrant/provision's other scripts run inside the cluster's
# VMs or node containers, which install their own packages (node.sh's PACKAGES).
PYTHON_SCOPES = {"cephlab": "lab", "models": "lab", "tests": "test", "bench": "test", "book": "test"}
SHELL_SCRIPTS = {"cephlab/bootstrap.sh": "lab", ".binder/start": "lab", ".binder/postBuild": "lab",
                 ".ci/run": "test", "vagrant/up-and-check.sh": "test",
                 "vagrant/provision/health.sh": "test"}
SHELL_WORDS = set("""if then else elif fi case esac for while until do done in function select time
    return exit local export set shift source . echo printf read cd pwd test [ [[ ] ]] true false
    declare readonly unset trap eval exec wait command type mapfile let break continue getopts
    alias umask ulimit hash kill { } ! :""".split())
# Words a shell script may put in command position that run nothing new: helper prefixes whose
# own program is checked separately, and this project's commands (installed into .venv).
SHELL_PREFIXES = {"env", "timeout", "sudo", "nice", "nohup", "as_root"}
OWN_COMMANDS = {"cephlab", "python", "jupyter", "pytest", "voila"}


@dataclass(frozen=True)
class Use:
    program: str
    where: str      # file:line
    scope: str      # "lab" or "test"


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _first_string(seq: ast.AST) -> str | None:
    if isinstance(seq, (ast.List, ast.Tuple)) and seq.elts:
        first = seq.elts[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def _assignments(scope: ast.AST) -> dict[str, ast.AST]:
    """name -> the last value assigned to it in this function or module body."""
    found = {}
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value
    return found


def python_uses(path: Path, scope: str) -> list[Use]:
    tree = ast.parse(path.read_text(), filename=str(path))
    rel = path.relative_to(ROOT)
    uses = []
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for body in [tree, *functions]:
        names = _assignments(body)
        for node in ast.walk(body):
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and PROGRAM_LIST_NAME.search(t.id) for t in node.targets):
                uses += [Use(s, f"{rel}:{node.lineno}", scope) for s in _strings(node.value)]
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name, arg = _call_name(node), node.args[0]
            if isinstance(arg, ast.Name) and arg.id in names:
                arg = names[arg.id]
            where = f"{rel}:{node.lineno}"
            if name in LOOKUPS and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                uses.append(Use(arg.value, where, scope))
            elif name in BINARY_LISTS:
                uses += [Use(s, where, scope) for s in _strings(arg)]
            elif name in RUNNERS and (program := _first_string(arg)):
                uses.append(Use(program, where, scope))
    uses = [u for u in uses if PROGRAM_NAME.fullmatch(u.program)]     # not "-c" nor f"ceph-{kind}"
    return sorted(set(uses), key=lambda u: (u.where, u.program))


def _skip_code(text: str, i: int) -> tuple[str, int] | None:
    """In code: a here-document or a comment starting at i, blanked: (blank text, next index)."""
    heredoc = re.match(r"<<-?\s*['\"]?(\w+)['\"]?", text[i:])
    if heredoc:
        body_end = re.compile(rf"^\s*{heredoc.group(1)}$", re.M).search(text, i + heredoc.end())
        stop = body_end.end() if body_end else len(text)
    elif text[i] == "#" and (i == 0 or text[i - 1] in " \t\n;"):
        stop = text.find("\n", i)
        stop = len(text) if stop < 0 else stop
    else:
        return None
    return re.sub(r"[^\n]", " ", text[i:stop]), stop


def _blank_shell(text: str) -> str:
    """The script with comments, quoted text, arithmetic and here-documents blanked (newlines kept),
    and each command substitution $(...) cut out as a command of its own (between ';')."""
    out, i, stack = [], 0, [["code", 0]]     # frames: code (with its paren depth), single, double
    while i < len(text):
        c, frame = text[i], stack[-1]
        emit, step = (" " if c != "\n" else "\n"), 1
        quoted = frame[0] != "code"
        if frame[0] != "single" and text.startswith("$((", i):
            step = text.find("))", i) + 2 - i
            emit = " " * step
        elif frame[0] != "single" and text.startswith("$(", i):
            stack.append(["code", 0])
            emit, step = " ;", 2
        elif c == "\\":
            emit, step = ("  " if text[i + 1:i + 2] != "\n" else " \n"), 2
        elif quoted:
            if c == ("'" if frame[0] == "single" else '"'):
                stack.pop()
        elif (skipped := _skip_code(text, i)):
            emit, step = skipped[0], skipped[1] - i
        elif c in "'\"":    # a quoted word stays a word ("Q"): `"$VENV/bin/cephlab" up` runs no "up"
            stack.append(["single" if c == "'" else "double", 0])
            emit = " Q"
        elif c == ")" and frame[1] == 0 and len(stack) > 1:
            stack.pop()
            emit = ";"
        else:
            frame[1] += (c == "(") - (c == ")")
            emit = c
        out.append(emit)
        i += step
    return "".join(out)


def _command_word(command: str, functions: set[str]) -> str | None:
    words = command.split()
    while words and (re.match(r"^\w+=", words[0]) or words[0] in SHELL_PREFIXES or
                     words[0] in {"then", "do", "else", "if", "elif", "while", "until", "!", "{", "time"}
                     or (words[0].startswith("-") and len(words) > 1) or words[0].isdigit()):
        words = words[1:]
    if not words:
        return None
    word = words[0]
    if word in SHELL_WORDS or word in functions or word in OWN_COMMANDS:
        return None
    return word if re.fullmatch(r"[a-z][a-z0-9.+_-]*", word) else None


def shell_functions() -> set[str]:
    """Functions the host scripts define, and those of the library they source."""
    names = set()
    for script in [*SHELL_SCRIPTS, "vagrant/provision/lib.sh"]:
        names |= set(re.findall(r"^\s*([\w-]+)\s*\(\)\s*\{", (ROOT / script).read_text(), flags=re.M))
    return names


def shell_uses(path: Path, scope: str) -> list[Use]:
    functions = shell_functions()
    rel = path.relative_to(ROOT)
    uses = []
    for number, line in enumerate(_blank_shell(path.read_text()).splitlines(), 1):
        uses += [Use(word, f"{rel}:{number}", scope) for word in command_words(line, functions)]
    return uses


def command_words(line: str, functions: set[str]) -> list[str]:
    """The programs one blanked line of shell runs."""
    line = re.sub(r"^\s*[\w|*.-]*\)", "", line)            # a case label: "setup)" or "*)"
    words = (_command_word(c, functions) for c in re.split(r";|&&|\|\||\||&|\(|\)", line))
    return [w for w in words if w]


# Tests of "program missing" errors run programs that must not exist.
DELIBERATELY_MISSING = re.compile(r"^no-such-")


def all_uses() -> list[Use]:
    uses = []
    for folder, scope in PYTHON_SCOPES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            uses += python_uses(path, scope)
    for script, scope in SHELL_SCRIPTS.items():
        uses += shell_uses(ROOT / script, scope)
    return [u for u in uses if not DELIBERATELY_MISSING.match(u.program)]


# -- packages ----------------------------------------------------------------------------------

def listed_packages(need: str) -> set[str]:
    """cephlab/packages-<need>.txt: what cephlab/bootstrap.sh installs."""
    text = (ROOT / "cephlab" / f"packages-{need}.txt").read_text()
    return set(re.sub(r"#[^\n]*", "", text).split())


def installed_packages() -> dict[str, dict[str, str]]:
    """Every installed package: its Essential, Priority, Depends + Pre-Depends and Provides."""
    fmt = "${Package}\\t${Status}\\t${Essential}\\t${Priority}\\t${Depends}, ${Pre-Depends}\\t${Provides}\\n"
    out = subprocess.run(["dpkg-query", "-W", "-f", fmt], capture_output=True, text=True, check=True).stdout
    packages = {}
    for row in out.splitlines():
        name, status, essential, priority, depends, provides = row.split("\t")
        if status.endswith(" installed"):
            packages[name.split(":")[0]] = {"essential": essential, "priority": priority,
                                            "depends": depends, "provides": provides}
    return packages


def _names(field: str) -> list[list[str]]:
    """'a (>= 1) | b, c' -> [['a', 'b'], ['c']] (alternatives per dependency)."""
    groups = []
    for dep in field.split(","):
        alts = [re.sub(r"[\s(:].*", "", a.strip()) for a in dep.split("|")]
        if alts := [a for a in alts if a]:
            groups.append(alts)
    return groups


def installed_closure(roots: set[str], packages: dict[str, dict[str, str]]) -> set[str]:
    """The roots and everything their Depends/Pre-Depends pull in (never Recommends: the set-up
    installs with --no-install-recommends), through virtual packages, among what is installed."""
    providers: dict[str, list[str]] = {}
    for name, info in packages.items():
        for virtual in _names(info["provides"]):
            providers.setdefault(virtual[0], []).append(name)
    seen, todo = set(), [r for r in roots if r in packages]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for alts in _names(packages[name]["depends"]):
            for alt in alts:
                for real in ([alt] if alt in packages else []) + providers.get(alt, []):
                    if real not in seen:
                        todo.append(real)
    return seen


def base_system(packages: dict[str, dict[str, str]]) -> set[str]:
    """What every Debian system has: Essential and Priority required (debootstrap's minbase)."""
    return {n for n, i in packages.items() if i["essential"] == "yes" or i["priority"] == "required"}


DEBIAN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def providing_package(program: str) -> tuple[str | None, str | None]:
    """(resolved path, package) of a program on this machine's PATH plus the sbin folders."""
    # Debian's default PATH (not this shell's: a pyenv or conda shim is no Debian package), and
    # Debian's PostgreSQL programs
    # (cephlab.helpers.database.pg_bin_dir looks there: initdb, pg_ctl, pgbench are not on PATH)
    search = os.pathsep.join([DEBIAN_PATH, *sorted(glob.glob("/usr/lib/postgresql/*/bin"))])
    absolute = os.path.isabs(program) and os.access(program, os.X_OK)
    path = program if absolute else shutil.which(program, path=search)
    if not path:
        return None, None
    real = os.path.realpath(path)
    # usrmerge: dpkg may know the file as /sbin/x while PATH finds /usr/sbin/x (or the reverse)
    candidates = {real, path, re.sub(r"^/usr/", "/", real), re.sub(r"^/usr/", "/", path)}
    for candidate in sorted(candidates):
        out = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if out.returncode == 0:
            return real, out.stdout.split(":")[0].strip()
    return real, None
