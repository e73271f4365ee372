"""REST path of the event feed: `GET /api/v1/events?stream=board:<id>&since=<seq>&limit=` pages through
one stream of the event log, oldest first (docs/architecture.md, "The event log and seq")."""

from __future__ import annotations

from web.rest import RestRoute

EVENT_ROUTES = [
    RestRoute("GET", "/api/v1/events", "events.list"),
]
