"""Opening a history file and reading its header and rows as text: the CSV layer under every
reader, its problems reported as :class:`~bot.history.cells.CsvError`."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from bot.history.cells import CsvError


def open_file(path: Path) -> TextIO:
    try:
        return path.open(newline="", encoding="utf-8-sig")
    except OSError as error:
        raise CsvError(path.name, None, f"cannot open the file ({error.strerror})") from None


def header_of(reader: Iterator[list[str]], name: str, required: tuple[str, ...],
            optional: tuple[str, ...]) -> list[str]:
    try:
        header = [column.strip() for column in next(reader)]
    except StopIteration:
        raise CsvError(name, None, "the file is empty; it needs a header row") from None
    except (csv.Error, UnicodeDecodeError) as error:
        raise CsvError(name, None, f"not a readable CSV file ({error})") from None
    missing = [c for c in required if c not in header]
    if missing:
        raise CsvError(name, None, f"missing column {', '.join(missing)} in the header")
    unknown = [c for c in header if c not in required + optional]
    if unknown:
        known = ", ".join(required + optional)
        raise CsvError(name, None, f"unknown column {', '.join(unknown)} (known: {known})")
    if len(set(header)) != len(header):
        raise CsvError(name, None, "a column appears twice in the header")
    return header


def records(path: Path, required: tuple[str, ...], optional: tuple[str, ...]) -> Iterator[
    tuple[int, dict[str, str]]
]:
    name = path.name
    handle = open_file(path)
    with handle:
        reader = csv.reader(handle)
        header = header_of(reader, name, required, optional)
        row = 0
        try:
            for values in reader:
                row += 1
                if not any(v.strip() for v in values):
                    continue
                if len(values) != len(header):
                    raise CsvError(
                        name, row, f"{len(values)} values for {len(header)} columns"
                    )
                yield row, {c: v.strip() for c, v in zip(header, values, strict=True)}
        except (csv.Error, UnicodeDecodeError) as error:
            raise CsvError(name, row + 1, f"not readable as CSV ({error})") from None
