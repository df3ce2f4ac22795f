"""Stage-by-stage progress for long cluster operations, on a terminal or in a notebook."""
from __future__ import annotations

import sys
import time


def _in_notebook():
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        return False
    return shell is not None and shell.__class__.__name__ == "ZMQInteractiveShell"


class Progress:
    """Prints "[3/6] starting OSDs ..." per stage; a tqdm bar over the stages in notebooks.

    Progress(total, enabled=False) prints nothing, so callers never need an `if`.
    """

    def __init__(self, total, enabled=True, stream=None):
        self.total = total
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.step = 0
        self.t0 = time.monotonic()
        self.bar = None
        if enabled and _in_notebook():
            try:
                from tqdm.auto import tqdm
                self.bar = tqdm(total=total, bar_format="{desc} {bar} {n}/{total} [{elapsed}]")
            except ImportError:
                self.bar = None

    def stage(self, text):
        self.step += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_description_str(text)
            self.bar.update(1)
        else:
            print(f"[{self.step}/{self.total}] {text} ...", file=self.stream, flush=True)

    def note(self, text):
        if self.enabled:
            if self.bar is not None:
                self.bar.write(text)
            else:
                print(text, file=self.stream, flush=True)

    def done(self, text):
        elapsed = time.monotonic() - self.t0
        if self.bar is not None:
            self.bar.n = self.total
            self.bar.set_description_str(text)
            self.bar.close()
            self.bar = None
        elif self.enabled:
            print(f"{text} ({elapsed:.1f} s)", file=self.stream, flush=True)
        return elapsed
