"""Every module of cephlab/ has its line in cephlab/README.md, and the tree the project README
draws is the folders cephlab/ has, so a newcomer can see where things go."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "cephlab"


def modules() -> list[str]:
    return sorted(str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
                  if p.name not in ("__init__.py", "__main__.py") or p.parent.name == "cli"
                  and p.name == "__init__.py")


def test_every_module_has_a_line_in_the_cephlab_readme():
    text = (PKG / "README.md").read_text()
    missing = [m for m in modules() if f"`{m}`" not in text]
    assert missing == []


def test_the_readme_tree_matches_the_folders():
    text = (ROOT / "README.md").read_text()
    block = text.split("```text\ncephlab/", 1)[1].split("```", 1)[0]
    drawn = set(re.findall(r"[├└]── ([a-z_]+)/", block))
    folders = {p.name for p in PKG.iterdir() if (p / "__init__.py").is_file()}
    assert drawn == folders
