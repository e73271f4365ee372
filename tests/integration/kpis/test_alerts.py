"""Alerts: a value in amber or red raises an alert, notifies the responsible user and emits
`kpi.target_breached`; a repeated breach does not raise another while one as bad is open; a green value
resolves the open ones; acknowledge and resolve move them by hand; getAlerts filters and pages them."""

from __future__ import annotations

from typing import Any

from tests.harness import Api, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.kpis.conftest import define, events_on, pool_of, set_value


async def alerts(board: Board, **filters: Any) -> list[dict[str, Any]]:
    reply = await board.api.query("kpis.getAlerts", {"boardId": board.id, **filters})
    assert reply.status == 200, reply.body
    return list(reply.data["alerts"])


async def notifications(api: Api) -> list[dict[str, Any]]:
    reply = await api.rest("GET", "/api/v1/notifications")
    assert reply.status == 200, reply.body
    return list(reply.data["notifications"])


async def test_a_breach_raises_an_alert_notifies_and_emits(board: Board) -> None:
    org = board.org
    user_id, responsible = await org.add_user("member", name="Rita Responsible")
    kpi = await define(board, responsibleUserId=user_id)
    value = await set_value(board.api, kpi["id"], 72.5)
    assert value["status"] == "red"
    alert = value["alert"]
    assert alert["id"].startswith("alt_")
    assert {k: alert[k] for k in ("kpiId", "kpiName", "boardId", "value", "threshold", "status")} == {
        "kpiId": kpi["id"], "kpiName": "On-time delivery", "boardId": board.id, "value": 72.5, "threshold": "red",
        "status": "active"}
    assert alert["triggeredAt"] == value["recordedAt"]
    assert await alerts(board) == [alert]

    [note] = await notifications(responsible)
    assert (note["type"], note["entityType"], note["entityId"], note["read"]) == ("kpi_breach", "kpi", kpi["id"],
                                                                                  False)
    assert note["title"] == "On-time delivery is red" and "72.5 %" in note["body"]
    [(name, created)] = await events_on(org, f"user:{org.id}:{user_id}")
    assert name == "notification.created" and created["data"]["id"] == note["id"]

    on_kpi = await events_on(org, f"kpi:{kpi['id']}")
    assert [name for name, _ in on_kpi] == ["kpi.created", "kpi.value_entered", "kpi.target_breached"]
    breached = on_kpi[-1][1]["data"]
    assert breached["alert"] == alert and breached["value"]["value"] == 72.5
    assert breached["kpi"]["id"] == kpi["id"]
    on_board = [name for name, _ in await events_on(org, f"board:{board.id}") if name.startswith("kpi.")]
    assert on_board == ["kpi.created", "kpi.value_entered", "kpi.target_breached"]


async def test_amber_is_a_breach_too(board: Board) -> None:
    kpi = await define(board, responsibleUserId=board.org.owner_id)
    value = await set_value(board.api, kpi["id"], 85)
    assert value["status"] == "amber" and value["alert"]["threshold"] == "amber"
    assert [n["type"] for n in await notifications(board.api)] == ["kpi_breach"]


async def test_an_open_alert_as_bad_is_not_raised_again(board: Board) -> None:
    kpi = await define(board, responsibleUserId=board.org.owner_id)
    amber = (await set_value(board.api, kpi["id"], 85))["alert"]
    assert (await set_value(board.api, kpi["id"], 84))["alert"] is None  # amber again: the amber alert stands
    red = (await set_value(board.api, kpi["id"], 70))["alert"]            # worse: a red alert
    assert red["threshold"] == "red"
    assert (await set_value(board.api, kpi["id"], 60))["alert"] is None   # red again
    assert (await set_value(board.api, kpi["id"], 85))["alert"] is None   # amber while red is open
    assert [a["id"] for a in await alerts(board)] == [red["id"], amber["id"]]
    assert len(await notifications(board.api)) == 2
    breaches = [n for n, _ in await events_on(board.org, f"kpi:{kpi['id']}") if n == "kpi.target_breached"]
    assert len(breaches) == 2


async def test_a_green_value_resolves_the_open_alerts(board: Board) -> None:
    kpi = await define(board)
    amber = (await set_value(board.api, kpi["id"], 85))["alert"]
    red = (await set_value(board.api, kpi["id"], 70))["alert"]
    acknowledged = await board.api.mutate("kpis.acknowledgeAlert", {"alertId": amber["id"]})
    assert acknowledged.status == 200, acknowledged.body
    green = await set_value(board.api, kpi["id"], 95)
    assert green["alert"] is None
    resolved = await alerts(board, status="resolved")
    assert {a["id"] for a in resolved} == {amber["id"], red["id"]}
    assert all(a["resolvedAt"] == green["recordedAt"] and a["resolvedBy"] is None for a in resolved)
    assert await alerts(board, status="active") == [] and await alerts(board, status="acknowledged") == []
    updates = [p["data"] for n, p in await events_on(board.org, f"kpi:{kpi['id']}") if n == "kpi.alert_updated"]
    assert [(u["alert"]["status"], u["automatic"]) for u in updates] == [
        ("acknowledged", False), ("resolved", True), ("resolved", True)]
    again = (await set_value(board.api, kpi["id"], 70))["alert"]  # a new breach after resolution: a new alert
    assert again["id"] not in (amber["id"], red["id"]) and again["status"] == "active"


async def test_acknowledge_then_resolve(board: Board) -> None:
    org = board.org
    kpi = await define(board)
    alert = (await set_value(board.api, kpi["id"], 50))["alert"]
    _, member = await org.add_user("member")
    acknowledged = await member.mutate("kpis.acknowledgeAlert", {"alertId": alert["id"]})
    assert acknowledged.status == 200, acknowledged.body
    assert acknowledged.data["status"] == "acknowledged" and acknowledged.data["acknowledgedBy"] is not None
    twice = await board.api.mutate("kpis.acknowledgeAlert", {"alertId": alert["id"]})
    assert twice.status == 200 and twice.data == acknowledged.data  # already acknowledged: unchanged

    resolved = await board.api.mutate("kpis.resolveAlert", {"alertId": alert["id"]})
    assert resolved.status == 200, resolved.body
    assert (resolved.data["status"], resolved.data["resolvedBy"]) == ("resolved", org.owner_id)
    assert resolved.data["acknowledgedAt"] == acknowledged.data["acknowledgedAt"]
    again = await board.api.mutate("kpis.resolveAlert", {"alertId": alert["id"]})
    assert again.status == 200 and again.data == resolved.data  # resolving twice changes nothing
    late = await board.api.mutate("kpis.acknowledgeAlert", {"alertId": alert["id"]})
    assert late.status == 400 and late.error["data"]["details"][0]["field"] == "alertId"

    direct = (await set_value(board.api, kpi["id"], 40))["alert"]
    closed = await board.api.mutate("kpis.resolveAlert", {"alertId": direct["id"]})  # active -> resolved
    assert closed.status == 200 and closed.data["status"] == "resolved" and closed.data["acknowledgedAt"] is None

    trail = await org.owner.rest("GET", "/api/v1/audit/entity", params={"entityType": "kpi", "entityId": kpi["id"]})
    actions = [entry["action"] for entry in trail.data]
    assert actions.count("kpi.alert_acknowledged") == 1 and actions.count("kpi.alert_resolved") == 2


async def test_who_may_move_an_alert(board: Board) -> None:
    org = board.org
    kpi = await define(board)
    alert = (await set_value(board.api, kpi["id"], 50))["alert"]
    guest_id, guest = await org.add_user("guest")
    workspace = (await org.owner.query("projects.get", {"id": board.project_id})).data["workspaceId"]
    await org.owner.mutate("workspaces.members.add", {"workspaceId": workspace, "userId": guest_id, "role": "member"})
    assert [a["id"] for a in (await guest.query("kpis.getAlerts", {"boardId": board.id})).data["alerts"]] == [
        alert["id"]]
    for name in ("kpis.acknowledgeAlert", "kpis.resolveAlert"):
        assert (await guest.mutate(name, {"alertId": alert["id"]})).status == 403, name
    other = await make_org(board.api.client)
    for name in ("kpis.acknowledgeAlert", "kpis.resolveAlert"):
        assert (await other.owner.mutate(name, {"alertId": alert["id"]})).status == 404, name
        assert (await board.api.mutate(name, {"alertId": "alt_doesnotexist000000"})).status == 404, name
    assert (await alerts(board))[0]["status"] == "active"


async def test_get_alerts_filters_and_pages(board: Board) -> None:
    first = await define(board, name="First")
    second = await define(board, name="Second")
    a1 = (await set_value(board.api, first["id"], 50))["alert"]
    a2 = (await set_value(board.api, second["id"], 85))["alert"]
    a3 = (await set_value(board.api, second["id"], 50))["alert"]
    await board.api.mutate("kpis.acknowledgeAlert", {"alertId": a1["id"]})
    assert [a["id"] for a in await alerts(board)] == [a3["id"], a2["id"], a1["id"]]
    assert [a["id"] for a in await alerts(board, kpiId=second["id"])] == [a3["id"], a2["id"]]
    assert [a["id"] for a in await alerts(board, status="acknowledged")] == [a1["id"]]
    assert [a["id"] for a in await alerts(board, kpiId=second["id"], status="active")] == [a3["id"], a2["id"]]
    page = await board.api.query("kpis.getAlerts", {"boardId": board.id, "limit": 2})
    assert [a["id"] for a in page.data["alerts"]] == [a3["id"], a2["id"]]
    rest = await board.api.query("kpis.getAlerts", {"boardId": board.id, "limit": 2,
                                                    "cursor": page.data["nextCursor"]})
    assert [a["id"] for a in rest.data["alerts"]] == [a1["id"]] and rest.data["nextCursor"] is None

    missing = await board.api.query("kpis.getAlerts", {"kpiId": first["id"]})
    assert missing.status == 400 and missing.error["data"]["details"][0]["field"] == "boardId"
    bad = await board.api.query("kpis.getAlerts", {"boardId": board.id, "status": "open"})
    assert bad.status == 400 and bad.error["data"]["details"][0]["field"] == "status"
    elsewhere = await make_board(board.org)
    assert await alerts(elsewhere) == []


async def test_a_breach_without_a_responsible_user_notifies_nobody(board: Board) -> None:
    kpi = await define(board)
    assert (await set_value(board.api, kpi["id"], 50))["alert"]["status"] == "active"
    assert await notifications(board.api) == []


async def test_a_responsible_user_who_left_is_not_notified(board: Board) -> None:
    """The KPI keeps naming them, but what it records is no longer theirs to read."""
    org = board.org
    user_id, _ = await org.add_user("member", name="Rita Responsible")
    kpi = await define(board, responsibleUserId=user_id)
    removed = await org.owner.mutate("organizations.members.remove", {"userId": user_id})
    assert removed.status == 200, removed.body
    value = await set_value(board.api, kpi["id"], 50)
    assert value["alert"]["status"] == "active"
    assert (await board.api.query("kpis.get", {"id": kpi["id"]})).data["responsibleUserId"] == user_id
    assert await pool_of(org).fetchval("SELECT count(*) FROM notifications WHERE user_id = $1", user_id) == 0
    assert await events_on(org, f"user:{org.id}:{user_id}") == []
