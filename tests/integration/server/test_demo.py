"""`obeya demo`: one JSON object on standard output, the how-to on standard error, and an organization
whose people can sign in and find both boards filled, every change in the event log."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
from typing import Any

from server.demo import PEOPLE, TIER_1, TIER_1_KPIS, email_of
from tests.harness import Api, login
from tests.integration.server.test_public_url import localhost_browser

OBEYA = [sys.executable, "-m", "server.cli"]


async def _demo(database_url: str, *args: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OBEYA_")}
    env.update(OBEYA_DATABASE_URL=database_url, OBEYA_SERVICE_HOST="localhost")
    process = await asyncio.create_subprocess_exec(*OBEYA, "demo", *args, env=env, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    stdout, stderr = await asyncio.wait_for(process.communicate(), 90)
    assert process.returncode is not None
    return process.returncode, stdout.decode(), stderr.decode()


async def _all_items(api: Api, board_id: str) -> list[dict[str, Any]]:
    reply = await api.query("items.list", {"boardId": board_id, "limit": 200})
    assert reply.status == 200, reply.body
    assert reply.data["nextCursor"] is None
    return list(reply.data["items"])


async def test_demo_builds_an_organization_its_people_can_use(client: Any, database_url: str) -> None:
    slug = f"demo-{secrets.token_hex(4)}"
    port = client.server.port  # the running server's: the printed links lead to it
    code, stdout, stderr = await _demo(database_url, "--slug", slug, "--port", str(port))
    assert code == 0, stderr
    result = json.loads(stdout)  # one JSON document and nothing else
    assert result["slug"] == slug and result["host"] == f"{slug}.localhost"
    assert result["baseUrl"] == f"http://{slug}.localhost:{port}" and f"is ready: {result['baseUrl']}\n" in stderr
    async with localhost_browser() as browser, browser.post(
            f"{result['baseUrl']}/api/v1/auth/login",
            json={"email": result["users"][0]["email"], "password": result["password"]}) as signed_in:
        assert signed_in.status == 200, await signed_in.text()
    assert result["organizationId"].startswith("org_") and result["plan"] == "business"
    password = result["password"]
    assert len(password) >= 8
    assert [user["role"] for user in result["users"]] == ["owner", "member", "member", "guest"]
    assert all(user["email"].endswith(f"@{slug}.test") for user in result["users"])
    assert password in stderr and result["users"][0]["email"] in stderr and result["host"] in stderr
    # The cookie jar the README and the manual use, so that their examples follow the demo's sign-in.
    assert "curl -s -c obeya.cookies -H 'Content-Type: application/json' -d " in stderr
    assert f"curl -s -b obeya.cookies '{result['baseUrl']}/api/v1/items?boardId=" in stderr
    tier_1, backlog = result["boards"]
    assert (tier_1["name"], tier_1["items"]) == ("Line 3 – Daily Tier 1", len(TIER_1.items))
    assert (backlog["name"], backlog["items"]) == ("Maintenance backlog", 9)

    anonymous = Api(client, result["host"])
    owner_email, tom_email, _, guest_email = (user["email"] for user in result["users"])
    owner = await login(anonymous, owner_email, password)
    board = (await owner.query("boards.get", {"id": tier_1["id"]})).data
    # Built from the vendor SQCDP template: its five letter groups, its columns and its rules.
    assert [group["name"] for group in board["groups"]] == [
        "S – Safety", "Q – Quality", "C – Cost", "D – Delivery", "P – People"]
    assert [column["type"] for column in board["columns"]] == ["status", "people", "date", "priority", "text"]
    rules = (await owner.query("automations.list", {"boardId": tier_1["id"]})).data["automations"]
    assert [rule["name"] for rule in rules] == ["Escalated problems are critical",
                                                "New safety problems are at least high priority",
                                                "A red KPI opens a countermeasure"]
    items = await _all_items(owner, tier_1["id"])
    by_name = {item["name"]: item for item in items}
    assert len(by_name) == len(TIER_1.items) == 19
    groups = {group["id"]: group["name"] for group in board["groups"]}
    assert {groups[item["groupId"]] for item in items} == set(groups.values())  # every letter has its items
    status = next(column["id"] for column in board["columns"] if column["type"] == "status")
    people = next(column["id"] for column in board["columns"] if column["type"] == "people")
    guard = by_name["Guard missing on press 4"]
    assert guard["values"][status]["label"] == "Escalated"
    assert guard["values"][people] == [result["users"][0]["id"]]
    assert "Scrap rate above 2% on line 3" in by_name
    priority = next(column["id"] for column in board["columns"] if column["type"] == "priority")
    assert guard["values"][priority]["label"] == "Critical"
    done = [item for item in items if item["values"][status]["label"] == "Done"]
    assert len(done) == 4 and all(item["version"] == 2 for item in done)

    # The guest sees the boards because the demo made him a member of the workspace.
    guest = await login(anonymous, guest_email, password)
    assert len(await _all_items(guest, backlog["id"])) == 9
    tom = await login(anonymous, tom_email, password)
    feed = await tom.query("events.list", {"stream": f"board:{tier_1['id']}", "limit": 200})
    assert feed.status == 200, feed.body
    # The template makes the board (a column's width is set after it), then the items are written one after
    # another; a finished one is closed by its owner right after it is written.
    expected = ["board.created", "board.updated"]
    for item in TIER_1.items:
        expected += ["item.created", "item.updated"] if item.status == TIER_1.done else ["item.created"]
    # KPI events, and the action the template's rule opens for the red scrap rate (whenever the demo's engine or
    # the next server's runs it), are not item events.
    item_events = [event for event in feed.data["events"] if not event["event"].startswith(("kpi.", "action."))]
    assert [event["event"] for event in item_events] == expected
    assert [event["seq"] for event in feed.data["events"]] == list(range(1, len(feed.data["events"]) + 1))
    closed = [event for event in feed.data["events"] if event["event"] == "item.updated"]
    assert all(event["data"]["changes"][status]["new"]["label"] == "Done" for event in closed)
    emails = {person.key: email_of(person, slug) for person in PEOPLE}
    assert [event["data"]["actor"]["email"] for event in closed] == [
        emails[item.owner] for item in TIER_1.items if item.status == TIER_1.done]


async def test_demo_tier_1_board_has_sqcdp_kpis_in_every_colour(client: Any, database_url: str) -> None:
    slug = f"demo-{secrets.token_hex(4)}"
    code, stdout, stderr = await _demo(database_url, "--slug", slug)
    assert code == 0, stderr
    result = json.loads(stdout)
    assert result["baseUrl"] == f"http://{slug}.localhost:8080"  # where `obeya serve` listens by default
    assert stderr.splitlines()[0].startswith("Obeya database: postgresql://")  # where the data is
    tier_1 = result["boards"][0]
    assert [kpi["category"] for kpi in result["kpis"]] == ["safety", "quality", "cost", "delivery", "people"]
    assert [kpi["status"] for kpi in result["kpis"]] == ["amber", "red", "green", "amber", "green"]
    assert "Scrap rate (red)" in stderr

    tom = await login(Api(client, result["host"]), result["users"][1]["email"], result["password"])
    grouped = await tom.query("kpis.listByCategory", {"boardId": tier_1["id"]})
    assert grouped.status == 200, grouped.body
    assert {category: [kpi["name"] for kpi in kpis] for category, kpis in grouped.data.items()} == {
        spec.category: [spec.name] for spec in TIER_1_KPIS}
    latest = {kpis[0]["name"]: kpis[0]["latestValue"] for kpis in grouped.data.values()}
    assert latest["Scrap rate"]["value"] == 2.3 and latest["Scrap rate"]["status"] == "red"
    assert {value["status"] for value in latest.values()} == {"red", "amber", "green"}
    scrap = next(kpi["id"] for kpi in result["kpis"] if kpi["name"] == "Scrap rate")
    history = await tom.query("kpis.getHistory", {"kpiId": scrap})
    assert history.status == 200, history.body
    assert sorted(point["value"] for point in history.data["history"]) == [1.4, 1.8, 2.3]
    alerts = await tom.query("kpis.getAlerts", {"boardId": tier_1["id"], "kpiId": scrap, "status": "active"})
    assert alerts.status == 200, alerts.body
    assert "red" in {alert["threshold"] for alert in alerts.data["alerts"]}, alerts.data


async def test_an_existing_slug_or_bad_flags_are_refused_without_output(database_url: str) -> None:
    slug = f"demo-{secrets.token_hex(4)}"
    code, _, stderr = await _demo(database_url, "--slug", slug, "--password", "a long demo password")
    assert code == 0, stderr
    code, stdout, stderr = await _demo(database_url, "--slug", slug)
    assert code == 1 and stdout == ""
    error = json.loads(stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == "CONFLICT" and slug in error["message"] and "--slug" in error["message"]

    code, stdout, stderr = await _demo(database_url, "--slug", "not a slug", "--password", "short")
    assert code == 1 and stdout == ""
    message = json.loads(stderr.strip().splitlines()[-1])["error"]["message"]
    assert "slug" in message and "password" in message
