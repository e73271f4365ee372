"""REST paths of the webhook procedures (docs/api.md, "Webhooks")."""

from __future__ import annotations

from web.rest import RestRoute

WEBHOOK_ROUTES = [
    RestRoute("POST", "/api/v1/webhooks", "webhooks.create", status=201),
    RestRoute("GET", "/api/v1/webhooks", "webhooks.list"),
    RestRoute("PATCH", "/api/v1/webhooks/{id}", "webhooks.update"),
    RestRoute("DELETE", "/api/v1/webhooks/{id}", "webhooks.delete"),
    RestRoute("GET", "/api/v1/webhooks/{id}/deliveries", "webhooks.deliveries"),
    RestRoute("POST", "/api/v1/webhooks/{id}/redeliver", "webhooks.redeliver"),
]
