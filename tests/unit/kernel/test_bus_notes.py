"""A worker's bus notes stay bounded: past their limit they are dropped and the worker is told once to sweep
the event log instead."""

from __future__ import annotations

from actors.kernel.wake import BusNotes


def test_notes_are_taken_in_order_and_emptied() -> None:
    notes: BusNotes[int] = BusNotes(limit=5)
    notes.add([1, 2])
    notes.add([3])

    assert notes.take() == [1, 2, 3]
    assert notes.take() == []
    assert notes.take_overflow() is False


def test_notes_past_their_limit_are_dropped_and_ask_for_one_sweep() -> None:
    notes: BusNotes[int] = BusNotes(limit=3)
    notes.add([1, 2])
    notes.add([3, 4])

    assert notes.items == []
    assert notes.take_overflow() is True
    assert notes.take_overflow() is False
    notes.add([5])
    assert notes.take() == [5]
