"""The `cephlab` command line. Each command group lives in its own module with a register()."""
from __future__ import annotations

import argparse
import importlib
import sys

# Modules that add sub-commands: each has register(subparsers) and sets func on its parsers.
COMMAND_MODULES = ("cephlab.cli.cluster", "cephlab.cli.crush", "cephlab.cli.grade",
                   "cephlab.cli.release")


def build_parser():
    parser = argparse.ArgumentParser(prog="cephlab", description="Ceph Storage Lab")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130

