"""Time and seq cursors: what a page writes is what the next page reads, and a forged one is a 400, never a 500."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from protocol.errors import BadRequest
from protocol.json_bounds import INT_MAX
from protocol.pagination import decode_seq_cursor, decode_time_cursor, encode_cursor, encode_time_cursor


def test_a_time_cursor_round_trips_in_utc() -> None:
    moment = datetime(2026, 11, 22, 4, 30, 15, 123000, tzinfo=UTC)
    assert decode_time_cursor(encode_time_cursor(moment, "kpi_1")) == (moment, "kpi_1")
    naive = decode_time_cursor(encode_cursor("2026-11-22T04:30:15", "x"))
    assert naive == (datetime(2026, 11, 22, 4, 30, 15, tzinfo=UTC), "x")


@pytest.mark.parametrize("key", [["0001-01-01T00:00:00+05:00", "x"], ["not a time", "x"], [17, "x"],
                                 ["9999-12-31T23:59:59-05:00", "x"]])
def test_a_forged_time_cursor_is_a_bad_request(key: list[object]) -> None:
    with pytest.raises(BadRequest) as refused:
        decode_time_cursor(encode_cursor(*key))
    assert refused.value.details[0].field == "cursor"


def test_a_seq_cursor_is_a_seq_up_to_64_bits() -> None:
    assert decode_seq_cursor(str(INT_MAX)) == INT_MAX
    assert decode_seq_cursor("0") == 0
    assert decode_seq_cursor(None) is None and decode_seq_cursor("") is None


@pytest.mark.parametrize("cursor", [str(INT_MAX + 1), "9" * 30, "-1", "1.5", "١٢", "abc"])
def test_a_forged_seq_cursor_is_a_bad_request(cursor: str) -> None:
    with pytest.raises(BadRequest) as refused:
        decode_seq_cursor(cursor)
    assert [detail.field for detail in refused.value.details] == ["cursor"]
