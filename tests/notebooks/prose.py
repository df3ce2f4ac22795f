"""Reading an executed solution notebook for the prose tests (test_prose_numbers.py,
test_prose_comparatives.py): the numbers its outputs print, which of them look measured, and the
outputs above a Markdown cell as text and tables, for a claim's predicate to read.
"""
import re
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]-*.ipynb"))

NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:_\d{3})*(?:\.\d+)?)(?!\d|\.\d|,\d{3})")
TAG = re.compile(r"<[^>]+>")


def text(cell_or_value):
    src = cell_or_value.get("source", "") if isinstance(cell_or_value, dict) else cell_or_value
    return "".join(src) if isinstance(src, list) else src


def normalise(raw):
    """'2,094' -> '2094', '10_000' -> '10000', '618.0' -> '618', '0.50' -> '0.5'."""
    s = raw.replace(",", "").replace("_", "")
    whole, _, frac = s.partition(".")
    whole, frac = whole.lstrip("0") or "0", frac.rstrip("0")
    return f"{whole}.{frac}" if frac else whole


def numbers(body):
    return {normalise(m.group(1)) for m in NUMBER.finditer(body)}


def looks_measured(n):
    if "." in n:
        return len(n.replace(".", "").strip("0")) >= 2
    value = int(n)
    if len(n) < 3 or 1990 <= value <= 2030 or (value & (value - 1)) == 0:
        return False
    return len(n.rstrip("0")) >= 2


def output_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append(text(out["text"]))
        for kind, value in out.get("data", {}).items():
            if kind.startswith("text/"):
                parts.append(TAG.sub(" ", text(value)).replace("&nbsp;", " "))
    return "\n".join(parts)


def with_rounded(found):
    """The numbers and, for decimals of 100 or more, their values rounded to integers."""
    return found | {str(round(float(n))) for n in found if "." in n and float(n) >= 100}


def produced(nb):
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    return with_rounded(set().union(*(numbers(output_text(c)) for c in code)))


def not_the_runs():
    """The numbers of the model constants and seed tables (models/**/*.py, data/*.csv)."""
    found = set()
    for path in [*(ROOT / "data").glob("*.csv"), *(ROOT / "models").rglob("*.py")]:
        found |= numbers(path.read_text(encoding="utf-8"))
    return with_rounded(found)


def measured(nb, constants=frozenset()):
    """The numbers the run printed that look measured: in an output, not written in the
    notebook's code cells, not among `constants`."""
    return {n for n in produced(nb) if looks_measured(n)} - code_numbers(nb) - set(constants)


def code_numbers(nb):
    """The numbers written in a notebook's code cells (constants, seeds, parameters)."""
    return set().union(*(numbers(text(c)) for c in nb["cells"] if c["cell_type"] == "code"))


def prints_measured(cell, measured_numbers):
    """Whether a code cell's outputs hold one of `measured_numbers`."""
    return cell["cell_type"] == "code" and bool(with_rounded(numbers(output_text(cell))) & measured_numbers)


def printed_decimals(cell):
    """The numbers a code cell's outputs print with a decimal point ('10.0', '4.000'), normalised:
    a computed float, whatever its digits."""
    return {normalise(m.group(1)) for m in NUMBER.finditer(output_text(cell)) if "." in m.group(1)}


# ---- the outputs above a Markdown cell, for a claim's predicate -------------------------------

class _TableParser(HTMLParser):
    """The <table>s of an HTML output as grids of cell texts (rowspan and colspan expanded);
    each grid is (header rows, body rows), every row a list of (is <th>, text)."""

    def __init__(self):
        super().__init__()
        self.tables, self._section, self._row, self._cell = [], None, None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append(([], []))
        elif tag in ("thead", "tbody") and self.tables:
            self._section = self.tables[-1][0 if tag == "thead" else 1]
        elif tag == "tr" and self._section is not None:
            self._row = []
            self._section.append(self._row)
        elif tag in ("th", "td") and self._row is not None:
            self._cell = [tag == "th", "", int(attrs.get("rowspan") or 1), int(attrs.get("colspan") or 1)]

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr":
            self._row = None
        elif tag in ("thead", "tbody"):
            self._section = None


def _grid(rows):
    """Rows of [is_th, text, rowspan, colspan] -> rows of (is_th, text), spans filled in."""
    pending, grid = {}, []      # pending: {column: (cells left, (is_th, text))} from rowspans
    for row in rows:
        out, cells, col = [], list(row), 0
        while cells or col in pending:
            if col in pending:
                left, value = pending.pop(col)
                if left > 1:
                    pending[col] = (left - 1, value)
                out.append(value)
                col += 1
                continue
            is_th, body, rowspan, colspan = cells.pop(0)
            for _ in range(colspan):
                value = (is_th, " ".join(body.split()))
                if rowspan > 1:
                    pending[col] = (rowspan - 1, value)
                out.append(value)
                col += 1
        grid.append(out)
    return grid


def _number(cell):
    try:
        return float(cell.replace(",", "").replace("%", "").strip())
    except ValueError:
        return None


class Table:
    """A DataFrame as its HTML output shows it: `columns` (a data column's label joins its header
    rows), `index` (a row's label: its <th> texts, one level a string, several a tuple), and
    get(row, column), the cell as a float."""

    def __init__(self, header, body):
        header, body = _grid(header), _grid(body)
        levels = max((sum(th for th, _ in row) for row in body), default=0)
        width = max((len(r) for r in header + body), default=0)
        self.columns = [" ".join(row[c][1] for row in header if c < len(row) and row[c][1])
                        for c in range(levels, width)]
        self.index, self.rows = [], []
        for row in body:
            labels = tuple(t for th, t in row[:levels])
            self.index.append(labels[0] if len(labels) == 1 else labels)
            self.rows.append([t for _, t in row[levels:]])

    def cell(self, row, column):
        if row not in self.index or column not in self.columns:
            raise LookupError(f"no cell ({row!r}, {column!r}) in the table of {self.columns} x {self.index}")
        return self.rows[self.index.index(row)][self.columns.index(column)]

    def get(self, row, column):
        value = _number(self.cell(row, column))
        if value is None:
            raise LookupError(f"cell ({row!r}, {column!r}) is {self.cell(row, column)!r}, not a number")
        return value

    def has(self, part):
        return any(part in r for r in self.index)

    def labels(self, part):
        """The row labels that contain `part` (a string label, or one level of a tuple)."""
        found = [r for r in self.index if part in r]
        if not found:
            raise LookupError(f"no row label of {self.index} contains {part!r}")
        return found

    def column(self, column):
        """{row label: value} of a column's numeric cells."""
        return {r: v for r in self.index if (v := _number(self.cell(r, column))) is not None}


def tables(cell):
    """The HTML tables a code cell displayed, in order."""
    found = []
    for out in cell.get("outputs", []):
        html = out.get("data", {}).get("text/html")
        if html:
            parser = _TableParser()
            parser.feed(text(html))
            found += [Table(head, body) for head, body in parser.tables]
    return found


class Outputs:
    """What the code cells around a Markdown cell printed, for a claim's predicate: `above` and
    `below` are code cells in notebook order, and every lookup reads the nearest cell first (above
    before below). A lookup that finds nothing raises LookupError, so a predicate whose figures are
    gone fails instead of passing."""

    def __init__(self, above, below=()):
        self.cells = [*reversed(list(above)), *below]
        self.text = "\n".join(output_text(c) for c in self.cells)

    def number(self, pattern):
        """Group 1 of the nearest cell's last match of `pattern`, as a float ('1,746' -> 1746)."""
        for cell in self.cells:
            found = list(re.finditer(pattern, output_text(cell)))
            if found:
                return float(found[-1].group(1).replace(",", ""))
        raise LookupError(f"the outputs print nothing that matches {pattern!r}")

    def table(self, *columns, having=()):
        """The nearest table that has all of `columns` and, for each of `having`, a row label that
        contains it (Table.labels)."""
        for cell in self.cells:
            for t in reversed(tables(cell)):
                if all(c in t.columns for c in columns) and all(t.has(part) for part in having):
                    return t
        raise LookupError(f"no table in the outputs has the columns {columns} and rows {having}")


# ---- synthetic notebooks for the tests' negative controls ----------------------------------------

def nb(*cells):
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def code(source, *outputs):
    return {"cell_type": "code", "source": source, "outputs": list(outputs), "metadata": {}}


def md(source):
    return {"cell_type": "markdown", "source": source, "metadata": {}}


def stream(body):
    return {"output_type": "stream", "name": "stdout", "text": body}
