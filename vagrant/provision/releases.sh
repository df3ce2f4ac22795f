# shellcheck shell=bash
# The Ceph release facts the shell scripts need, from the lab's one release table
# (cephlab/core/releases.py) by way of releases.tsv beside this file, which
# `python -m cephlab.core.mgr_files --table` writes: the Vagrant VMs have no .venv to ask.
# No side effects: lib.sh (on the nodes) and vagrant/containers/common.sh both source it.

# The upstream release in a Debian package version: 18.2.7 of 18.2.7+ds-1+deb13u1.
version_release() {
    printf '%s' "$1" | sed -e 's/^[0-9]*://' -e 's/[+~-].*//'
}

# release_need MAJOR COLUMN: that column of MAJOR's row, COLUMN one of the names in releases.tsv's
# header line (ssh, wheels, codename, node_suite, ...; "-" there reads as empty). A major without a
# row takes the next newer row, else the newest (as releases.for_major does: Quincy 17 reads Reef's).
release_need() {
    local table
    table="$(dirname "${BASH_SOURCE[0]}")/releases.tsv"
    awk -F'\t' -v want="$1" -v col="$2" '
        function usage() { print "release_need: MAJOR ssh|wheels|codename|... (a column in the header of releases.tsv)" > "/dev/stderr"; exit 2 }
        BEGIN { if (want !~ /^[0-9]+$/) usage() }
        /^# major\t/ { for (i = 2; i <= NF; i++) if ($i == col) n = i; if (!n) usage(); next }
        /^#/ { next }
        { m = $1 + 0; v[m] = $n
          if (m >= want + 0 && (best == "" || m < best)) best = m
          if (top == "" || m > top) top = m }
        END { if (n) { x = v[(best == "") ? top : best]; print (x == "-") ? "" : x } }' "$table"
}
