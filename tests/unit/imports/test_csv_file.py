"""Reading an uploaded file (actors/imports/csv_file.py): the UTF-8 check across chunk boundaries, delimiter
detection, and records read alike from the upload's bytearray and the stored bytes."""

from __future__ import annotations

import pytest

from actors.imports.csv_file import Utf8Check, detect_delimiter, records, scan
from protocol.errors import ValidationFailed


def test_a_character_split_across_two_chunks_is_utf8() -> None:
    data = "Name\nPrüfung\n".encode()
    split = data.index(b"\xc3") + 1
    check = Utf8Check()
    check.feed(data[:split])
    check.feed(data[split:])
    check.close()


def test_the_offset_of_a_bad_byte_counts_every_chunk_before_it() -> None:
    check = Utf8Check()
    check.feed(b"a" * 10 + b"\xc3")
    with pytest.raises(ValidationFailed) as refused:
        check.feed(b"(rest")
    assert "byte 0xC3 at offset 10" in refused.value.message


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_the_delimiter_that_splits_rows_evenly_wins(delimiter: str) -> None:
    lines = [["Name", "Note, with comma", "When"], ["A", "x", "1"], ["B", "y", "2"]]
    data = "\n".join(delimiter.join(f'"{cell}"' if "," in cell else cell for cell in line) for line in lines)
    assert detect_delimiter(data.encode()) == delimiter


def test_a_single_column_file_reads_as_comma() -> None:
    assert detect_delimiter(b"Name\nA\nB\n") == ","


def test_records_are_the_same_from_a_bytearray_and_from_bytes() -> None:
    data = '\ufeffName;Note\r\n"A;1";"two\r\nlines"\r\n\r\nB;2\r\n'.encode()
    assert list(records(bytearray(data), ";")) == list(records(data, ";")) == [
        (1, ["Name", "Note"]), (2, ["A;1", "two\r\nlines"]), (4, ["B", "2"])]
    assert scan(bytearray(data), ";").total_rows == 2


def test_a_file_of_blank_lines_holds_no_rows() -> None:
    with pytest.raises(ValidationFailed) as refused:
        scan(b"\r\n \r\n", ",")
    assert refused.value.details[0].field == "file"
