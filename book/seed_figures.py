"""Seed figures the models reproduce: the table of the instructor guide's "Seed figures and the models".

    python book/seed_figures.py           # print the table (Markdown)
    python book/seed_figures.py --write   # put it into book/instructor-guide.md, between its markers

One row per figure a seed states (the five source documents of book/build_book.py's SEEDS) that a
model in models/ computes. A row keeps the seed's own words (a short quote), the seed's value, the
model call as Python text, and whether the model was fitted to that figure. Nothing here types in
a model's result: every model value is the call's text evaluated at run time (`evaluate`), in a
namespace holding only the models modules, so the table cannot drift from the models; the test
(tests/book/test_seed_figures.py) fails until the guide is regenerated.

- Seed value: the seed's number, or arithmetic on the seed's own numbers where it states a range
  (its middle) or a formula (the formula at stated inputs, the same inputs as the model call).
- Quote: the seed's words. Parts joined by " … " appear in the seed in that order; the check
  ignores whitespace and the slides' Markdown and LaTeX marks (`normalise`).
- Fitted: "yes" when the model's input or constant was set from this very figure (or the model is
  the seed's own formula or arithmetic), so the row proves nothing about the model; "partly" when
  some of what sets the value was; "no" otherwise. The words after it say which input did what.
"""
import argparse
import ast
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from models import capacity, filestore, iops, metadata, redundancy, threads, throttle, waf

BOOK = Path(__file__).resolve().parent
GUIDE = BOOK / "instructor-guide.md"
START = "<!-- seed-figures:start -->"
END = "<!-- seed-figures:end -->"
WRITE_COMMAND = ".venv/bin/python book/seed_figures.py --write"
# What a model call may name: the models modules, nothing else (no builtins).
MODULES = {m.__name__.rsplit(".", 1)[-1]: m
           for m in (capacity, filestore, iops, metadata, redundancy, threads, throttle, waf)}
PART = " … "       # joins the parts of a quote taken from different lines of a slide

S000 = "000_ff3932318711fad8.txt"
S003 = "003_6caa91e4707f31ce.txt"
S004 = "004_3d50276d8cea0e54.txt"


@dataclass(frozen=True)
class Figure:
    """One seed figure and the model call that reproduces it."""

    seed: str           # the seed's file name
    quote: str          # the seed's words; parts joined by PART
    seed_value: str     # the seed's number, or arithmetic on its numbers (evaluated, numbers only)
    call: str           # the model call, a Python expression over MODULES
    fitted: str         # "yes: ...", "partly: ..." or "no: ..."
    about: str = ""     # what the figure is, in our words (before the quote)
    seed_note: str = ""  # how the seed value was read (after it)


FIGURES = [
    # -- seed 000: NAVER, Persistent storage for Docker containers with Ceph (OpenStack Days 2017) --
    Figure(S000, "Replicas 3 = 5,400 / 3 = 1,800 IOPS", "1800",
           "iops.expected_write_iops(600, disks=9, replicas=3)",
           "yes: the seed's own planning arithmetic (600 IOPS × 9 disks / 3 replicas) with its own "
           "inputs; it checks the sum, not Ceph", about="case 1, planned"),
    Figure(S000, "2094 IOPS/s … Case #1. Only Use SAS DISK", "2094",
           "iops.expected_write_iops(600, disks=9, replicas=3)",
           "no: nothing was tuned to 2,094; 600 IOPS per disk is the seed's planning figure, 4.5x what "
           "seek and rotation allow (the SAS row below)", about="case 1, measured, against the seed's rule"),
    Figure(S000, "2094 IOPS/s … Case #1. Only Use SAS DISK", "2094",
           "iops.expected_write_iops(600, disks=9, replicas=3, journal_writes=2)",
           "no: the lab's journal-aware rule (case 1's FileStore journal shares the SAS disks, 2 device "
           "writes per replica write) with the seed's 600 IOPS per disk",
           about="case 1, measured, against the journal-aware rule"),
    Figure(S000, "2094 IOPS/s … Case #1. Only Use SAS DISK", "2094",
           "iops.expected_write_iops(iops.hdd_iops(10000, 4.5), disks=9, replicas=3, journal_writes=2)",
           "no: the journal-aware rule fed with seek + half a rotation (133 IOPS, the course's 4.5 ms seek), a "
           "floor for queue-depth-1 random writes; the seed's 72 writes in flight were journal appends and a "
           "page cache written back in sorted batches, which the rule does not price",
           about="case 1, measured, against the journal-aware rule at queue depth 1"),
    Figure(S000, "2094 34.36 … IOPS Latency … Case #1. Only Use SAS DISK", "34.36",
           "iops.latency_ms(2094, 72)",
           "yes: the 72 I/Os in flight are read from these same two numbers (2,094 IOPS × 34.36 ms); the "
           "seed does not give fio's queue depth", about="case 1, latency (ms), Little's law"),
    Figure(S000, "Replicas 3 = 45,000 / 3 = 15,000 IOPS", "15000",
           "iops.expected_write_iops(15000, 3, 3, 1)",
           "yes: the seed's own planning arithmetic (one 15,000-IOPS journal SSD per node × 3 / 3 "
           "replicas)", about="case 2 (SSD journal), planned"),
    Figure(S000, "2094 à 2273 … Case #2. Use SSD for Journal", "2273",
           "iops.expected_write_iops(15000, 3, 3, 1)",
           "no: the seed's plan counts only the journal SSDs", about="case 2, measured, against the plan"),
    Figure(S000, "2094 à 2273 … Case #2. Use SSD for Journal", "2273",
           "iops.expected_write_iops(600, disks=9, replicas=3, journal_writes=1)",
           "no: the lab's reading (every write still reaches the SAS disks, once each with the journal "
           "on the SSD) with the seed's 600 IOPS per disk", about="case 2, measured, against the data disks"),
    Figure(S000, "2094 à 2273 … Case #2. Use SSD for Journal", "2273",
           'filestore.simulate(throttle="wbthrottle").mean_iops(10, 120)',
           "no: the level is `data_iops` = 1,800, the seed's planned figure for its SAS disks, not a fit "
           "to 2,273", about="case 2, measured, against the FileStore model (default WBThrottle)"),
    Figure(S000, "2,094 à 14,264 (x7) … Case #4. Tuning WBThrottle", "14264",
           'filestore.simulate(throttle="none").mean_iops(5, 30)',
           "no: the plateau is `journal_iops` = 15,000, the seed's planned SSD rate, not a fit to 14,264 "
           "(the model returns its input here)", about="case 4 (WBThrottle off), before the collapse"),
    Figure(S000, "After 35 secs, Performance (IPOS) drops below 100 ~ 200 IOPS", "35",
           'filestore.simulate(throttle="none").collapse_time',
           "yes: `page_cache_mb` = 9,000 MiB was chosen to put the collapse at 35 s",
           about="case 4, seconds until the collapse"),
    Figure(S000, "After 35 secs, Performance (IPOS) drops below 100 ~ 200 IOPS", "(100 + 200) / 2",
           'filestore.simulate(throttle="none").mean_iops(40, 120)',
           "yes: `stall_iops` = 150 is taken from this figure", about="case 4, IOPS after the collapse",
           seed_note="middle of 100~200"),
    Figure(S000, "Dynamic Throttle SSD … 15,000 IOPS", "15000",
           'filestore.simulate(throttle="backoff").mean_iops(0, 20)',
           "yes: the burst runs at `journal_iops` = 15,000, the seed's SSD figure",
           about="dynamic throttle, IOPS of the burst"),
    Figure(S000, "Dynamic Throttle SSD … Burst (~ 60 secs) … Throttle From 80%", "60",
           '(filestore.simulate(throttle="backoff", dt=0.1).client_iops >= 15000).sum() * 0.1',
           "no: not reproduced. The model's throttle watches the dirty page cache (a course choice) "
           "and starts at 80 % (`backoff_low`, the seed's \"From 80%\") of the limit fitted to the 35 s "
           "collapse, so its delays begin at 0.8 × 34.9 s = 27.9 s (`filestore.burst_seconds()`); the "
           "seed's throttle is the op queue's (r = current_op / max_ops), whose max_ops for that run it "
           "does not give, and nothing was tuned to 60 s", about="dynamic throttle, seconds of the burst"),
    Figure(S000, "delay = high_delay_per_count + ((r - high_threshhold) * s1)",
           "1.0 / 15000 + (0.95 - 0.9) * (4.0 / 15000 - 1.0 / 15000) / (1 - 0.9)",
           "throttle.backoff_delay(0.95, 0.8, 0.9, 15000.0, 1.0, 4.0)",
           "no: the model is Ceph's `BackoffThrottle` (`src/common/Throttle.cc`) and the slide writes the "
           "same formula; inputs ours (the seed gives no multiples)", about="dynamic throttle, delay (s) per op",
           seed_note="its formula at r = 0.95, low 0.8, high 0.9, 15,000 ops/s, multiples 1 and 4"),
    Figure(S000, "200 % overhead", "2.0", "redundancy.replicated(3).overhead",
           "no: size − 1 for three copies (the slide's three COPY boxes)", about="replicated pool",
           seed_note="200 %"),
    Figure(S000, "50 % overhead", "0.5", "redundancy.erasure(4, 2).overhead",
           "partly: the seed names no profile; 4+2 is the course's pick, and any k = 2m gives 50 %",
           about="erasure-coded pool", seed_note="50 %"),
    Figure(S000, "7.2k rpm SATA : ~ 75 ~ 100 IOPS", "(75 + 100) / 2", "iops.hdd_iops(7200, 8.5)",
           "no: seek + half a rotation at queue depth 1; the 8.5 ms seek is the course's typical figure, "
           "not the seed's", about="one 7.2k SATA disk", seed_note="middle of 75~100"),
    Figure(S000, "SAS : 10,000 rpm / 600 IOPS", "600", "iops.hdd_iops(10000, 4.5)",
           "no: seek + half a rotation at queue depth 1 (4.5 ms seek, the course's figure); the seed's "
           "600 is a planning number", about="one 10k SAS disk"),
    # -- seed 003: Lee et al., Understanding Write Behaviors of Storage Backends in Ceph (MSST 2017) --
    Figure(S003, "over 40 at 4KB write", "40", "waf.filestore_waf(4096)",
           "yes: the metadata bytes of `FILESTORE_FRESH` were scaled so that 4 KiB gives 42, just over 40",
           about="FileStore WAF, microbenchmark", seed_note="over 40"),
    Figure(S003, "WAF converges to 6 (3x by replication, 2x by Ceph journaling)", "6",
           "waf.filestore_waf(4 * waf.MIB)",
           "no: data + Ceph journal per replica (the seed's 3x by 2x); the fitted metadata bytes barely count at 4 MiB",
           about="FileStore WAF, large writes"),
    Figure(S003, "memtable flush … WAF converges to 3 (by replication)", "3", "waf.kstore_waf(4 * waf.MIB)",
           "no: whole 64 KiB stripes; `kv_bytes` is BlueStore's calibration on the lab's own cluster",
           about="KStore WAF, large writes"),
    Figure(S003, "Zero-filled data for the hole … WAF converges to 3 (by replication)", "3",
           "waf.bluestore_waf(4 * waf.MIB, **waf.BLUESTORE_JEWEL_HDD)",
           "no: its metadata bytes are calibrated on the lab's own Pacific cluster "
           "(`data/bluestore_waf_reference.csv`), not on the seed", about="BlueStore WAF (Jewel, HDD), large writes"),
    Figure(S003, "Writes are amplified by more than 13x in Ceph … No matter which storage backend is used", "13",
           "waf.bluestore_longterm_waf()",
           "no: the seed's long run (4 KiB random writes, 57.6 GiB into a 64 GiB image, 64 KiB units) taken "
           "as 6.9 % first writes into holes (52.0 each) and 93.1 % overwrites through the WAL (10.0 each); "
           "the metadata bytes are the lab's Pacific calibration, nothing was fitted to 13",
           about="BlueStore WAF (Jewel, HDD), long-term 4 KiB random writes", seed_note="more than 13"),
    Figure(S003, "Writes amplified by over 13x", "3 + 0.702 + 5.994 + 0.419 + 3.635",
           "waf.filestore_waf(4096, **waf.FILESTORE_LONGTERM)",
           "partly: three of its five parts (4.756 of 13.75), the rows marked yes below, are bytes fitted "
           "to the seed", about="FileStore WAF, long-term 4 KiB random writes",
           seed_note="sum of the five parts below"),
    Figure(S003, "Data : 3", "3", 'waf.filestore_waf(4096, **waf.FILESTORE_LONGTERM).parts["data"]',
           "no: 3 replicas × one 4 KiB page", about="long-term, data"),
    Figure(S003, "Ceph metadata : 0.702", "0.702",
           'waf.filestore_waf(4096, **waf.FILESTORE_LONGTERM).parts["ceph_metadata"]',
           "yes: `ceph_metadata_bytes` = 958 B is 0.702 / 3 × 4,096 B", about="long-term, Ceph metadata"),
    Figure(S003, "Ceph journal : 5.994", "5.994",
           'waf.filestore_waf(4096, **waf.FILESTORE_LONGTERM).parts["ceph_journal"]',
           "no: 3 replicas × two 4 KiB journal blocks (the write and its entry header)",
           about="long-term, Ceph journal"),
    Figure(S003, "File system metadata : 0.419", "0.419",
           'waf.filestore_waf(4096, **waf.FILESTORE_LONGTERM).parts["fs_metadata"]',
           "yes: `fs_metadata_bytes` = 572 B is 0.419 / 3 × 4,096 B", about="long-term, XFS metadata"),
    Figure(S003, "File system journal : 3.635", "3.635",
           'waf.filestore_waf(4096, **waf.FILESTORE_LONGTERM).parts["fs_journal"]',
           "yes: `fs_journal_bytes` = 4,963 B is 3.635 / 3 × 4,096 B", about="long-term, XFS journal"),
    # -- seed 004: Xu Xuehan, Ceph Goes Online at Qihoo 360 (Cephalocon APAC 2018) --------------------
    Figure(S004, "C_total = ( N_VM_num * C_capacity_per_vm ) / ( T_thin_provision_ratio * 0.7 )",
           "(1000 * 100) / (1.0 * 0.7)", "capacity.required_capacity(1000, 100, 1.0)",
           "yes: the model is the seed's formula, 0.7 included", about="capacity to buy",
           seed_note="its formula at 1,000 VMs × 100 GB, thin ratio 1"),
    Figure(S004, "Max_threads_per_osd = 2 * (clients + 1 + 6 * pg_num_per_osd)", "2 * (100 + 1 + 6 * 200)",
           "threads.simple_messenger_threads(100, 200)",
           "yes: the model is the seed's formula", about="threads per OSD, SimpleMessenger",
           seed_note="its formula at 100 clients, 200 PGs per OSD"),
    Figure(S004, "10^4 IOPS per CPU (CPU: Xeon E5-2630 v3)", "10**4", "iops.cpu_ceiling_iops(1)",
           "yes: `iops_per_core` = 10^4 is this figure, read per core", about="all-SSD CPU ceiling, one core"),
    Figure(S004, "10^4 IOPS per CPU (CPU: Xeon E5-2630 v3)", "10**4", "iops.cpu_ceiling_iops(8)",
           "yes: the same constant; if \"per CPU\" means one 8-core E5-2630 v3, the course's per-core "
           "reading gives that CPU 8x the seed's figure", about="all-SSD CPU ceiling, one 8-core socket"),
    Figure(S004, "File Creation(job separated directories) 4311.339", "4311.339",
           'metadata.closed_loop_ops(70, metadata.seed_client_latency("File Creation"), '
           'metadata.seed_service_time("File Creation"))',
           "yes: both inputs are computed from this figure (S = 1 / 4,311.339 s, R0 = 70 / 4,311.339 s)",
           about="mdtest, 70 clients, one MDS, ops/s"),
]


# -- evaluation -----------------------------------------------------------------------------------------
def evaluate(call):
    """The value of a model call's text, evaluated with only the models modules in scope (no builtins)."""
    return float(eval(compile(call, "<model call>", "eval"), {"__builtins__": {}}, dict(MODULES)))


_ARITHMETIC = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Add, ast.Sub, ast.Mult, ast.Div,
               ast.Pow, ast.USub)


def seed_number(text):
    """A seed value: a number or arithmetic on numbers (a range's middle, a formula at given inputs)."""
    tree = ast.parse(text, mode="eval")
    odd = [type(node).__name__ for node in ast.walk(tree) if not isinstance(node, _ARITHMETIC)]
    if odd or not all(isinstance(n.value, (int, float)) for n in ast.walk(tree) if isinstance(n, ast.Constant)):
        raise ValueError(f"a seed value is numbers and + - * / ** only, got {text!r} ({', '.join(odd)})")
    return float(eval(compile(tree, "<seed value>", "eval"), {"__builtins__": {}}, {}))


@dataclass(frozen=True)
class Row:
    figure: Figure
    seed_value: float
    model_value: float

    @property
    def ratio(self):
        return self.model_value / self.seed_value


def rows():
    """Every figure with its seed value and the model's value, computed now."""
    return [Row(f, seed_number(f.seed_value), evaluate(f.call)) for f in FIGURES]


# -- the table --------------------------------------------------------------------------------------------
COLUMNS = ("seed", "what the seed says", "seed value", "model call", "model value", "model / seed", "fitted?")


def number(x):
    """Whole numbers with separators from 1,000 up, otherwise 4 significant figures."""
    if not math.isfinite(x):
        raise ValueError(f"not a finite number: {x!r}")
    return f"{round(x):,}" if abs(x) >= 1000 else f"{x:.4g}"


def _md(text):
    """Text for a Markdown table cell: the seed's * and _ and any | kept literal."""
    return re.sub(r"([*_|\\])", r"\\\1", text)


def cells(row):
    f = row.figure
    quote = PART.join(f'"{_md(part)}"' for part in f.quote.split(PART))
    seed = number(row.seed_value) + (f" ({f.seed_note})" if f.seed_note else "")
    return [f"`{f.seed}`", f"{f.about}: {quote}" if f.about else quote, seed, f"`{f.call}`",
            number(row.model_value), f"{row.ratio:.2f}", f.fitted.replace("|", "/")]


def markdown_table(table_rows=None):
    """The guide's table, one line per figure."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in (rows() if table_rows is None else table_rows)]
    return "\n".join(lines) + "\n"


def guide_table(text):
    """The table between the guide's markers (what --write put there)."""
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise SystemExit(f"{GUIDE.name} needs one {START} line and, after it, one {END} line "
                         "(the section \"Seed figures and the models\")")
    return text.split(START, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def write(guide=GUIDE):
    """Replace the table between the markers of the guide; returns True if the file changed."""
    text = guide.read_text(encoding="utf-8")
    old = guide_table(text)
    new = markdown_table()
    if old == new:
        return False
    head, rest = text.split(START, 1)
    guide.write_text(f"{head}{START}\n{new}{END}{rest.split(END, 1)[1]}", encoding="utf-8")
    return True


# -- checking a quote against its seed ----------------------------------------------------------------------
def normalise(text):
    """Text with LaTeX's \\text{} wrappers and the marks \\ $ { } * dropped and whitespace collapsed
    (the seeds are slide text with Markdown and LaTeX marks)."""
    text = re.sub(r"\\text\{([^}]*)\}", r"\1", text)
    text = re.sub(r"[\\${}*]", "", text)
    return " ".join(text.split())


def quote_in(quote, seed_text):
    """True if every part of the quote appears in the seed text, in order (after normalise)."""
    body, at = normalise(seed_text), 0
    for part in quote.split(PART):
        found = body.find(normalise(part), at)
        if found < 0:
            return False
        at = found + len(normalise(part))
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true",
                    help=f"replace the table in {GUIDE.relative_to(BOOK.parent)} between its markers")
    args = ap.parse_args(argv)
    if args.write:
        changed = write()
        print(f"{GUIDE.relative_to(BOOK.parent)}: {'table replaced' if changed else 'already up to date'}")
    else:
        sys.stdout.write(markdown_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
