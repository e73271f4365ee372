"""A node's plug-in slots: a service is found by its slot, typed as the slot says; a missing one is named, and a
slot takes one service."""

from __future__ import annotations

import pytest

from actors.kernel.plugins import Plugins, Slot

GREETER: Slot[list[str]] = Slot("greeter")


def test_a_service_is_found_by_its_slot() -> None:
    plugins = Plugins()
    greetings = ["hello"]
    plugins.plug(GREETER, greetings)
    assert plugins[GREETER] is greetings


def test_a_missing_service_is_named() -> None:
    with pytest.raises(KeyError, match="no greeter is plugged into this node"):
        Plugins()[GREETER]


def test_a_slot_takes_one_service() -> None:
    plugins = Plugins()
    plugins.plug(GREETER, [])
    with pytest.raises(ValueError, match="already has a greeter"):
        plugins.plug(GREETER, [])
