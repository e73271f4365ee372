"""Reading an uploaded CSV file: the UTF-8 check run on each chunk while the upload streams in, delimiter
detection, and the file's records one at a time. Nothing here holds the file's text whole: records are decoded
from the stored bytes as they are read (`io.TextIOWrapper` over the bytes), so an import holds the file once."""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from protocol.errors import ValidationFailed
from protocol.imports import DELIMITERS, MAX_CSV_COLUMNS

BOM = codecs.BOM_UTF8
UTF8, UTF8_BOM = "utf-8", "utf-8-sig"
# Delimiter detection looks at the records in this much of the file's start.
_SNIFF_BYTES = 64 * 1024
_SNIFF_RECORDS = 20
# Each column shows up to this many non-empty sample values, taken from the first rows, each cut to this length.
SAMPLES, SAMPLE_ROWS, SAMPLE_CHARS = 3, 20, 100


class Utf8Check:
    """Fed the upload's chunks in order: refuses (400 naming `file`) the first byte that is not UTF-8, a UTF-16 or
    UTF-32 file, and NUL characters, saying which. `bom` tells whether the file began with a UTF-8 BOM."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._seen = 0
        self._lead = b""
        self.bom = False

    def feed(self, chunk: bytes, *, final: bool = False) -> None:
        if len(self._lead) < 4:
            self._lead += chunk[:4 - len(self._lead)]
            if final or len(self._lead) >= 4:
                self._check_lead()
        buffered = self._decoder.getstate()[0]
        try:
            text = self._decoder.decode(chunk, final)
        except UnicodeDecodeError as error:
            offset = self._seen - len(buffered) + error.start
            byte = (buffered + chunk)[error.start:error.start + 1]
            raise ValidationFailed.of("file", f"is not UTF-8: byte 0x{byte.hex().upper()} at offset {offset} "
                                      "is not valid UTF-8 (a Windows-1252 or Latin-1 file? save it as "
                                      "\"CSV UTF-8\")") from None
        if "\x00" in text:
            raise ValidationFailed.of("file", "holds NUL characters: it is not a UTF-8 text file")
        self._seen += len(chunk)

    def _check_lead(self) -> None:
        lead = self._lead
        if lead.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
            raise ValidationFailed.of("file", "is UTF-32 encoded (it starts with a UTF-32 byte order mark); "
                                      "save it as UTF-8")
        if lead.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise ValidationFailed.of("file", "is UTF-16 encoded (it starts with a UTF-16 byte order mark); "
                                      "save it as UTF-8")
        if lead.startswith(BOM):
            self.bom = True

    def close(self) -> None:
        self.feed(b"", final=True)


def encoding_of(content: bytes | bytearray) -> str:
    return UTF8_BOM if content.startswith(BOM) else UTF8


def _reader(stream: io.TextIOBase, delimiter: str) -> Any:
    return csv.reader(stream, delimiter=delimiter)


class _ViewReader(io.RawIOBase):
    """The bytes of a bytearray as a stream, without the copy `io.BytesIO` makes of anything but `bytes`."""

    def __init__(self, content: bytearray) -> None:
        self._view = memoryview(content)
        self._at = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = min(len(buffer), len(self._view) - self._at)
        buffer[:count] = self._view[self._at:self._at + count]
        self._at += count
        return count


def _stream(content: bytes | bytearray) -> io.BufferedReader | io.BytesIO:
    if isinstance(content, bytearray):
        return io.BufferedReader(_ViewReader(content))
    return io.BytesIO(content)  # shares the bytes


def records(content: bytes | bytearray, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Each record of the file with its row number as a spreadsheet shows it (the first record is row 1, blank
    lines count); blank records are passed over. A record csv cannot read is 400 naming `file` and the row."""
    text = io.TextIOWrapper(_stream(content), encoding=UTF8_BOM, newline="")
    reader = _reader(text, delimiter)
    number = 0
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise ValidationFailed.of("file", f"row {number + 1} cannot be read: {error}") from None
        number += 1
        if any(field.strip() for field in fields):
            yield number, fields


def detect_delimiter(content: bytes | bytearray) -> str:
    """The delimiter (comma, semicolon, tab or pipe) that splits the file's first records into the most columns
    of one width; a file no candidate splits is read as one column (comma)."""
    lead = content[:_SNIFF_BYTES].decode("utf-8", "ignore").removeprefix("\ufeff")
    if len(content) > _SNIFF_BYTES and "\n" in lead:
        lead = lead[:lead.rfind("\n")]  # the last line may be cut short
    best, best_key = ",", (False, 0.0, 0)
    for delimiter in DELIMITERS:
        try:
            rows = [row for _, row in zip(range(_SNIFF_RECORDS), _reader(io.StringIO(lead, newline=""), delimiter),
                                          strict=False) if row]
        except csv.Error:
            continue
        if not rows:
            continue
        width = len(rows[0])
        key = (width > 1, sum(1 for row in rows if len(row) == width) / len(rows), width)
        if key > best_key:
            best, best_key = delimiter, key
    return best


@dataclass(frozen=True)
class Scan:
    total_rows: int
    columns: list[dict[str, Any]]


def scan(content: bytes | bytearray, delimiter: str) -> Scan:
    """Count the data rows (after the header row) and describe the columns: index, header and sample values.
    CPU-bound over the whole file: run it off the event loop (`asyncio.to_thread`)."""
    header: list[str] | None = None
    width, total = 0, 0
    samples: list[list[str]] = []
    for _, fields in records(content, delimiter):
        if len(fields) > width:
            width = len(fields)
            if width > MAX_CSV_COLUMNS:
                raise ValidationFailed.of("file", f"has more than {MAX_CSV_COLUMNS} columns")
            samples.extend([] for _ in range(width - len(samples)))
        if header is None:
            header = fields
            continue
        total += 1
        if total <= SAMPLE_ROWS:
            for index, value in enumerate(fields):
                if value.strip() and len(samples[index]) < SAMPLES:
                    samples[index].append(value.strip()[:SAMPLE_CHARS])
    if header is None:
        raise ValidationFailed.of("file", "holds no rows")
    columns = [{"index": index, "header": header[index].strip() if index < len(header) else "",
                "sampleValues": samples[index]} for index in range(width)]
    return Scan(total, columns)
