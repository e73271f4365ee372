"""REST paths of the action collection: the generic list, create, read, update and delete."""

from __future__ import annotations

from web.rest import RestRoute

ACTION_ROUTES = [
    RestRoute("GET", "/api/v1/actions", "actions.list"),
    RestRoute("POST", "/api/v1/actions", "actions.create", status=201),
    RestRoute("GET", "/api/v1/actions/{id}", "actions.getById"),
    RestRoute("PATCH", "/api/v1/actions/{id}", "actions.update"),
    RestRoute("DELETE", "/api/v1/actions/{id}", "actions.delete"),
]
