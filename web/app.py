"""The aiohttp application of the edge: its middleware and every route."""

from __future__ import annotations

from aiohttp import web

from actors.kernel.handlers import HandlerTable
from web.auth_routes import add_auth_routes
from web.edge import edge
from web.health import healthz, readyz
from web.keys import HANDLER_TABLE
from web.mcp import add_mcp_routes
from web.metrics import metrics_endpoint
from web.openapi import add_openapi_route
from web.rest import add_rest_routes
from web.routes_actions import ACTION_ROUTES
from web.routes_approvals import add_approval_routes
from web.routes_automation_hooks import add_automation_hook_routes
from web.routes_billing import add_billing_routes
from web.routes_credentials import add_credential_routes
from web.routes_events import EVENT_ROUTES
from web.routes_files import add_file_routes
from web.routes_forms_public import add_public_form_routes
from web.routes_imports import add_import_routes
from web.routes_invitations import add_invitation_routes
from web.routes_items import ITEM_ROUTES
from web.routes_kpis import KPI_ROUTES
from web.routes_notifications import NOTIFICATION_ROUTES
from web.routes_oauth import add_oauth_routes
from web.routes_platform import PLATFORM_ROUTES
from web.routes_sso import add_sso_routes
from web.routes_webhooks import WEBHOOK_ROUTES
from web.rpc import handle_rpc
from web.ui.app_page import add_app_routes
from web.ui.form_page import add_form_page_routes

# Client bodies above this are refused with 413 (CSV uploads, the largest input, are at most 10 MB).
MAX_BODY_BYTES = 11 * 1024 * 1024


def build_web_app(*, body_timeout: float, handlers: HandlerTable) -> web.Application:
    """Every route behind the edge middleware (web/edge.py), calling the procedures' implementations in
    `handlers`; request bodies are due `body_timeout` seconds after their headers."""
    app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[edge(body_timeout)])
    app[HANDLER_TABLE] = handlers
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics_endpoint)
    app.router.add_route("GET", "/api/trpc/{path}", handle_rpc)
    app.router.add_route("POST", "/api/trpc/{path}", handle_rpc)
    add_openapi_route(app)
    add_auth_routes(app)
    add_rest_routes(app, PLATFORM_ROUTES)
    add_credential_routes(app)
    add_rest_routes(app, NOTIFICATION_ROUTES)
    add_rest_routes(app, ITEM_ROUTES)
    add_rest_routes(app, KPI_ROUTES)
    add_rest_routes(app, ACTION_ROUTES)
    add_rest_routes(app, EVENT_ROUTES)
    add_rest_routes(app, WEBHOOK_ROUTES)
    add_automation_hook_routes(app)
    add_file_routes(app)
    add_import_routes(app)
    add_approval_routes(app)
    add_invitation_routes(app)
    add_billing_routes(app)
    add_public_form_routes(app)
    add_form_page_routes(app)
    add_app_routes(app)
    add_mcp_routes(app)
    add_sso_routes(app)
    add_oauth_routes(app)
    return app
