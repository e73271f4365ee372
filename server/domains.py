"""Every domain of the server, listed once: the procedures each implements, gathered into the one handler table
the edge calls through (`HANDLERS`)."""

from actors.actions import handlers as actions
from actors.approvals import handlers as approvals
from actors.audits import handlers as audits
from actors.automations import handlers as automations
from actors.board import board_handlers, comment_handlers, item_handlers
from actors.checklists import handlers as checklists
from actors.delivery import event_feed, webhooks
from actors.exports import handlers as exports
from actors.forms import distribution, otp
from actors.forms import handlers as forms
from actors.identity import accounts, api_keys, mcp_keys, oauth_apps, personal_tokens, sso
from actors.imports import handlers as imports
from actors.kernel.handlers import HandlerTable
from actors.kpi import handlers as kpis
from actors.meetings import handlers as meetings
from actors.problem_solving import handlers as problem_solving
from actors.templates import handlers as templates
from actors.tenancy import activity, billing, notifications, organizations, projects, workspaces

HANDLERS = HandlerTable(
    actions.procedures, approvals.procedures, audits.procedures, automations.procedures,
    board_handlers.procedures, comment_handlers.procedures, item_handlers.procedures, checklists.procedures,
    event_feed.procedures, webhooks.procedures, exports.procedures, distribution.procedures, otp.procedures,
    forms.procedures, accounts.procedures, api_keys.procedures, mcp_keys.procedures, oauth_apps.procedures,
    personal_tokens.procedures, sso.procedures, imports.procedures, kpis.procedures, meetings.procedures,
    problem_solving.procedures, templates.procedures, activity.procedures, billing.procedures,
    notifications.procedures, organizations.procedures, projects.procedures, workspaces.procedures)

