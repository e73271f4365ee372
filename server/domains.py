"""Every domain of the server, listed once: the procedures each implements, gathered into the one handler table
the edge calls through (`HANDLERS`), and the board command another domain decides."""

from actors.actions import handlers as actions
from actors.approvals import handlers as approvals
from actors.audits import handlers as audits
from actors.automations import handlers as automations
from actors.board import board_handlers, comment_handlers, item_handlers
from actors.board.commands import add_command
from actors.checklists import handlers as checklists
from actors.delivery import event_feed, webhooks
from actors.exports import handlers as exports
from actors.forms import distribution, otp
from actors.forms import handlers as forms
from actors.identity import accounts, api_keys, displays, mcp_keys, oauth_apps, personal_tokens, sso
from actors.imports import handlers as imports
from actors.imports.batch import IMPORT_ITEMS, ImportBatch, import_items
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
    forms.procedures, accounts.procedures, api_keys.procedures, displays.procedures, mcp_keys.procedures,
    oauth_apps.procedures, personal_tokens.procedures, sso.procedures, imports.procedures, kpis.procedures,
    meetings.procedures, problem_solving.procedures, templates.procedures, activity.procedures, billing.procedures,
    notifications.procedures, organizations.procedures, projects.procedures, workspaces.procedures)

# An import sends its rows to the board in a command of its own, decided by the import (it reads the rows as the
# import read them, with the board's own item rules). The board takes it from here rather than naming the import
# itself: the import already depends on the board, and the two would otherwise import each other.
add_command(IMPORT_ITEMS, import_items, ImportBatch)
