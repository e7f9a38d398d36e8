"""The figures of a table's number columns, worked out when the table is read: its row count, sum,
mean, smallest and largest value, and the row each of those two is in.

A small model reading seven amounts adds them wrong (a week of expenses said as "$15" for 140,
"sum([2, 4, 4, 5])") and copies a figure it is given right. Read with the standard library's csv
reader, its dialect sniffed among comma, semicolon and tab; a column is a number column when every
cell it has is a number (a currency sign or unit around it allowed: "$12.40", "12,40 €" where ";"
separates the cells). A table without a header row, with no number column, or that the csv reader
cannot read has no figures: the file's text is returned all the same.
"""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal, InvalidOperation
from pathlib import PurePosixPath

from pydantic import BaseModel, Field

__all__ = ["TABLE_SUFFIXES", "ColumnFigures", "column_figures"]

#: The files read as tables.
TABLE_SUFFIXES = frozenset({".csv", ".tsv"})
# A cell's number, with what may stand around it (a currency sign, a unit, a percent sign).
_CELL = re.compile(r"^[^\d+\-.]{0,4}?(?P<number>[+-]?(?:\d[\d,' ]*)?\d(?:[.,]\d+)?)\s*[^\d]{0,4}$")


class ColumnFigures(BaseModel):
    """One number column of a table, worked out over all its rows."""

    rows: int = Field(description="Rows with a number in this column.")
    sum: int | float = Field(description="The column's total.")
    mean: int | float = Field(description="The column's average (the total over its rows).")
    min: int | float
    max: int | float
    min_row: str | None = Field(None, description="The first text of the row with the smallest value.")
    max_row: str | None = Field(None, description="The first text of the row with the largest value.")


def column_figures(path: str, text: str) -> dict[str, ColumnFigures] | None:
    """The figures of each number column of ``text`` (the whole of table ``path``), by header; None
    for a file that is not a table, or a table with no header row or no number column."""
    if PurePosixPath(path).suffix.lower() not in TABLE_SUFFIXES or not text.strip():
        return None
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel_tab if path.lower().endswith(".tsv") else csv.excel
    decimal_comma = getattr(dialect, "delimiter", ",") != ","
    try:
        rows = [r for r in csv.reader(io.StringIO(text), dialect) if any(cell.strip() for cell in r)]
    except csv.Error:  # a cell over the csv module's field limit, a stray NUL: the text is still read
        return None
    if len(rows) < 2:
        return None
    header, body = [h.strip() for h in rows[0]], rows[1:]
    if not all(header) or any(_number(h, decimal_comma) is not None for h in header):
        return None  # no header row: the columns have no names to give
    values = [
        [_number(row[i], decimal_comma) if i < len(row) else None for row in body] for i in range(len(header))
    ]
    filled = [[row[i].strip() if i < len(row) else "" for row in body] for i in range(len(header))]
    label = next((i for i, column in enumerate(values) if all(v is None for v in column)), None)
    figures: dict[str, ColumnFigures] = {}
    for i, column in enumerate(values):
        found = [(v, at) for at, v in enumerate(column) if v is not None]
        if not found or len(found) != sum(1 for cell in filled[i] if cell):
            continue  # no number, or a cell that is not one: not a number column
        numbers = [v for v, _ in found]
        total = sum(numbers, Decimal(0))
        low = min(found, key=lambda pair: pair[0])[1]
        high = max(found, key=lambda pair: pair[0])[1]
        figures[header[i]] = ColumnFigures(
            rows=len(numbers),
            sum=_plain(total),
            mean=_plain(round(total / len(numbers), 4)),
            min=_plain(min(numbers)),
            max=_plain(max(numbers)),
            min_row=filled[label][low] or None if label is not None else None,
            max_row=filled[label][high] or None if label is not None else None,
        )
    return figures or None


def _number(cell: str, decimal_comma: bool) -> Decimal | None:
    found = _CELL.match(cell.strip())
    if found is None:
        return None
    digits = found.group("number").replace(" ", "").replace("'", "")
    if decimal_comma and re.fullmatch(r"[+-]?[\d.]*\d,\d+", digits):
        digits = digits.replace(".", "").replace(",", ".")  # 1.234,50 where ";" separates the cells
    else:
        digits = digits.replace(",", "")
    try:
        return Decimal(digits)
    except InvalidOperation:
        return None


def _plain(value: Decimal) -> int | float:
    """A whole number as an int (a voice says "140", not "140.0"), else a float."""
    value = value.normalize()
    return int(value) if value == value.to_integral_value() else float(value)
