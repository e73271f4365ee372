"""Notifications: paging newest first, unread count, mark read (own only), mark all, device tokens."""

from __future__ import annotations

from tests.harness import Org
from web.keys import NODE


async def _seed(org: Org, user_id: str, count: int) -> list[str]:
    node = org.owner.client.server.app[NODE]
    ids = []
    for index in range(count):
        async with node.write(None, org_id=org.id) as uow:
            created = await uow.notify(user_id, "action_assigned", f"Action {index}", "Please look", "action",
                                       f"act_{index}")
        ids.append(created["id"])
    return ids


async def test_list_pages_newest_first_with_next_cursor(org: Org) -> None:
    ids = await _seed(org, org.owner_id, 25)
    first = await org.owner.rest("GET", "/api/v1/notifications")
    assert first.status == 200
    assert [n["id"] for n in first.data["notifications"]] == ids[::-1][:20]
    assert set(first.data["notifications"][0]) == {"id", "type", "title", "body", "entityType", "entityId",
                                                   "read", "createdAt"}
    second = await org.owner.rest("GET", "/api/v1/notifications", params={"cursor": first.data["nextCursor"]})
    assert [n["id"] for n in second.data["notifications"]] == ids[::-1][20:]
    assert "nextCursor" not in second.data
    rpc = await org.owner.query("notifications.list", {"limit": 5})
    assert [n["id"] for n in rpc.data["notifications"]] == ids[::-1][:5]
    assert rpc.data["nextCursor"] == ids[::-1][4]


async def test_limit_above_fifty_is_bad_request(org: Org) -> None:
    reply = await org.owner.rest("GET", "/api/v1/notifications", params={"limit": "51"})
    assert reply.status == 400
    assert reply.error["code"] == "BAD_REQUEST"
    assert (await org.owner.query("notifications.list", {"limit": 0})).status == 400
    assert (await org.owner.rest("GET", "/api/v1/notifications", params={"cursor": "nope"})).status == 400


async def test_unread_count_and_mark_read(org: Org) -> None:
    ids = await _seed(org, org.owner_id, 3)
    assert (await org.owner.rest("GET", "/api/v1/notifications/unread-count")).data == {"count": 3}
    marked = await org.owner.rest("PATCH", f"/api/v1/notifications/{ids[0]}/read", {})
    assert marked.status == 200 and marked.data["read"] is True
    assert (await org.owner.query("notifications.unreadCount")).data == {"count": 2}
    everything = await org.owner.rest("POST", "/api/v1/notifications/mark-all-read", {})
    assert everything.data == {"success": True, "count": 2}
    assert (await org.owner.rest("GET", "/api/v1/notifications/unread-count")).data == {"count": 0}


async def test_another_users_notification_is_not_found(org: Org) -> None:
    member_id, member = await org.add_user("member")
    [theirs] = await _seed(org, member_id, 1)
    reply = await org.owner.rest("PATCH", f"/api/v1/notifications/{theirs}/read", {})
    assert reply.status == 404
    assert (await member.query("notifications.unreadCount")).data == {"count": 1}
    assert (await org.owner.rest("GET", "/api/v1/notifications")).data["notifications"] == []


async def test_device_token_is_upserted_per_platform(org: Org) -> None:
    first = await org.owner.rest("POST", "/api/v1/notifications/device-token", {"token": "abc", "platform": "ios"})
    assert first.status == 200 and first.data["token"] == "abc"
    second = await org.owner.rest("POST", "/api/v1/notifications/device-token", {"token": "xyz", "platform": "ios"})
    assert second.data["token"] == "xyz"
    node = org.owner.client.server.app[NODE]
    rows = await node.pool.fetch("SELECT token FROM device_tokens WHERE user_id = $1", org.owner_id)
    assert [r["token"] for r in rows] == ["xyz"]
    bad = await org.owner.rest("POST", "/api/v1/notifications/device-token", {"token": "t", "platform": "web"})
    assert bad.status == 422 and bad.error["details"][0]["field"] == "platform"
    unauthenticated = await org.anonymous.rest("GET", "/api/v1/notifications")
    assert unauthenticated.status == 401
