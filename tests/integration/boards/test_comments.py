"""Comments through the board actor: the wire shape, safe HTML, mentions that notify
members (never the author, never strangers), reactions that notify nobody, who may edit and delete,
threads, pinned-first paging, events and activity, and tenant isolation."""

from __future__ import annotations

from typing import Any

from actors.runtime.clock import ManualClock
from protocol.ids import iso
from tests.harness import Api, Org, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.files.conftest import PNG, uploaded
from tests.unit.board.test_markdown import assert_inert


async def comment(api: Api, item_id: str, body: str, **fields: Any) -> dict[str, Any]:
    reply = await api.mutate("comments.create", {"itemId": item_id, "body": body, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def mentions_of(api: Api) -> list[dict[str, Any]]:
    reply = await api.query("notifications.list", {"limit": 50})
    assert reply.status == 200, reply.body
    return [n for n in reply.data["notifications"] if n["type"] == "mention"]


async def board_events(board: Board) -> list[dict[str, Any]]:
    feed = await board.api.query("events.list", {"stream": f"board:{board.id}", "limit": 200})
    assert feed.status == 200, feed.body
    return list(feed.data["events"])


async def test_create_list_and_item_counts(board: Board) -> None:
    item = await board.add_item("Replace bearing")
    photo, sheet = await uploaded(board.api, PNG, "bearing.png"), await uploaded(board.api, b"a,b\n1,2\n", "bom.csv")
    created = await comment(board.api, item["id"], "Ordered the **part**", attachmentIds=[photo["id"], sheet["id"]])
    assert created["id"].startswith("cmt_")
    assert created["itemId"] == item["id"] and created["parentId"] is None
    assert created["body"] == "Ordered the **part**"
    assert created["bodyHtml"] == "<p>Ordered the <strong>part</strong></p>"
    assert created["mentions"] == [] and created["reactions"] == []
    assert created["attachments"] == [photo, sheet]
    assert created["author"] == {"id": board.org.owner_id, "name": "Olga Owner", "avatar": None}
    assert created["replyCount"] == 0 and created["isPinned"] is False
    assert created["createdAt"] == created["updatedAt"] and created["createdAt"].endswith("Z")

    listed = await board.api.query("comments.list", {"itemId": item["id"]})
    assert listed.status == 200, listed.body
    assert listed.data["comments"] == [created] and listed.data.get("nextCursor") is None

    got = await board.api.query("items.get", {"id": item["id"]})
    assert got.data["commentCount"] == 1 and got.data["fileCount"] == 2

    [event] = [e for e in await board_events(board) if e["event"] == "item.commented"]
    assert event["data"]["comment"] == created
    assert event["data"]["item"] == {"id": item["id"], "name": "Replace bearing", "boardId": board.id}
    assert event["data"]["actor"]["id"] == board.org.owner_id
    trail = await board.api.query("activity.listByEntity", {"entityType": "item", "entityId": item["id"]})
    [entry] = [e for e in trail.data["entries"] if e["action"] == "comment.created"]
    assert entry["metadata"]["commentId"] == created["id"]


async def test_bad_input_is_refused_naming_the_field(board: Board) -> None:
    item = await board.add_item()
    cases = [({"body": ""}, "body"), ({"body": "x" * 10_001}, "body"), ({"body": "  \n\t "}, "body"),
             ({"body": "ok", "attachmentIds": ["../etc/passwd"]}, "attachmentIds"),
             ({"body": "ok", "attachmentIds": [f"file_{n}" for n in range(21)]}, "attachmentIds")]
    for fields, name in cases:
        reply = await board.api.mutate("comments.create", {"itemId": item["id"], **fields})
        assert reply.status == 400, (fields, reply.body)
        assert reply.error["data"]["details"][0]["field"].startswith(name), reply.body
    assert (await board.api.mutate("comments.create", {"itemId": item["id"], "body": "x" * 10_000})).status == 200
    missing = await board.api.mutate("comments.create", {"itemId": "itm_nope", "body": "hi"})
    assert missing.status == 404
    assert (await board.api.query("comments.list", {"itemId": item["id"], "limit": 201})).status == 400
    assert (await board.api.query("comments.list", {"itemId": item["id"], "cursor": "nope"})).status == 400


async def test_stored_html_is_never_executable(board: Board) -> None:
    item = await board.add_item()
    bodies = ["<script>alert(document.cookie)</script>", "<img src=x onerror=alert(1)>",
              "[x](javascript:alert(1))", "[click](JAVASCRIPT:alert)",
              '[a" onmouseover="alert(1)](https://example.com/"onclick="alert(1))',
              "[<img src=x onerror=alert(1)>](https://example.com/x'><script>)",
              "```\" onclick=\"alert(1)\n</code><script>alert(1)</script>\n```"]
    for body in bodies:
        created = await comment(board.api, item["id"], body)
        assert created["body"] == body
        assert_inert(created["bodyHtml"])
        assert "<script" not in created["bodyHtml"] and "<img" not in created["bodyHtml"]
    safe = await comment(board.api, item["id"], '[spec](https://example.com/?a="b")')
    assert safe["bodyHtml"] == ('<p><a href="https://example.com/?a=&quot;b&quot;" '
                                'rel="nofollow noopener noreferrer">spec</a></p>')


async def test_mentions_notify_members_but_not_the_author_or_strangers(board: Board, client: Any) -> None:
    org = board.org
    bea_id, bea = await org.add_user("member", name="Bea Member")
    stranger = await make_org(client)
    item = await board.add_item("Guard missing")
    created = await comment(org.owner, item["id"],
                            f"@{bea_id} please check, cc @{org.owner_id} and @{stranger.owner_id}")
    assert created["mentions"] == [bea_id, org.owner_id]
    assert f'data-user-id="{bea_id}"' in created["bodyHtml"]
    assert f'data-user-id="{stranger.owner_id}"' not in created["bodyHtml"]
    [note] = await mentions_of(bea)
    assert note["entityType"] == "item" and note["entityId"] == item["id"] and note["read"] is False
    assert "Olga Owner" in note["title"] and note["body"].startswith(f"@{bea_id} please check")
    assert await mentions_of(org.owner) == []
    assert await mentions_of(stranger.owner) == []

    # An edit notifies only the newly mentioned, including a member who joined a moment ago.
    cal_id, cal = await org.add_user("member", name="Cal Member")
    edited = await org.owner.mutate("comments.update", {"id": created["id"],
                                                        "body": f"@{bea_id} and @{cal_id}: please check"})
    assert edited.status == 200, edited.body
    assert edited.data["mentions"] == [bea_id, cal_id]
    assert len(await mentions_of(bea)) == 1
    assert [n["entityId"] for n in await mentions_of(cal)] == [item["id"]]


async def test_reactions_toggle_and_notify_nobody(board: Board) -> None:
    org = board.org
    bea_id, bea = await org.add_user("member")
    item = await board.add_item()
    created = await comment(org.owner, item["id"], "Shift handover done")

    async def react(api: Api, emoji: str) -> Any:
        return await api.mutate("comments.react", {"commentId": created["id"], "emoji": emoji})

    assert (await react(bea, "thumbsup")).data["reactions"] == [{"emoji": "thumbsup", "users": [bea_id]}]
    both = await react(org.owner, "thumbsup")
    assert both.data["reactions"] == [{"emoji": "thumbsup", "users": [bea_id, org.owner_id]}]
    assert (await react(org.owner, "rocket")).data["reactions"] == [
        {"emoji": "thumbsup", "users": [bea_id, org.owner_id]}, {"emoji": "rocket", "users": [org.owner_id]}]
    assert (await react(bea, "thumbsup")).data["reactions"] == [
        {"emoji": "thumbsup", "users": [org.owner_id]}, {"emoji": "rocket", "users": [org.owner_id]}]
    await react(org.owner, "rocket")
    listed = await org.owner.query("comments.list", {"itemId": item["id"]})
    assert listed.data["comments"][0]["reactions"] == [{"emoji": "thumbsup", "users": [org.owner_id]}]
    bad = await react(bea, "skull")
    assert bad.status == 400 and bad.error["data"]["details"][0]["field"] == "emoji"
    for api in (org.owner, bea):
        assert (await api.query("notifications.unreadCount")).data["count"] == 0
    updates = [e for e in await board_events(board) if e["event"] == "comment.updated"]
    assert len(updates) == 5 and "reactions" in updates[0]["data"]["changes"]


async def test_only_the_author_may_edit(clocked_client: Any, clock: ManualClock) -> None:
    org = await make_org(clocked_client)
    board = await make_board(org)
    _, bea = await org.add_user("member")
    _, admin = await org.add_user("admin")
    item = await board.add_item()
    mine = await comment(org.owner, item["id"], "First *draft*")
    clock.advance(60)
    refused = await bea.mutate("comments.update", {"id": mine["id"], "body": "hijacked"})
    assert refused.status == 403 and refused.error["data"]["code"] == "FORBIDDEN"
    theirs = await comment(bea, item["id"], "Bea's note")
    assert (await admin.mutate("comments.update", {"id": theirs["id"], "body": "edited"})).status == 403
    edited = await org.owner.mutate("comments.update", {"id": mine["id"], "body": "Final **text**"})
    assert edited.status == 200, edited.body
    assert edited.data["body"] == "Final **text**" and edited.data["bodyHtml"] == "<p>Final <strong>text</strong></p>"
    assert edited.data["createdAt"] == mine["createdAt"]
    assert edited.data["updatedAt"] == iso(clock.now()) != mine["updatedAt"]
    [event] = [e for e in await board_events(board) if e["event"] == "comment.updated"]
    assert event["data"]["changes"]["body"] == {"old": "First *draft*", "new": "Final **text**"}
    assert (await org.owner.mutate("comments.update", {"id": "cmt_nope", "body": "x"})).status == 404


async def test_delete_rules_and_replies_go_with_their_comment(board: Board) -> None:
    org = board.org
    _, bea = await org.add_user("member")
    _, cal = await org.add_user("member")
    _, admin = await org.add_user("admin")
    item = await board.add_item()
    beas = await comment(bea, item["id"], "Bea's")
    assert (await cal.mutate("comments.delete", {"id": beas["id"]})).status == 403
    deleted = await bea.mutate("comments.delete", {"id": beas["id"]})
    assert deleted.status == 200 and deleted.data == {"success": True, "id": beas["id"]}
    assert (await bea.mutate("comments.delete", {"id": beas["id"]})).status == 404

    owners = await comment(org.owner, item["id"], "Owner's")
    reply = await comment(cal, item["id"], "a reply", parentId=owners["id"])
    assert (await bea.mutate("comments.delete", {"id": owners["id"]})).status == 403
    assert (await admin.mutate("comments.delete", {"id": owners["id"]})).status == 200
    assert (await org.owner.query("comments.replies", {"commentId": owners["id"]})).status == 404
    assert (await org.owner.mutate("comments.react", {"commentId": reply["id"], "emoji": "eyes"})).status == 404
    assert (await org.owner.query("items.get", {"id": item["id"]})).data["commentCount"] == 0
    [event] = [e for e in await board_events(board) if e["event"] == "comment.deleted"
               and e["data"]["comment"]["id"] == owners["id"]]
    assert event["data"]["deletedIds"] == [owners["id"], reply["id"]]


async def test_threads_are_one_level_and_read_oldest_first(clocked_client: Any, clock: ManualClock) -> None:
    board = await make_board(await make_org(clocked_client))
    item = await board.add_item()
    other_item = await board.add_item("Other")
    top = await comment(board.api, item["id"], "Why did it stop?")
    replies = []
    for n in range(3):
        clock.advance(1)
        replies.append(await comment(board.api, item["id"], f"Why {n}", parentId=top["id"]))
    got = await board.api.query("comments.replies", {"commentId": top["id"]})
    assert got.status == 200, got.body
    assert [r["id"] for r in got.data["replies"]] == [r["id"] for r in replies]
    assert all(r["parentId"] == top["id"] and r["author"]["name"] == "Olga Owner" for r in got.data["replies"])
    listed = await board.api.query("comments.list", {"itemId": item["id"]})
    assert [c["id"] for c in listed.data["comments"]] == [top["id"]]
    assert listed.data["comments"][0]["replyCount"] == 3
    assert (await board.api.query("items.get", {"id": item["id"]})).data["commentCount"] == 4
    page = await board.api.query("comments.replies", {"commentId": top["id"], "limit": 2})
    rest = await board.api.query("comments.replies", {"commentId": top["id"], "cursor": page.data["nextCursor"]})
    assert [r["id"] for r in page.data["replies"] + rest.data["replies"]] == [r["id"] for r in replies]

    nested = await board.api.mutate("comments.create", {"itemId": item["id"], "body": "x",
                                                        "parentId": replies[0]["id"]})
    assert nested.status == 400 and nested.error["data"]["details"][0]["field"] == "parentId"
    elsewhere = await board.api.mutate("comments.create", {"itemId": other_item["id"], "body": "x",
                                                           "parentId": top["id"]})
    assert elsewhere.status == 400 and elsewhere.error["data"]["details"][0]["field"] == "parentId"
    unknown = await board.api.mutate("comments.create", {"itemId": item["id"], "body": "x", "parentId": "cmt_no"})
    assert unknown.status == 404


async def test_pinned_first_then_newest_first_in_pages(clocked_client: Any, clock: ManualClock) -> None:
    board = await make_board(await make_org(clocked_client))
    item = await board.add_item()
    made = []
    for n in range(5):
        clock.advance(1)
        made.append(await comment(board.api, item["id"], f"note {n}"))
    pinned = await board.api.mutate("comments.pin", {"id": made[1]["id"], "pinned": True})
    assert pinned.status == 200 and pinned.data["isPinned"] is True
    expected = [made[1]["id"], made[4]["id"], made[3]["id"], made[2]["id"], made[0]["id"]]
    seen: list[str] = []
    cursor = None
    while True:
        page = await board.api.query("comments.list", {"itemId": item["id"], "limit": 2,
                                                       **({"cursor": cursor} if cursor else {})})
        assert page.status == 200, page.body
        seen += [c["id"] for c in page.data["comments"]]
        cursor = page.data.get("nextCursor")
        if not cursor:
            break
    assert seen == expected
    unpinned = await board.api.mutate("comments.pin", {"id": made[1]["id"], "pinned": False})
    assert unpinned.data["isPinned"] is False
    listed = await board.api.query("comments.list", {"itemId": item["id"]})
    assert [c["id"] for c in listed.data["comments"]] == [m["id"] for m in reversed(made)]
    reply = await comment(board.api, item["id"], "re", parentId=made[0]["id"])
    assert (await board.api.mutate("comments.pin", {"id": reply["id"], "pinned": True})).status == 400
    assert (await board.api.mutate("comments.pin", {"id": made[0]["id"]})).status == 400


async def test_another_organizations_item_and_comments_are_not_found(board: Board, client: Any) -> None:
    other_org: Org = await make_org(client)
    other = await make_board(other_org)
    their_item = await other.add_item()
    their_comment = await comment(other.api, their_item["id"], "private")
    api = board.api
    assert (await api.query("comments.list", {"itemId": their_item["id"]})).status == 404
    assert (await api.mutate("comments.create", {"itemId": their_item["id"], "body": "hi"})).status == 404
    cid = their_comment["id"]
    for name, data in (("comments.replies", {"commentId": cid}), ("comments.update", {"id": cid, "body": "x"}),
                       ("comments.delete", {"id": cid}), ("comments.pin", {"id": cid, "pinned": True}),
                       ("comments.react", {"commentId": cid, "emoji": "heart"})):
        call = api.query if name == "comments.replies" else api.mutate
        reply = await call(name, data)
        assert reply.status == 404, (name, reply.body)
    untouched = await other.api.query("comments.list", {"itemId": their_item["id"]})
    assert untouched.data["comments"] == [their_comment]


async def test_comments_of_a_trashed_item_are_out_of_reach(board: Board) -> None:
    item = await board.add_item()
    created = await comment(board.api, item["id"], "before the trash")
    assert (await board.api.mutate("items.delete", {"id": item["id"]})).status == 200
    assert (await board.api.query("comments.list", {"itemId": item["id"]})).status == 404
    assert (await board.api.mutate("comments.pin", {"id": created["id"], "pinned": True})).status == 404
    assert (await board.api.mutate("items.restore", {"id": item["id"]})).status == 200
    listed = await board.api.query("comments.list", {"itemId": item["id"]})
    assert [c["id"] for c in listed.data["comments"]] == [created["id"]]
