"""Who belongs to an organization, read through the node's caches: a member's role (read on every
request, `node.roles`) and the set of member ids (people values, automation recipients, `node.members`).
A membership made, changed or ended on this node drops both at once (`forget_member`); on another node it
shows within `MEMBERSHIP_SECONDS` (actors/kernel/node.py)."""

from __future__ import annotations

from actors.kernel.invalidation import MembershipChanged
from actors.kernel.node import Node
from storage import access as access_repo
from storage import accounts as account_repo


async def member_role(node: Node, org_id: str, user_id: str) -> str | None:
    return await node.roles.get((org_id, user_id), lambda: account_repo.membership_role(node.pool, org_id, user_id))


async def org_members(node: Node, org_id: str) -> frozenset[str]:
    async def load() -> frozenset[str]:
        return frozenset(await access_repo.member_ids(node.pool, org_id))

    return await node.members.get(org_id, load)


def forget_member(node: Node, org_id: str, user_id: str) -> None:
    """A member joined, changed role or left on this node: drop what the caches hold of it."""
    node.invalidate(MembershipChanged(org_id, user_id))
