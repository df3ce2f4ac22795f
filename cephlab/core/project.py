"""Where the project's own files are: the checkout (or unpacked release) cephlab runs from."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]     # cephlab/core/project.py -> the project folder
VAGRANT_DIR = ROOT / "vagrant"
