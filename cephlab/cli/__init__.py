"""The `cephlab` command line. Each command group lives in its own module with a register()."""
from __future__ import annotations

import argparse
import importlib
import sys

from cephlab.core import report
from cephlab.core.errors import FolderUnusable

# Modules that add sub-commands: each has register(subparsers) and sets func on its parsers.
COMMAND_MODULES = ("cephlab.cli.cluster", "cephlab.cli.crush", "cephlab.cli.grade",
                   "cephlab.cli.release")


def build_parser(command=None):
    """The whole parser; given the command about to run, and a module of that name (`crush`), only
    that module's part: `cephlab crush` then does not import the cluster machinery."""
    parser = argparse.ArgumentParser(prog="cephlab", description="Ceph Storage Lab")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    own = f"cephlab.cli.{command}"
    for name in (own,) if own in COMMAND_MODULES else COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv=None):
    report.show_messages("stderr")      # the library's messages; stdout is the command's output
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except FolderUnusable as e:     # a --dir no command could use: one line, as a usage error
        print(f"cephlab: error: {e}", file=sys.stderr)
        return 2

