"""REST path of the event feed: `GET /api/v1/events?stream=board:<id>&since=<seq>&limit=` pages through
one stream of the event log, oldest first (DESIGN.md "One sequence everywhere")."""

from __future__ import annotations

from web.rest import RestRoute

EVENT_ROUTES = [
    RestRoute("GET", "/api/v1/events", "events.list"),
]
