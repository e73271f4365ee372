"""Reading cells as their column's type (actors/imports/cells.py): dates in each format, numbers with either
decimal mark, and the group, people and required columns of a row."""

from __future__ import annotations

import pytest

from actors.imports.cells import BoardColumn, CellError, Member, RowReader, read_date
from protocol.imports import ColumnMapping, StoredMapping


@pytest.mark.parametrize(("text", "date_format"), [
    ("2026-03-07", "YYYY-MM-DD"), ("07/03/2026", "DD/MM/YYYY"), ("3/7/2026", "MM/DD/YYYY"),
    ("07.03.2026", "DD.MM.YYYY"), ("07-03-2026", "DD-MM-YYYY"), ("03-07-2026", "MM-DD-YYYY"),
    ("2026/03/07", "YYYY/MM/DD"), ("2026-03-07", "DD/MM/YYYY")])
def test_dates_in_each_format(text: str, date_format: str) -> None:
    assert read_date(text, date_format) == "2026-03-07"


@pytest.mark.parametrize("text", ["07/03/26", "2026-02-30x", "31/02/2026", "next week"])
def test_what_is_not_a_date(text: str) -> None:
    with pytest.raises(CellError):
        read_date(text, "DD/MM/YYYY")


def reader(delimiter: str = ",") -> RowReader:
    columns = [BoardColumn("col_n", "Cost", "number", {"decimals": None, "min": None, "max": None}, False, False),
               BoardColumn("col_p", "Owner", "people", {"multiple": True}, False, False),
               BoardColumn("col_r", "Shift", "text", {}, True, False)]
    mapping = StoredMapping([ColumnMapping(0, "item_name"), ColumnMapping(1, "column", "col_n"),
                             ColumnMapping(2, "column", "col_p"), ColumnMapping(3, "group"),
                             ColumnMapping(4, "column", "col_r")], "grp_a", True, "YYYY-MM-DD")
    members = [Member("usr_1", "ann@x.test", "Ann Lee"), Member("usr_2", "bo@x.test", "Bo")]
    return RowReader(mapping, ["Name", "Cost", "Owner", "Group", "Shift"], columns,
                     {"grp_a": "Backlog", "grp_b": "Done"}, members, delimiter)


@pytest.mark.parametrize(("text", "delimiter", "number"), [
    ("1234.5", ",", 1234.5), ("1,234.50", ",", 1234.5), ("1.234,5", ";", 1234.5), ("12,5", ";", 12.5),
    ("12,500", ",", 12500), ("$ 99", ",", 99), ("-3e2", ",", -300)])
def test_numbers_with_either_decimal_mark(text: str, delimiter: str, number: float) -> None:
    parsed = reader(delimiter).read(2, ["Pump", text, "", "", "day"])
    assert parsed.valid, parsed.errors
    assert parsed.values["col_n"] == number


def test_a_row_reads_people_the_group_and_names_its_errors() -> None:
    parsed = reader().read(5, ["Pump", "1_000", "ANN@x.test, bo", "done", ""])
    assert parsed.values == {"col_p": ["usr_1", "usr_2"]} and parsed.group_id == "grp_b"
    assert [(e["column"], e["error"]) for e in parsed.errors] == [
        ("Cost", "is not a number"), ("Shift", "the board requires a value in this column")]
