"""The per-node caches of who belongs to an organization: a member's role (read on every request) and the
set of member ids (people values, automation recipients). A membership made, changed or ended on this node
drops both at once (`forget_member`); on another node it shows within `MEMBERSHIP_CACHE_SECONDS`."""

from __future__ import annotations

from actors.kernel.node import Node
from actors.kernel.ttl_cache import TtlCache
from storage import access as access_repo
from storage import accounts as account_repo

MEMBERSHIP_CACHE_SECONDS = 5.0

_roles: TtlCache[tuple[str, str], str | None] = TtlCache(MEMBERSHIP_CACHE_SECONDS)
_members: TtlCache[str, frozenset[str]] = TtlCache(MEMBERSHIP_CACHE_SECONDS)


async def member_role(node: Node, org_id: str, user_id: str) -> str | None:
    return await _roles.get((org_id, user_id), lambda: account_repo.membership_role(node.pool, org_id, user_id))


async def org_members(node: Node, org_id: str) -> frozenset[str]:
    async def load() -> frozenset[str]:
        return frozenset(await access_repo.member_ids(node.pool, org_id))

    return await _members.get(org_id, load)


def forget_member(org_id: str, user_id: str) -> None:
    """A member joined, changed role or left on this node: drop what the caches hold of it."""
    _roles.drop((org_id, user_id))
    _members.drop(org_id)
