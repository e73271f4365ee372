"""The activity trail: the two read procedures. Entries are written by other mutations."""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.fields import Cursor, Id
from protocol.registry import Role, declare

# Organization list default 30, entity list default 50, both at most 200.
ORG_DEFAULT_LIMIT = 30
ENTITY_DEFAULT_LIMIT = 50

EntityType = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class ListByOrgInput(msgspec.Struct):
    # Range checked by protocol.pagination.page_limit: out of range is 400 in both styles.
    limit: int | None = None
    cursor: Cursor | None = None


class ListByEntityInput(msgspec.Struct):
    entityType: EntityType
    entityId: Id
    limit: int | None = None
    cursor: Cursor | None = None


LIST_BY_ORG = declare("activity.listByOrg", "query", ListByOrgInput, key_scope="read:items",
                      token_scope="read", min_role=Role.MEMBER,
                      summary="The organization's activity trail, newest first")
LIST_BY_ENTITY = declare("activity.listByEntity", "query", ListByEntityInput, key_scope="read:items",
                         token_scope="read", min_role=Role.MEMBER,
                         summary="The activity trail of one entity, newest first")
