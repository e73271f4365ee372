"""REST paths of the KPI collection: the generic collection, plus a
KPI's values (record one, read its history)."""

from __future__ import annotations

from web.rest import RestRoute

KPI_ROUTES = [
    RestRoute("GET", "/api/v1/kpis", "kpis.list"),
    RestRoute("POST", "/api/v1/kpis", "kpis.define", status=201),
    RestRoute("GET", "/api/v1/kpis/{id}", "kpis.get"),
    RestRoute("PATCH", "/api/v1/kpis/{id}", "kpis.update"),
    RestRoute("DELETE", "/api/v1/kpis/{id}", "kpis.delete"),
    RestRoute("POST", "/api/v1/kpis/{id}/values", "kpis.setValue", status=201, rename={"id": "kpiId"}),
    RestRoute("GET", "/api/v1/kpis/{id}/values", "kpis.getHistory", rename={"id": "kpiId"}),
]
