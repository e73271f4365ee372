"""REST paths of the item collection: the generic list, create, read, update and delete."""

from __future__ import annotations

from web.rest import RestRoute

ITEM_ROUTES = [
    RestRoute("GET", "/api/v1/items", "items.list"),
    RestRoute("POST", "/api/v1/items", "items.create", status=201),
    RestRoute("GET", "/api/v1/items/{id}", "items.get"),
    RestRoute("PATCH", "/api/v1/items/{id}", "items.update"),
    RestRoute("DELETE", "/api/v1/items/{id}", "items.delete"),
]
