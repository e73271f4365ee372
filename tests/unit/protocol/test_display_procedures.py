"""The procedures a display link may call (protocol/displays.py) are declared ones, of an organization, and the only
changes among them are starting and completing a meeting."""

from __future__ import annotations

import server.domains  # noqa: F401  (imports every protocol module, so REGISTRY is complete)
from protocol.displays import DISPLAY_PROCEDURES
from protocol.registry import REGISTRY, Access


def test_every_procedure_a_display_may_call_is_declared_for_an_organization() -> None:
    assert DISPLAY_PROCEDURES <= set(REGISTRY), DISPLAY_PROCEDURES - set(REGISTRY)
    assert {REGISTRY[name].access for name in DISPLAY_PROCEDURES} == {Access.ORG}


def test_a_display_changes_nothing_but_its_boards_meetings() -> None:
    changes = {name for name in DISPLAY_PROCEDURES if not REGISTRY[name].is_query}
    assert changes == {"meetings.start", "meetings.complete"}
