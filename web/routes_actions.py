"""REST paths of the action collection (platform 4.1 rule 6, DESIGN.md "REST")."""

from __future__ import annotations

from web.rest import RestRoute

ACTION_ROUTES = [
    RestRoute("GET", "/api/v1/actions", "actions.list"),
    RestRoute("POST", "/api/v1/actions", "actions.create", status=201),
    RestRoute("GET", "/api/v1/actions/{id}", "actions.getById"),
    RestRoute("PATCH", "/api/v1/actions/{id}", "actions.update"),
    RestRoute("DELETE", "/api/v1/actions/{id}", "actions.delete"),
]
