"""`python -m cephlab.cli ...` runs the `cephlab` command."""
import sys

from cephlab.cli import main

sys.exit(main())
