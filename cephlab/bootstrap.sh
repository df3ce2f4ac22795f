#!/usr/bin/env bash
# Set up what is missing, then run the lab or the tests.
#   cephlab/bootstrap.sh setup [--test]   OS packages and .venv for the labs; --test adds the tests'
#   cephlab/bootstrap.sh lab     setup, start the mini cluster, open JupyterLab on labs/
#                                (CEPHLAB_NO_CLUSTER=1: JupyterLab only; arguments go to `jupyter lab`)
#   cephlab/bootstrap.sh test    setup --test, run the whole test suite
#   cephlab/bootstrap.sh check   the fast loop: ruff, mypy and the pure tests (no cluster, no OS packages)
#   cephlab/bootstrap.sh venv [--test]   only the .venv (--test: with the test tools, e.g. jupyter-book)
#   cephlab/bootstrap.sh lock    renew constraints.txt (the pinned Python packages)
# A run with nothing to set up prints nothing of its own; JupyterLab prints its address and its
# warnings and errors only (cephlab/jupyter/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
# Debian's python3-rados/python3-rbd bindings exist only for the system interpreter, so the venv is
# built from /usr/bin/python3 and sees its site-packages (pip packages still take precedence).
SYSTEM_PYTHON="${CEPHLAB_PYTHON:-/usr/bin/python3}"
# The OS packages, split by need: packages-lab.txt for the labs (`make lab`), packages-test.txt on
# top for the tests (`make test`): a learner gets no browser and no Vagrant.
# A list file: names separated by white space, "#" starts a comment.
read_list() { sed -e 's/#.*//' "$1" | tr -s ' \t' '\n' | sed '/^$/d'; }
read_packages() { read_list "$ROOT/cephlab/packages-$1.txt"; }
mapfile -t LAB_PACKAGES < <(read_packages lab)
mapfile -t TEST_PACKAGES < <(read_packages test)
OS_PACKAGES=("${LAB_PACKAGES[@]}")

say() { printf '\033[1m[cephlab]\033[0m %s\n' "$*"; }
die() { printf '\033[1;31m[cephlab] error:\033[0m %s\n' "$*" >&2; exit 1; }

# Run a set-up phase; report its time when it did something (a phase with nothing to do is silent).
timed() {
    local what="$1" start=$SECONDS; shift
    "$@"
    if [ $((SECONDS - start)) -gt 1 ]; then say "$what ready in $((SECONDS - start)) s"; fi
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else die "need root to install OS packages; ask an admin to run: apt-get install ${OS_PACKAGES[*]}"
    fi
}

# The names installed packages provide. A virtual package is never "installed" itself: on Debian
# 13 postgresql-contrib is provided by postgresql, so without this every `make setup` asked for
# root to install it again (a learner without sudo could not set up at all).
provided_names() {
    dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' 2>/dev/null \
        | awk -F'|' '$1 ~ /^ii/ && $2 != "" {print $2}' | tr ',' '\n' | sed -E 's/^ +//; s/[ :].*//' | sort -u
}

missing_os_packages() {
    local p provided missing=()
    provided="$(provided_names)"
    for p in "${OS_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
        grep -qxF "$p" <<< "$provided" || missing+=("$p")
    done
    echo "${missing[*]}"
}

ensure_os_packages() {
    command -v dpkg-query >/dev/null || die "this set-up needs a Debian or Ubuntu system (apt/dpkg)"
    local missing; missing="$(missing_os_packages)"
    [ -z "$missing" ] && return 0
    say "installing OS packages: $missing"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
}

# The Python packages come in the versions pinned by constraints.txt (the ones the last green CI
# used), so a class set up next term gets what passed. `make lock` renews the pins.
LOCK="$ROOT/constraints.txt"
DROP="$ROOT/cephlab/pip-drop.txt"     # installed as dependencies, removed again: see the file
DROP_LAB="$ROOT/cephlab/pip-drop-lab.txt"   # the same, for a learner's .venv only (no test extras)

# pip's warning filter for the install of this project. setuptools ends every editable install of
# it with an "Editable installation." note ("Please be careful with folders in your working
# directory with the same name as your package"), which pip prints as a BuildBackendWarning
# although nothing is wrong. Python's warning filter (PYTHONWARNINGS, the -W syntax
# action:message-start:category) drops that one note, in pip and in its build back end; every
# other warning and every error still shows. Ours comes last, so it wins over a user's own.
PIP_WARNINGS="${PYTHONWARNINGS:+$PYTHONWARNINGS,}ignore:Editable installation.:UserWarning"

# The .venv comes in two sizes: "lab" (pyproject's dependencies: what the labs, `make lab` and
# `make setup` need) and "test" (plus the [test] extras: pytest, hypothesis, nbval, ruff, mypy,
# jupyter-book, JupyterHub, ...: `make test`, `make check`, `setup --test`, `venv --test`). A
# learner gets no test tools (nor Playwright's Python package, which otter-grader's
# nbconvert[webpdf] pulls in: cephlab/pip-drop-lab.txt); a .venv with them serves the labs too,
# and once it has them it keeps them.
ensure_venv() {
    local level="${1:-lab}" stamp="$VENV/.cephlab-stamp" want have="" have_level=""
    # what decides the installed packages: pyproject.toml less its [tool.*] tables other than
    # setuptools' (a lint or test setting changes nothing installed), the lock and the drop list
    want="$( (awk '/^\[/ { skip = ($0 ~ /^\[+tool\./ && $0 !~ /^\[tool\.setuptools/) } !skip' \
              "$ROOT/pyproject.toml"; cat "$LOCK" "$DROP" "$DROP_LAB") | sha256sum | cut -c1-16)"
    if [ -f "$stamp" ] && [ -x "$VENV/bin/cephlab" ]; then
        read -r have have_level < "$stamp" || true
        have_level="${have_level:-test}"    # a stamp without a level: made when every .venv had the tests'
        if [ "$have" = "$want" ] && { [ "$have_level" = test ] || [ "$level" = lab ]; }; then
            return 0
        fi
        if [ "$have_level" = test ]; then level="test"; fi
    fi
    say "creating the Python environment in .venv (a few minutes the first time)"
    [ -x "$VENV/bin/python" ] || "$SYSTEM_PYTHON" -m venv --system-site-packages "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    local project="$ROOT"
    if [ "$level" = test ]; then project="${ROOT}[test]"; fi
    # --ignore-installed: every package comes from the lock into .venv, none from the system's
    # dist-packages (only rados/rbd, which PyPI does not have, are taken from there)
    PYTHONWARNINGS="$PIP_WARNINGS" \
        "$VENV/bin/python" -m pip install -q --ignore-installed -c "$LOCK" -e "$project"
    local drop; mapfile -t drop < <(read_list "$DROP"; if [ "$level" = lab ]; then read_list "$DROP_LAB"; fi)
    [ "${#drop[@]}" -eq 0 ] || "$VENV/bin/python" -m pip uninstall -q -y "${drop[@]}"
    echo "$want $level" > "$stamp"
}

# Renew constraints.txt: the newest versions pyproject.toml allows, resolved in a scratch venv.
lock() {
    local tmp; tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' RETURN
    say "resolving the newest versions pyproject.toml allows (a minute or two)"
    "$SYSTEM_PYTHON" -m venv --system-site-packages "$tmp/venv"
    "$tmp/venv/bin/python" -m pip install -q --upgrade pip
    PYTHONWARNINGS="$PIP_WARNINGS" \
        "$tmp/venv/bin/python" -m pip install -q --ignore-installed -e "${ROOT}[test]"
    {
        echo "# Pinned Python packages for .venv (pip constraints), made by \`make lock\` on $(date -u +%F)"
        echo "# with $("$tmp/venv/bin/python" --version). Renew: make lock, then run CI (make test)."
        "$tmp/venv/bin/python" -m pip freeze --local --exclude-editable
    } > "$LOCK"
    say "wrote $LOCK ($(grep -vc '^#' "$LOCK") packages)"
}

# The class's hub (container/jupyterhub_config.py, tests/container/test_hub.py) needs JupyterHub's
# proxy, configurable-http-proxy, from npm: container/class-hub.sh install-proxy puts it into
# .venv/hub-proxy (project-local; jupyterhub and dockerspawner are in pyproject's test extras).
ensure_hub_proxy() {
    local version
    version="$(sed -n 's/^HUB_PROXY_VERSION=//p' "$ROOT/container/class-hub.sh")"
    [ -f "$VENV/hub-proxy/.version-$version" ] && return 0
    # Debian's nodejs has no npm (the package npm); a Node.js from NodeSource has it built in and
    # conflicts with Debian's npm, so npm is installed only when missing
    if ! command -v npm >/dev/null; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm
    fi
    bash "$ROOT/container/class-hub.sh" install-proxy
}

setup() {
    # `setup --test` (and `test`) add the test-only packages, OS and Python
    local level="lab"
    if [ "${1:-}" = "--test" ]; then level="test"; OS_PACKAGES+=("${TEST_PACKAGES[@]}"); fi
    timed "OS packages" ensure_os_packages
    timed "Python environment" ensure_venv "$level"
    if [ "$level" = test ]; then timed "hub proxy" ensure_hub_proxy; fi
}

# JupyterLab's settings for the lab: cephlab/jupyter/ goes first on Jupyter's config path (see
# its README.md: warnings and errors only in the log, no Jupyter news box over the notebooks).
# container/start.sh does the same in the image.
JUPYTER_SETTINGS="$ROOT/cephlab/jupyter"

run_lab() {
    setup
    local stop="stop it with Ctrl-C; stop the cluster with: .venv/bin/cephlab down"
    if [ "${CEPHLAB_NO_CLUSTER:-0}" != 1 ]; then
        # 4 OSDs: the failure and recovery lab loses one and still re-replicates size-3 pools
        "$VENV/bin/cephlab" up --osds 4
    else
        stop="no cluster started (CEPHLAB_NO_CLUSTER=1); stop it with Ctrl-C"
    fi
    local args=(--notebook-dir="$ROOT/labs" --ServerApp.ip=127.0.0.1)
    [ "$(id -u)" -eq 0 ] && args+=(--allow-root)
    # no browser to open (a server, ssh, a container): say nothing about it, the address is printed
    "$VENV/bin/python" -c 'import webbrowser; webbrowser.get()' 2>/dev/null || args+=(--no-browser)
    export JUPYTER_CONFIG_PATH="$JUPYTER_SETTINGS${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"
    say "opening JupyterLab on labs/ ($stop)"
    exec "$VENV/bin/jupyter" lab "${args[@]}" "$@"
}

run_tests() {
    setup --test
    cd "$ROOT"
    exec "$VENV/bin/python" -m pytest "$@"
}

# The fast loop: lint, types and the tests that need no cluster, tool or browser. Only the .venv is
# needed, so a contributor can run it before `make setup` has installed Ceph. mypy and pytest run
# side by side (2 cores); each part's time is printed so a slow part shows up where it grew.
PURE_TESTS=(tests/unit tests/models)     # = CHECKED_FOLDERS in tests/conftest.py
run_check() {
    timed "Python environment" ensure_venv test
    cd "$ROOT"
    local start=$SECONDS t rc=0 mypy_log pytest_rc mypy_rc
    mypy_log="$(mktemp)"
    t=$SECONDS; "$VENV/bin/ruff" check --quiet . || rc=1
    say "ruff: $((SECONDS - t)) s"
    t=$SECONDS
    ( "$VENV/bin/mypy" > "$mypy_log" 2>&1; echo $? >> "$mypy_log.rc" ) &
    local mypy_pid=$!
    # addopts of pyproject load the notebook plugin and nbval for `make test`; here only -ra,
    # and the lint tests are skipped because ruff and mypy ran directly above
    "$VENV/bin/python" -m pytest -q -o addopts="-ra" -p no:nbval -m "not oracle and not lint" \
        "${PURE_TESTS[@]}" "$@" && pytest_rc=0 || pytest_rc=$?
    say "pure tests: $((SECONDS - t)) s"
    wait "$mypy_pid" || true
    mypy_rc="$(cat "$mypy_log.rc" 2>/dev/null || echo 1)"
    tail -n 30 "$mypy_log"; rm -f "$mypy_log" "$mypy_log.rc"
    say "mypy: done with the tests (ran alongside them)"
    [ "$mypy_rc" = 0 ] || rc=1
    [ "$pytest_rc" = 0 ] || rc=1
    if [ "$rc" -eq 0 ]; then say "make check passed in $((SECONDS - start)) s"
    else die "make check failed after $((SECONDS - start)) s (ruff, mypy or a pure test: see above)"; fi
}

case "${1:-}" in
    check) shift; run_check "$@" ;;
    setup) shift; setup "$@" ;;
    venv) if [ "${2:-}" = "--test" ]; then timed "Python environment" ensure_venv test
          else timed "Python environment" ensure_venv lab; fi ;;
    lock) lock ;;
    lab) shift; run_lab "$@" ;;
    test) shift; run_tests "$@" ;;
    *) die "usage: $0 setup [--test]|venv [--test]|lab|test [args]|check [pytest args]|lock" ;;
esac
