"""Time cursors: what a page writes is what the next page reads, and a forged one is a 400, never a 500."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from protocol.errors import BadRequest
from protocol.pagination import decode_time_cursor, encode_cursor, encode_time_cursor


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
