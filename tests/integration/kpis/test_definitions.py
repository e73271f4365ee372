"""KPI definitions: define, get, list, listByCategory, update, delete through the KPI actor;
their events on the KPI's and the board's streams and their activity entries; the inputs refused with the
field named; the plan's feature gate, the roles, and other organizations' KPIs."""

from __future__ import annotations

import re
from typing import Any

from aiohttp.test_utils import TestClient

from tests.harness import Org, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.kpis.conftest import define, events_on, kpi_input, pool_of, set_value

ISO_MILLIS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
FULL_BANDS_UP = {"green": {"min": 90.0, "max": None}, "amber": {"min": 80.0, "max": 90.0},
                 "red": {"min": None, "max": 80.0}}


async def test_define_answers_the_kpi_and_lists_it(board: Board) -> None:
    org = board.org
    kpi = await define(board, responsibleUserId=org.owner_id)
    assert kpi["id"].startswith("kpi_") and kpi["boardId"] == board.id
    assert (kpi["name"], kpi["category"], kpi["direction"], kpi["frequency"], kpi["unit"]) == (
        "On-time delivery", "delivery", "higher_is_better", "daily", "%")
    assert kpi["thresholds"] == FULL_BANDS_UP
    assert kpi["responsibleUserId"] == org.owner_id
    assert kpi["responsibleUser"] == {"id": org.owner_id, "name": "Olga Owner"}
    assert kpi["latestValue"] is None and kpi["target"] is None and kpi["version"] == 1
    assert kpi["createdBy"] == org.owner_id and ISO_MILLIS.match(kpi["createdAt"])

    listed = await board.api.query("kpis.list", {"boardId": board.id})
    assert listed.status == 200, listed.body
    assert listed.data["kpis"] == [kpi] and listed.data["nextCursor"] is None
    got = await board.api.query("kpis.get", {"id": kpi["id"]})
    assert got.status == 200 and got.data == kpi


async def test_list_shows_latest_value_target_and_responsible_user(board: Board) -> None:
    user_id, _ = await board.org.add_user("member", name="Rita Responsible")
    kpi = await define(board, responsibleUserId=user_id)
    await set_value(board.api, kpi["id"], 93.5)
    value = await set_value(board.api, kpi["id"], 85)
    target = await board.api.mutate("kpis.setTarget", {"kpiId": kpi["id"], "value": 95, "deadline": "2027-06-30"})
    assert target.status == 200, target.body

    [listed] = (await board.api.query("kpis.list", {"boardId": board.id})).data["kpis"]
    assert listed["latestValue"] == {"value": 85, "status": "amber", "recordedAt": value["recordedAt"]}
    assert listed["target"]["value"] == 95 and listed["target"]["deadline"] == "2027-06-30"
    assert listed["responsibleUser"] == {"id": user_id, "name": "Rita Responsible"}
    got = await board.api.query("kpis.get", {"id": kpi["id"]})
    assert got.data == listed


async def test_a_responsible_user_who_left_stays_named(board: Board) -> None:
    user_id, _ = await board.org.add_user("member", name="Rita Responsible")
    kpi = await define(board, responsibleUserId=user_id)
    removed = await board.org.owner.mutate("organizations.members.remove", {"userId": user_id})
    assert removed.status == 200, removed.body
    got = await board.api.query("kpis.get", {"id": kpi["id"]})
    assert got.data["responsibleUser"] == {"id": user_id, "name": "Rita Responsible"}
    assert (await board.api.query("kpis.list", {"boardId": board.id})).data["kpis"] == [got.data]
    renamed = await board.api.mutate("kpis.update", {"id": kpi["id"], "name": "OTD"})
    assert renamed.data["responsibleUser"] == got.data["responsibleUser"]
    again = await board.api.mutate("kpis.update", {"id": kpi["id"], "responsibleUserId": user_id})
    assert again.status == 400 and again.error["data"]["details"][0]["field"] == "responsibleUserId"


async def test_list_pages_newest_first(board: Board) -> None:
    ids = [(await define(board, name=f"KPI {n}"))["id"] for n in range(3)]
    first = await board.api.query("kpis.list", {"boardId": board.id, "limit": 2})
    assert [k["id"] for k in first.data["kpis"]] == ids[::-1][:2] and first.data["nextCursor"]
    rest = await board.api.query("kpis.list", {"boardId": board.id, "limit": 2,
                                               "cursor": first.data["nextCursor"]})
    assert [k["id"] for k in rest.data["kpis"]] == [ids[0]] and rest.data["nextCursor"] is None
    bad = await board.api.query("kpis.list", {"boardId": board.id, "limit": 201})
    assert bad.status == 400 and bad.error["data"]["details"][0]["field"] == "limit"


async def test_list_by_category_has_every_sqcdp_key(board: Board) -> None:
    empty = await board.api.query("kpis.listByCategory", {"boardId": board.id})
    assert empty.status == 200 and empty.data == {"safety": [], "quality": [], "cost": [], "delivery": [],
                                                  "people": []}
    safety = await define(board, name="Recordable injuries", category="safety", direction="lower_is_better")
    scrap = await define(board, name="Scrap rate", category="quality")
    grouped = (await board.api.query("kpis.listByCategory", {"boardId": board.id})).data
    assert [k["id"] for k in grouped["safety"]] == [safety["id"]]
    assert [k["id"] for k in grouped["quality"]] == [scrap["id"]]
    assert grouped["cost"] == grouped["delivery"] == grouped["people"] == []


async def test_update_changes_the_definition_and_guards_the_version(board: Board) -> None:
    kpi = await define(board)
    updated = await board.api.mutate("kpis.update", {"id": kpi["id"], "name": "OTD", "unit": None,
                                                     "thresholds": {"green": {"min": 95}}, "frequency": "weekly",
                                                     "expectedVersion": 1})
    assert updated.status == 200, updated.body
    assert (updated.data["name"], updated.data["unit"], updated.data["frequency"], updated.data["version"]) == (
        "OTD", None, "weekly", 2)
    assert updated.data["thresholds"] == {"green": {"min": 95.0, "max": None}, "amber": None, "red": None}
    assert updated.data["category"] == "delivery"  # not named: unchanged

    stale = await board.api.mutate("kpis.update", {"id": kpi["id"], "name": "Late", "expectedVersion": 1})
    assert stale.status == 409 and stale.error["data"]["code"] == "CONFLICT"
    assert stale.error["data"]["currentVersion"] == 2
    same = await board.api.mutate("kpis.update", {"id": kpi["id"], "name": "OTD"})
    assert same.status == 200 and same.data["version"] == 2  # nothing changed, nothing written

    cleared = await board.api.mutate("kpis.update", {"id": kpi["id"], "thresholds": None})
    assert cleared.status == 200 and cleared.data["thresholds"] is None and cleared.data["version"] == 3


async def test_definition_events_go_to_the_kpi_and_board_streams(board: Board) -> None:
    org = board.org
    kpi = await define(board)
    await board.api.mutate("kpis.update", {"id": kpi["id"], "name": "OTD"})
    on_kpi = await events_on(org, f"kpi:{kpi['id']}")
    on_board = [(name, payload) for name, payload in await events_on(org, f"board:{board.id}")
                if name.startswith("kpi.")]
    assert [name for name, _ in on_kpi] == ["kpi.created", "kpi.updated"]
    assert on_board == on_kpi
    created, updated = on_kpi[0][1], on_kpi[1][1]
    assert created["organizationId"] == org.id and created["apiVersion"] == "v1"
    assert created["data"]["kpi"] == {name: value for name, value in kpi.items() if name != "responsibleUser"}
    assert created["data"]["actor"] == {"id": org.owner_id, "email": org.owner_email}
    assert updated["data"]["changes"] == {"name": {"old": "On-time delivery", "new": "OTD"}}

    trail = await org.owner.rest("GET", "/api/v1/audit/entity", params={"entityType": "kpi",
                                                                        "entityId": kpi["id"]})
    assert trail.status == 200, trail.body
    assert [entry["action"] for entry in trail.data] == ["kpi.updated", "kpi.created"]


async def test_delete_removes_values_targets_and_alerts(board: Board) -> None:
    org = board.org
    kpi = await define(board, responsibleUserId=org.owner_id)
    await set_value(board.api, kpi["id"], 50)  # red: an alert
    await board.api.mutate("kpis.setTarget", {"kpiId": kpi["id"], "value": 95, "deadline": "2027-01-31"})
    deleted = await board.api.mutate("kpis.delete", {"id": kpi["id"]})
    assert deleted.status == 200 and deleted.data == {"success": True, "id": kpi["id"]}

    pool = pool_of(org)
    for table in ("kpi_values", "kpi_targets", "kpi_alerts"):
        assert await pool.fetchval(f"SELECT count(*) FROM {table} WHERE kpi_id = $1", kpi["id"]) == 0, table
    assert await pool.fetchval("SELECT count(*) FROM kpis WHERE id = $1", kpi["id"]) == 0
    for name, payload in (("kpis.get", {"id": kpi["id"]}), ("kpis.getValue", {"kpiId": kpi["id"]})):
        assert (await board.api.query(name, payload)).status == 404, name
    again = await board.api.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 1})
    assert again.status == 404
    assert (await board.api.query("kpis.list", {"boardId": board.id})).data["kpis"] == []
    assert (await events_on(org, f"kpi:{kpi['id']}"))[-1][0] == "kpi.deleted"
    assert (await events_on(org, f"board:{board.id}"))[-1][0] == "kpi.deleted"


async def _refused_field(board: Board, **fields: Any) -> str:
    reply = await board.api.mutate("kpis.define", kpi_input(board.id, **fields))
    assert reply.status == 400, (fields, reply.body)
    assert reply.error["data"]["code"] == "BAD_REQUEST"
    return str(reply.error["data"]["details"][0]["field"])


async def test_bad_definitions_are_refused_naming_the_field(board: Board) -> None:
    assert await _refused_field(board, name="") == "name"
    assert await _refused_field(board, name="x" * 201) == "name"
    assert await _refused_field(board, category="speed") == "category"
    assert await _refused_field(board, direction="up") == "direction"
    assert await _refused_field(board, frequency="hourly") == "frequency"
    assert await _refused_field(board, thresholds={"green": {"min": "high"}}) == "thresholds.green.min"
    assert await _refused_field(board, thresholds={"amber": {"min": 90, "max": 80}}) == "thresholds.amber.min"
    assert await _refused_field(board, thresholds={"red": {"max": 1e16}}) == "thresholds.red.max"
    outsider = await make_org(board.api.client)
    assert await _refused_field(board, responsibleUserId=outsider.owner_id) == "responsibleUserId"
    assert await _refused_field(board, responsibleUserId="usr_nobody") == "responsibleUserId"
    assert (await define(board, name="x" * 200))["name"] == "x" * 200
    kpi = await define(board)
    bad = await board.api.mutate("kpis.update", {"id": kpi["id"], "thresholds": {"green": {"min": 5, "max": 1}}})
    assert bad.status == 400 and bad.error["data"]["details"][0]["field"] == "thresholds.green.min"
    bad = await board.api.mutate("kpis.update", {"id": kpi["id"], "responsibleUserId": outsider.owner_id})
    assert bad.status == 400 and bad.error["data"]["details"][0]["field"] == "responsibleUserId"
    bad = await board.api.mutate("kpis.update", {"id": kpi["id"], "name": None})
    assert bad.status == 400 and bad.error["data"]["details"][0]["field"] == "name"
    assert (await board.api.query("kpis.get", {"id": kpi["id"]})).data["version"] == 1


async def test_the_free_plan_has_no_kpis(client: TestClient) -> None:
    org = await make_org(client, plan="free")
    board = await make_board(org)
    for reply in (await org.owner.mutate("kpis.define", kpi_input(board.id)),
                  await org.owner.query("kpis.list", {"boardId": board.id}),
                  await org.owner.rest("GET", "/api/v1/kpis", params={"boardId": board.id})):
        assert reply.status == 403, reply.body
    starter = await make_org(client, plan="starter")
    assert (await starter.owner.mutate("kpis.define", kpi_input((await make_board(starter)).id))).status == 200


async def test_guests_read_but_do_not_write(board: Board) -> None:
    org = board.org
    kpi = await define(board)
    guest_id, guest = await org.add_user("guest")
    workspace = (await org.owner.query("projects.get", {"id": board.project_id})).data["workspaceId"]
    added = await org.owner.mutate("workspaces.members.add", {"workspaceId": workspace, "userId": guest_id,
                                                              "role": "member"})
    assert added.status == 200, added.body
    assert (await guest.query("kpis.get", {"id": kpi["id"]})).status == 200
    assert (await guest.query("kpis.list", {"boardId": board.id})).status == 200
    for name, payload in (("kpis.define", kpi_input(board.id)), ("kpis.update", {"id": kpi["id"], "name": "x"}),
                          ("kpis.setValue", {"kpiId": kpi["id"], "value": 1}),
                          ("kpis.setTarget", {"kpiId": kpi["id"], "value": 1, "deadline": "2027-01-01"}),
                          ("kpis.delete", {"id": kpi["id"]})):
        reply = await guest.mutate(name, payload)
        assert reply.status == 403 and reply.error["data"]["code"] == "FORBIDDEN", name
    _, member = await org.add_user("member")
    assert (await member.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 91})).status == 200


async def test_another_organizations_kpi_is_not_found(board: Board) -> None:
    kpi = await define(board)
    other = await make_org(board.api.client)
    for name, payload in (("kpis.get", {"id": kpi["id"]}), ("kpis.getValue", {"kpiId": kpi["id"]}),
                          ("kpis.getHistory", {"kpiId": kpi["id"]}), ("kpis.getTargets", {"kpiId": kpi["id"]}),
                          ("kpis.list", {"boardId": board.id}), ("kpis.listByCategory", {"boardId": board.id}),
                          ("kpis.getAlerts", {"boardId": board.id})):
        assert (await other.owner.query(name, payload)).status == 404, name
    for name, payload in (("kpis.update", {"id": kpi["id"], "name": "x"}), ("kpis.delete", {"id": kpi["id"]}),
                          ("kpis.setValue", {"kpiId": kpi["id"], "value": 1}),
                          ("kpis.setTarget", {"kpiId": kpi["id"], "value": 1, "deadline": "2027-01-01"}),
                          ("kpis.define", kpi_input(board.id))):
        assert (await other.owner.mutate(name, payload)).status == 404, name
    assert (await board.api.query("kpis.get", {"id": kpi["id"]})).data["version"] == 1


async def test_a_kpi_on_a_board_the_member_may_not_see_is_not_found(org: Org) -> None:
    workspace = await org.owner.mutate("workspaces.create", {"name": "Closed", "visibility": "closed"})
    project = await org.owner.mutate("projects.create", {"workspaceId": workspace.data["id"], "name": "P"})
    hidden = await org.owner.mutate("boards.create", {"projectId": project.data["id"], "name": "Hidden"})
    kpi = (await org.owner.mutate("kpis.define", kpi_input(hidden.data["id"]))).data
    _, member = await org.add_user("member")
    assert (await member.query("kpis.get", {"id": kpi["id"]})).status == 404
    assert (await member.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 1})).status == 404


async def test_rest_collection(board: Board) -> None:
    api = board.api
    created = await api.rest("POST", "/api/v1/kpis", kpi_input(board.id))
    assert created.status == 201, created.body
    kpi = created.data
    assert kpi["id"].startswith("kpi_") and kpi["thresholds"] == FULL_BANDS_UP

    listed = await api.rest("GET", "/api/v1/kpis", params={"boardId": board.id})
    assert listed.status == 200 and listed.data == [kpi]
    assert listed.body["meta"] == {"cursor": None, "has_more": False, "limit": 50}
    got = await api.rest("GET", f"/api/v1/kpis/{kpi['id']}")
    assert got.status == 200 and got.data == kpi
    patched = await api.rest("PATCH", f"/api/v1/kpis/{kpi['id']}", {"name": "OTD"})
    assert patched.status == 200 and patched.data["name"] == "OTD"

    value = await api.rest("POST", f"/api/v1/kpis/{kpi['id']}/values", {"value": 97.5, "comment": "shift A"})
    assert value.status == 201, value.body
    assert (value.data["value"], value.data["status"], value.data["comment"]) == (97.5, "green", "shift A")
    history = await api.rest("GET", f"/api/v1/kpis/{kpi['id']}/values", params={"limit": "10"})
    assert history.status == 200 and history.data["history"] == [{k: v for k, v in value.data.items()
                                                                  if k != "alert"}]

    invalid = await api.rest("POST", "/api/v1/kpis", kpi_input(board.id, thresholds={"red": {"min": 9, "max": 1}}))
    assert invalid.status == 422 and invalid.body["error"]["code"] == "VALIDATION_ERROR"
    assert invalid.body["error"]["details"][0]["field"] == "thresholds.red.min"
    assert (await api.rest("GET", "/api/v1/kpis/kpi_missing")).status == 404

    deleted = await api.rest("DELETE", f"/api/v1/kpis/{kpi['id']}")
    assert deleted.status == 200 and deleted.data == {"success": True, "id": kpi["id"]}
    assert (await api.rest("GET", f"/api/v1/kpis/{kpi['id']}")).status == 404


async def test_thresholds_keep_the_bands_given(board: Board) -> None:
    kpi = await define(board, thresholds={"red": {"max": 80}})
    assert kpi["thresholds"] == {"green": None, "amber": None, "red": {"min": None, "max": 80.0}}
    assert (await define(board, thresholds={}))["thresholds"] is None
    assert (await define(board, thresholds=None))["thresholds"] is None
