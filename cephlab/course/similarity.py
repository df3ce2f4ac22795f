"""Flag lab notebooks of one class whose answers look copied, the way MOSS and JPlag compare programs.

    found = similarity.pairs({"alice": nb_a, "bob": nb_b, ...}, base=student_nb)   # one lab
    similarity.flags(found)["alice"]    # ["answers 93 % similar to bob's (41 shared fingerprints): ..."]
    similarity.write_csv([("06-capacity", p) for p in found], "out/similarity.csv")

What is compared: only what each learner wrote. Code answers are the code cells tagged
`otter_answer_cell`; free-text answers are the text after "*Your answer:*" in a markdown cell and
every markdown cell that is not, word for word, one of the released notebook's. Notebooks are
parsed JSON from learners, so nothing in them is trusted: malformed cells are skipped, and each
cell's text and each notebook's tokens are capped, so one huge or broken notebook cannot stall a class.

How: code goes through Python's tokenizer with comments and layout dropped and every name, number
and string replaced by ID, NUM and STR, so renaming variables, changing numbers, reflowing or
commenting code does not hide a copy; text becomes its lowercase words with numbers as NUM. Runs
of 5 code tokens or 4 words (k-grams) are hashed (blake2b, stable across runs, unlike hash()) and
winnowed (Schleimer, Wilkerson and Aiken, SIGMOD 2003: the smallest hash of every 4 in a row), which
keeps a set of fingerprints that any long enough shared passage is sure to hit. Fingerprints that
occur anywhere in the released student notebook (the base: given code, placeholders, question
text) are dropped, as are those that more than half of the class, and more than 5 learners, share
(the code everyone writes alike); MOSS does both (its base file and its -m). A pair's score is the Jaccard index of
the two fingerprint sets: shared / in either.

What a flag means: two notebooks share most of what is left after that, which is a reason for a
person to open both, not proof of copying. Answers in this course are short and built from the same
few model calls, so two learners can write the same lines independently; the threshold (0.8 of the
fingerprints shared) and the floor of min_shared shared fingerprints keep a handful of coinciding
lines from raising a flag. Identical answers written in a study group, or a reused worked example,
flag too; a copy rewritten in a different style does not.
"""
from __future__ import annotations

import hashlib
import io
import itertools
import keyword
import math
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cephlab.course import gradebook

CODE_K, TEXT_K, WINDOW = 5, 4, 4
MAX_CELL_CHARS = 200_000            # a cell's text beyond this is not read
MAX_NOTEBOOK_CHARS = 1_000_000      # nor cells past this much in one notebook (20x a lab's; blank lines cost too)
MAX_TOKENS = 50_000                 # tokens kept of one notebook (a lab's answers are a few hundred)
ANSWER_TAG = "otter_answer_cell"
ANSWER_MARKER = re.compile(r"\*Your answer:\*", re.IGNORECASE)
COLUMNS = ("lab", "learner_a", "learner_b", "similarity", "shared_fingerprints")

_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER}
# Python 3.12 splits an f-string into parts; it stays one STR, as a 3.11 STRING token is.
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
_FSTRING_END = getattr(tokenize, "FSTRING_END", -1)
_CODE_WORD = re.compile(r"""#[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\d[\w.]*|[^\W\d]\w*|\.\.\.|[^\w\s]""")
_BLANK_OR_COMMENT = re.compile(r"^[ \t\f\r]*(?:#[^\n]*)?\n", re.MULTILINE)
_TEXT_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")

Unit = tuple[str, list[str]]    # ("code" | "text", normalised tokens of one answer)


@dataclass(frozen=True)
class Pair:
    a: str          # a < b
    b: str
    score: float    # Jaccard index of the two fingerprint sets, 0..1
    shared: int     # fingerprints both hold


# -- normalisation --------------------------------------------------------------------------------
def _name(word: str) -> str:
    return word if keyword.iskeyword(word) else "ID"


def _python_tokens(source: str, limit: int) -> list[str]:
    out: list[str] = []
    depth = 0                       # inside an f-string (3.12+): its parts are already STR
    source = _BLANK_OR_COMMENT.sub("", source)   # dropped anyway; the tokenizer is slow on a flood of them
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == _FSTRING_START:
            if not depth:
                out.append("STR")
            depth += 1
        elif tok.type == _FSTRING_END:
            depth -= 1
        elif depth or tok.type in _SKIPPED or not tok.string.strip():
            continue
        elif tok.type == tokenize.NAME:
            out.append(_name(tok.string))
        else:
            out.append({tokenize.NUMBER: "NUM", tokenize.STRING: "STR"}.get(tok.type, tok.string))
        if len(out) >= limit:
            break
    return out


def _regex_tokens(source: str, limit: int) -> list[str]:
    """The same classes without the tokenizer, for code it rejects (a half-typed cell, a magic)."""
    out: list[str] = []
    for m in _CODE_WORD.finditer(source):
        word = m.group(0)
        if word[0] == "#":
            continue
        out.append("STR" if word[0] in "\"'" and len(word) > 1 else "NUM" if word[0].isdigit()
                   else _name(word) if word[0].isalpha() or word[0] == "_" else word)
        if len(out) >= limit:
            break
    return out


def code_tokens(source: str, limit: int = MAX_TOKENS) -> list[str]:
    """Python code as tokens with names, numbers and strings as ID, NUM and STR, no comments or layout."""
    try:
        return _python_tokens(source, limit)
    except Exception:   # tokenize raises TokenError, SyntaxError, ValueError... by version and input
        return _regex_tokens(source, limit)


def text_words(text: str, limit: int = MAX_TOKENS) -> list[str]:
    """Prose as its lowercase words, numbers as NUM, punctuation and layout dropped."""
    words = itertools.islice(_TEXT_WORD.finditer(text.lower()), limit)
    return ["NUM" if m.group(0)[0].isdigit() else m.group(0) for m in words]


# -- reading untrusted notebooks ------------------------------------------------------------------
def _cells(nb: Any) -> Iterator[dict]:
    cells = nb.get("cells") if isinstance(nb, dict) else None
    return (c for c in (cells if isinstance(cells, list) else []) if isinstance(c, dict))


def _source(cell: dict) -> str | None:
    """The cell's text, capped; None when it is neither a string nor a list of them."""
    src = cell.get("source")
    if isinstance(src, list):
        parts, size = [], 0
        for part in (s for s in src if isinstance(s, str)):
            parts.append(part)
            size += len(part)
            if size >= MAX_CELL_CHARS:
                break
        src = "".join(parts)
    return src[:MAX_CELL_CHARS] if isinstance(src, str) else None


def _is_answer_code(cell: dict) -> bool:
    meta = cell.get("metadata")
    tags = meta.get("tags") if isinstance(meta, dict) else None
    return isinstance(tags, list) and ANSWER_TAG in tags


def _units(nb: Any, read: Callable[[dict], bool], keep: Callable[[dict, str, int], Unit | None]) -> Iterator[Unit]:
    """(kind, tokens) that keep(cell, text, token budget left) makes of each cell read(cell)
    accepts, until the notebook's text or token budget is spent (only cells read count)."""
    chars, tokens = 0, 0
    for cell in _cells(nb):
        text = _source(cell) if read(cell) else None
        if text is None:
            continue
        chars += len(text)
        if chars > MAX_NOTEBOOK_CHARS or tokens >= MAX_TOKENS:
            return
        unit = keep(cell, text, MAX_TOKENS - tokens)
        if unit and unit[1]:
            tokens += len(unit[1])
            yield unit


def answer_units(nb: Any, base_texts: frozenset[str] = frozenset()) -> list[Unit]:
    """What the learner wrote: answer code cells, text after "*Your answer:*", and markdown
    cells whose words are not those of a base cell (base_texts: " ".join of each one's words)."""
    def read(cell: dict) -> bool:
        return cell.get("cell_type") == "markdown" or cell.get("cell_type") == "code" and _is_answer_code(cell)

    def keep(cell: dict, text: str, limit: int) -> Unit | None:
        if cell["cell_type"] == "code":
            return "code", code_tokens(text, limit)
        marker = ANSWER_MARKER.search(text)
        if marker:
            return "text", text_words(text[marker.end():], limit)
        words = text_words(text, limit)
        return None if " ".join(words) in base_texts else ("text", words)
    return list(_units(nb, read, keep))


def base_units(base: Any) -> list[Unit]:
    """Every code and markdown cell of the released notebook, whatever its tags."""
    def keep(cell: dict, text: str, limit: int) -> Unit:
        return ("code", code_tokens(text, limit)) if cell["cell_type"] == "code" else ("text", text_words(text, limit))
    return list(_units(base, lambda cell: cell.get("cell_type") in ("code", "markdown"), keep))


# -- fingerprints ---------------------------------------------------------------------------------
def _hashes(kind: str, tokens: list[str]) -> list[int]:
    """The stable 64-bit hash of each k-gram; the kind prefix keeps code and text apart."""
    k = CODE_K if kind == "code" else TEXT_K
    grams = (" ".join([kind, *tokens[i:i + k]]) for i in range(len(tokens) - k + 1))
    return [int.from_bytes(hashlib.blake2b(g.encode(), digest_size=8).digest(), "big") for g in grams]


def winnow(hashes: list[int], window: int = WINDOW) -> set[int]:
    """The smallest hash of every `window` consecutive ones (of a shorter run: its smallest)."""
    if len(hashes) <= window:
        return {min(hashes)} if hashes else set()
    return {min(hashes[i:i + window]) for i in range(len(hashes) - window + 1)}


def fingerprints(units: Iterable[Unit]) -> set[int]:
    """The winnowed fingerprints of a notebook's answers, each answer on its own (no k-gram spans two cells)."""
    return set().union(*(winnow(_hashes(kind, tokens)) for kind, tokens in units))


def _base(base: Any) -> tuple[set[int], frozenset[str]]:
    """Every k-gram hash of the base (not winnowed: a learner's window may pick any of them),
    and the words of its markdown cells."""
    units = base_units(base)
    texts = frozenset(" ".join(tokens) for kind, tokens in units if kind == "text")
    return set().union(*(_hashes(kind, tokens) for kind, tokens in units)), texts


COMMON_FLOOR = 5      # a fingerprint is the class's common code only when more than this many share it


def _common(prints: list[set[int]]) -> set[int]:
    """Fingerprints in more than half of the submissions and more than COMMON_FLOOR of them: in a
    small class, a ring of a few copies must not pass for everyone's common code."""
    counts = Counter(f for p in prints for f in p)
    return {f for f, n in counts.items() if n > max(COMMON_FLOOR, len(prints) / 2)}


# -- the report -----------------------------------------------------------------------------------
def _pair(a: str, b: str, fa: set[int], fb: set[int]) -> Pair:
    shared, either = len(fa & fb), len(fa | fb)
    return Pair(a, b, shared / either if either else 0.0, shared)


def pairs(notebooks: dict[str, dict], base: dict | None = None, threshold: float = 0.8,
          min_shared: int = 12) -> list[Pair]:
    """The pairs of one lab's submissions ({learner: parsed notebook}) sharing at least
    `threshold` of their fingerprints and at least `min_shared` of them, highest score first.
    base: the released student notebook, whose fingerprints never count (None: every markdown
    cell counts as the learner's, and nothing is ignored but the class's common code)."""
    ignored, base_texts = _base(base)
    prints = {who: fingerprints(answer_units(nb, base_texts)) - ignored for who, nb in notebooks.items()}
    common = _common(list(prints.values()))
    prints = {who: p - common for who, p in prints.items()}
    found = [_pair(a, b, prints[a], prints[b]) for a, b in itertools.combinations(sorted(prints), 2)]
    kept = [p for p in found if p.score >= threshold and p.shared >= min_shared]
    return sorted(kept, key=lambda p: (-p.score, -p.shared, p.a, p.b))


def _sentence(pair: Pair, other: str) -> str:
    percent = math.floor(pair.score * 100 + 1e-9)      # never rounds 0.996 up to "100 %"
    return (f"answers {percent} % similar to {other}'s ({pair.shared} shared fingerprints): compare the "
            "two notebooks; similarity is a reason to look, not proof of copying")


def flags(found: Iterable[Pair]) -> dict[str, list[str]]:
    """{learner: one sentence per pair they are in}, for the instructor's eyes."""
    out: dict[str, list[str]] = {}
    for pair in found:
        out.setdefault(pair.a, []).append(_sentence(pair, pair.b))
        out.setdefault(pair.b, []).append(_sentence(pair, pair.a))
    return out


def write_csv(rows: Iterable[tuple[str, Pair]], path: str | Path) -> Path:
    """A CSV of (lab, pair) rows; ids and lab names are spreadsheet text, never formulas."""
    text = gradebook.text_cell
    table = [[text(lab), text(p.a), text(p.b), f"{p.score:.2f}", str(p.shared)] for lab, p in rows]
    return gradebook.write_csv(Path(path), [list(COLUMNS), *table])
