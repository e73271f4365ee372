"""Imports every module that implements procedures, so that the handler table is complete."""

from actors.actions import handlers as actions  # noqa: F401  (imported for their @implement registrations)
from actors.approvals import handlers as approvals  # noqa: F401
from actors.audits import handlers as audits  # noqa: F401
from actors.automations import handlers as automations  # noqa: F401
from actors.board import board_handlers, comment_handlers, item_handlers  # noqa: F401
from actors.checklists import handlers as checklists  # noqa: F401
from actors.delivery import event_feed, webhooks  # noqa: F401
from actors.exports import handlers as exports  # noqa: F401
from actors.forms import distribution, otp  # noqa: F401
from actors.forms import handlers as forms  # noqa: F401
from actors.forms import pipeline as form_pipeline  # noqa: F401  (registers the board's form-item command)
from actors.identity import accounts, api_keys, mcp_keys, oauth_apps, personal_tokens, sso  # noqa: F401
from actors.imports import handlers as imports  # noqa: F401  (with the board's import command)
from actors.kpi import handlers as kpis  # noqa: F401
from actors.meetings import handlers as meetings  # noqa: F401
from actors.problem_solving import handlers as problem_solving  # noqa: F401
from actors.templates import handlers as templates  # noqa: F401
from actors.tenancy import activity, billing, notifications, organizations, projects, workspaces  # noqa: F401
