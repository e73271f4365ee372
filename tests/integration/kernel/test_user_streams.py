"""A user's notifications have one stream per organization: a member of two organizations reads each
organization's notifications with seqs counting from 1 there."""

from __future__ import annotations

from typing import Any

from actors.identity.accounts import create_organization
from tests.harness import PASSWORD, Api, Org, login
from tests.integration.actions.conftest import action_input
from tests.integration.boards.conftest import make_board
from web.keys import NODE


async def _second_org_of_the_owner(first: Org) -> tuple[Org, Api]:
    """The first organization's owner founds another one; it and another member there."""
    node = first.owner.client.app[NODE]
    slug = f"{first.slug}-two"
    org_id, owner_id = await create_organization(node, slug=slug, name="Second plant", owner_email=first.owner_email,
                                                 owner_password=PASSWORD, plan="business")
    assert owner_id == first.owner_id
    host = f"{slug}.localhost"
    anonymous = Api(first.owner.client, host)
    second = Org(org_id, slug, host, owner_id, first.owner_email, await login(anonymous, first.owner_email),
                 anonymous)
    _, colleague = await second.add_user("member", name="Cora Colleague")
    return second, colleague


async def _assign_to_owner(org: Org, assigner: Api) -> dict[str, Any]:
    board = await make_board(org)
    reply = await assigner.mutate("actions.create", action_input(board))
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def test_a_member_of_two_organizations_has_notification_seqs_from_1_in_each(org: Org) -> None:
    _, first_colleague = await org.add_user("member", name="Finn Colleague")
    await _assign_to_owner(org, first_colleague)
    await _assign_to_owner(org, first_colleague)
    second_org, second_colleague = await _second_org_of_the_owner(org)
    second_id, owner_there = second_org.id, second_org.owner
    action = await _assign_to_owner(second_org, second_colleague)

    here = await org.owner.rest("GET", "/api/v1/events", params={"stream": "user"})
    there = await owner_there.rest("GET", "/api/v1/events", params={"stream": "user"})
    assert here.status == there.status == 200, (here.body, there.body)
    assert [(e["event"], e["seq"]) for e in here.data] == [("notification.created", 1),
                                                                     ("notification.created", 2)]
    [note] = there.data
    assert (note["event"], note["seq"], note["organizationId"]) == ("notification.created", 1, second_id)
    assert note["data"]["entityId"] == action["id"]
    assert {e["organizationId"] for e in here.data} == {org.id}
    full_name = await owner_there.rest("GET", "/api/v1/events",
                                       params={"stream": f"user:{second_id}:{org.owner_id}"})
    assert full_name.data == there.data
    # In the second organization, the first one's stream does not exist.
    other = await owner_there.rest("GET", "/api/v1/events", params={"stream": f"user:{org.id}:{org.owner_id}"})
    assert other.status == 404
