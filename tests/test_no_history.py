"""Code, tests and docs describe behaviour, not how it came about: no issue numbers and no commit
hashes in them. History belongs in CHANGELOG.md, in bench/results/ and in git itself; a reader of
the code should not need the tracker to know why a line is there.

Scanned: every text file under ovos_agentic_loop/, toolboxes/, tests/ and docs/, and README.md, for
a tracker reference (the word for it followed by a number, or a hash sign and two or more digits,
as the examples below spell out); the comments and docstrings of the
.py files under ovos_agentic_loop/ and toolboxes/ for a commit hash. The patterns are built from
parts so that this file does not match itself.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEXT_TREES = ("ovos_agentic_loop", "toolboxes", "tests", "docs")
CODE_TREES = ("ovos_agentic_loop", "toolboxes")
SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}

_ISSUE_WORD = "iss" + "ue"
#: The word, singular or plural, then a number with or without a hash sign (in a plural list the
#: first number is enough to flag the line), and a bare hash sign with two or more digits; "element
#: #0" in an error message is no reference, hence two digits.
ISSUE_REFERENCE = re.compile(
    r"\b" + _ISSUE_WORD + r"s?\s*#?\s*\d+" + "|" + r"(?<![\w&#])" + "#" + r"\d{2,}\b",
    re.IGNORECASE,
)
#: A word of 7-12 or exactly 40 hex digits: an abbreviated or full commit hash. It must hold both a
#: digit and a letter, so that numbers ("20261203") and words ("defaced") pass, and other hex data
#: (a 64-digit sha256, a 32-digit UUID) has the wrong length.
_HEX_WORD = re.compile(r"\b[0-9a-f]{7,40}\b", re.IGNORECASE)


def _is_commit_hash(word: str) -> bool:
    return (
        (7 <= len(word) <= 12 or len(word) == 40)
        and any(c.isdigit() for c in word)
        and any(c.isalpha() for c in word)
    )


def _files(trees: tuple[str, ...], suffix: str = "") -> Iterator[Path]:
    for tree in trees:
        for path in sorted((ROOT / tree).rglob("*" + suffix)):
            if path.is_file() and not SKIPPED_DIRS.intersection(path.relative_to(ROOT).parts):
                yield path


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:  # an image or other binary data: no prose to check
        return None


def issue_references(text: str) -> list[tuple[int, str]]:
    """(line, match) of every issue reference in ``text``."""
    return [
        (number, match.group())
        for number, line in enumerate(text.splitlines(), start=1)
        for match in ISSUE_REFERENCE.finditer(line)
    ]


def _comments_and_docstrings(source: str) -> Iterator[tuple[int, str]]:
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                yield node.body[0].lineno, docstring


#: A link to a bench result ("bench/results/ablation-<commit>.md"): its name says which code was
#: measured, which is what a reader of the link needs.
_RESULT_LINK = re.compile(r"\S*results/\S+")


def commit_hashes(source: str) -> list[tuple[int, str]]:
    """(line, word) of every commit hash in the comments and docstrings of Python ``source``, outside
    links to bench results."""
    return [
        (line, word)
        for line, text in _comments_and_docstrings(source)
        for word in _HEX_WORD.findall(_RESULT_LINK.sub("", text))
        if _is_commit_hash(word)
    ]


def test_no_issue_references() -> None:
    found = []
    for path in [*_files(TEXT_TREES), ROOT / "README.md"]:
        text = _text(path)
        if text is not None:
            found += [f"{path.relative_to(ROOT)}:{line}: {hit}" for line, hit in issue_references(text)]
    assert found == [], "describe the behaviour instead of naming the tracker:\n" + "\n".join(found)


def test_no_commit_hashes_in_comments_or_docstrings() -> None:
    found = []
    for path in _files(CODE_TREES, ".py"):
        source = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(ROOT)}:{line}: {word}" for line, word in commit_hashes(source)]
    assert found == [], "link a bench/results/ file or say what the code does:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "text",
    [
        "grounded answers (" + _ISSUE_WORD + " 21)",
        _ISSUE_WORD.title() + " 25: every request names its conversation",
        "(" + _ISSUE_WORD + "s 10 item 7 and 13 finding 5)",
        "see " + _ISSUE_WORD + " #7",
        "fixed in " + "#" + "41",
    ],
)
def test_an_issue_reference_is_found(text: str) -> None:
    assert issue_references(text) != []


@pytest.mark.parametrize(
    "text",
    [
        "dictionary update sequence element #0 has length 1",
        "the " + _ISSUE_WORD + " here is the model's habit",
        "a colour &#" + "160; entity",
        "## 12 rules",
    ],
)
def test_what_is_no_issue_reference(text: str) -> None:
    assert issue_references(text) == []


def test_a_commit_hash_in_a_comment_or_docstring_is_found() -> None:
    short, full = "0e" + "af9e2", "4533208" + "ab" * 16 + "c"
    source = f'"""Removed at {short}."""\n\nx = 1  # ablation at {full}\n'
    assert sorted(commit_hashes(source)) == [(1, short), (3, full)]


def test_a_link_to_a_bench_result_may_name_its_commit() -> None:
    source = '"""The runs: bench/results/ablation-' + "0e" + 'af9e2.md."""\n'
    assert commit_hashes(source) == []


def test_hex_data_and_code_are_no_commit_hash() -> None:
    sha256 = "e3b0c442" * 8
    source = (
        f'"""A digest: {sha256}; a date 20261203; a word: defaced."""\n\n'
        f'UUID = "123e4567-e89b-12d3"  # a uuid\nHASH = "{"0e" + "af9e2"}"\n'
    )
    assert commit_hashes(source) == []
