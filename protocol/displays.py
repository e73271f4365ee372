"""Display links (docs/displays.md): a wall screen's credential. An admin creates one for a board; its secret is
shown once, inside the link's URL fragment (`{base_url}/screens/<id>#<secret>`), so it never reaches a server's
logs. A display reads that board's items, KPIs, actions and meetings, may start and complete the board's meetings,
and nothing else; it is never a person's session. The inputs with their limits and the procedure declarations.

Managing displays is session-only, as managing any credential is (protocol/credentials.py): a key or token that
could mint credentials would be a privilege escalation. `displays.get` also answers a display about itself: that
is how a screen learns its board."""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.fields import Id
from protocol.registry import Role, declare

# What a display may call, each for its own board only (actors/kernel/authorization.py, actors/kernel/access.py):
# what its wall screen shows, and starting and completing the board's meetings. Everything else is 403.
DISPLAY_PROCEDURES = frozenset({
    "displays.get", "boards.get", "items.list", "kpis.list", "kpis.listByCategory", "kpis.getHistory",
    "kpis.getAlerts", "kpis.getTargets", "actions.list", "actions.getStats", "meetings.get", "meetings.list",
    "meetings.replay", "meetings.start", "meetings.complete"})

DisplayName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]


class CreateInput(msgspec.Struct):
    name: DisplayName
    boardId: Id


class IdInput(msgspec.Struct):
    id: Id


class ListInput(msgspec.Struct):
    boardId: Id | None = None


CREATE = declare("displays.create", "mutation", CreateInput, key_scope="manage_settings", token_scope="admin",
                 min_role=Role.ADMIN, session_only=True, returns_secret=True,
                 summary="Create a display link for a board's wall screen; its url, holding the secret in the "
                 "fragment, is returned once")
GET = declare("displays.get", "query", IdInput, key_scope="manage_settings", token_scope="admin",
              min_role=Role.ADMIN,
              summary="One display link without its secret (with lastSeenAt); a display may read its own")
LIST = declare("displays.list", "query", ListInput, key_scope="manage_settings", token_scope="admin",
               min_role=Role.ADMIN, session_only=True,
               summary="The organization's display links (of one board with boardId), newest first, without secrets")
REVOKE = declare("displays.revoke", "mutation", IdInput, key_scope="manage_settings", token_scope="admin",
                 min_role=Role.ADMIN, session_only=True,
                 summary="Revoke a display link for good: its screens go dark at once, on every node")
