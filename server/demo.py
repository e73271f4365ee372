"""`obeya demo`: a demo organization to try Obeya with — a plant workspace, a project, a daily tier-1 board
(built from the vendor SQCDP template: its letter groups, KPIs and rules) and a maintenance backlog, both
filled with realistic items, and people in each role (owner, members, a guest).

Every change after the organization and its users exist goes through the procedures as the web edge runs
them (authorization, input decoding, the services and the board actor, in a started app), so the data is
valid and each change is in the event log and the activity trail like any user's. Standard output gets
one JSON object (ids, host, users, password) for scripts; the how-to-log-in text goes to standard error.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

import msgspec
from aiohttp import web

from actors.identity.accounts import create_organization, create_user
from actors.identity.callers import organization_for_slug
from actors.kernel.node import Node
from protocol.caller import Caller, CredentialKind, Organization
from protocol.errors import Conflict, FieldError
from protocol.fields import Password, Slug
from protocol.ids import Prefix, new_id
from protocol.registry import REGISTRY, Role
from server.app import create_app
from server.config import Settings
from server.domains import HANDLERS
from storage import accounts as account_repo
from web.dispatch import run_procedure
from web.inputs import decode_input
from web.keys import NODE

T = TypeVar("T")

ORGANIZATION_NAME = "Northwind Components"
# Business: API keys, webhooks and every board feature can be tried on the demo.
PLAN = "business"


class DemoOptions(msgspec.Struct):
    """The command's flags, checked with the same limits as sign-up."""

    slug: Slug
    password: Password


@dataclass(frozen=True)
class Person:
    key: str
    name: str
    mailbox: str  # the e-mail address is `<mailbox>@<slug>.test`
    role: str
    title: str


PEOPLE = (
    Person("maria", "Maria Keller", "maria.keller", "owner", "plant manager"),
    Person("tom", "Tom Becker", "tom.becker", "member", "line 3 team leader"),
    Person("jana", "Jana Novak", "jana.novak", "member", "maintenance planner"),
    Person("sam", "Sam Ortiz", "sam.ortiz", "guest", "contract technician"),
)


@dataclass(frozen=True)
class DemoItem:
    group: str
    name: str
    status: str
    owner: str  # a Person key
    due_in_days: int
    number: int | float
    priority: str
    text: str | None = None


@dataclass(frozen=True)
class DemoBoard:
    """A board and its items; each item sets the board's one column of each type status, people, date,
    number, priority and text."""

    name: str
    author: str  # the Person who runs the board and writes its items
    view: str
    groups: tuple[tuple[str, str], ...]
    columns: tuple[dict[str, Any], ...]
    items: tuple[DemoItem, ...]
    # A vendor template the board is built from (its groups, columns, KPIs and rules) instead of `groups`
    # and `columns`; values go to the columns of each type the board has.
    template: str | None = None
    # Items whose status is `done` are written as `working` first and then closed by their owner, as happens
    # on a real board: the trail shows both steps.
    working: str = "In progress"
    done: str = "Done"


TIER_1 = DemoBoard(
    name="Line 3 – Daily Tier 1",
    author="tom",
    view="board",
    template="tpl_vendor_sqcdp",  # groups S – Safety ... P – People; Status, Owner, Due, Priority, Countermeasure
    groups=(),
    columns=(),
    items=(
        DemoItem("S – Safety", "Guard missing on press 4", "Escalated", "maria", 0, 1, "Critical",
                 "Press 4 locked out; guard fabrication requested from maintenance"),
        DemoItem("S – Safety", "Oil leak at hydraulic unit HU-2, slip hazard", "In progress", "jana", 1, 2, "High",
                 "Area cordoned off, absorbent mats laid"),
        DemoItem("S – Safety", "Forklift near-miss at dock door 3", "Open", "maria", 2, 0, "High"),
        DemoItem("S – Safety", "Emergency stop on conveyor C7 not tested this week", "Open", "tom", 3, 4, "Medium"),
        DemoItem("S – Safety", "Safety glasses dispenser empty at cell 5", "Done", "tom", -1, 1, "Low",
                 "Refilled; added to the weekly 5S round"),
        DemoItem("Q – Quality", "Scrap rate above 2% on line 3", "In progress", "tom", 2, 3, "High",
                 "5 Whys started with the night shift"),
        DemoItem("Q – Quality", "Burrs on part 4711-B from die 12", "Open", "jana", 1, 1, "High"),
        DemoItem("Q – Quality", "Torque check missed on station 6 (night shift)", "Escalated", "maria", 0, 2,
                 "Critical", "Parts of the shift on hold for re-check"),
        DemoItem("Q – Quality", "Customer complaint: label misprint on batch 2231", "In progress", "maria", 4, 5,
                 "Medium"),
        DemoItem("Q – Quality", "Gauge G-114 calibration overdue", "Done", "jana", -2, 6, "Medium",
                 "Calibrated by the lab, sticker renewed"),
        DemoItem("C – Cost", "Compressed-air leak at cell 2 (about 3,000 EUR a year)", "Open", "jana", 3, 1, "Medium"),
        DemoItem("C – Cost", "Overtime on line 3 above budget this week", "In progress", "maria", 2, 2, "Medium",
                 "Changeover times reviewed with the shift leads"),
        DemoItem("D – Delivery", "Line 3 output 412 of 450 pcs yesterday", "In progress", "tom", 1, 1, "Medium",
                 "Two micro-stops on the labeller account for 25 min"),
        DemoItem("D – Delivery", "Changeover on press 2 took 48 min (target 30)", "Open", "tom", 5, 2, "Medium"),
        DemoItem("D – Delivery", "Resin delivery for order 88017 missing", "Escalated", "maria", 0, 1, "Critical",
                 "Purchasing chasing the supplier; alternative lot being qualified"),
        DemoItem("D – Delivery", "Shift handover board not updated", "Done", "tom", -1, 0, "Low"),
        DemoItem("D – Delivery", "Carton shortage (40x30) for packing", "Open", "jana", 2, 1, "High"),
        DemoItem("P – People", "Two operators not yet trained on station 6", "Open", "tom", 7, 2, "Medium"),
        DemoItem("P – People", "Night-shift handover attended by half the team", "Done", "tom", -2, 0, "Low",
                 "Handover moved to the line instead of the office"),
    ),
)

MAINTENANCE = DemoBoard(
    name="Maintenance backlog",
    author="jana",
    view="table",
    groups=(("Breakdowns", "#E2445C"), ("Preventive", "#579BFC"), ("Improvements", "#A25DDC")),
    columns=(
        {"name": "Status", "type": "status", "config": {"labels": [
            {"name": "Not started", "color": "#C4C4C4"}, {"name": "Waiting for parts", "color": "#FDAB3D"},
            {"name": "In progress", "color": "#579BFC"}, {"name": "Done", "color": "#00C875", "isDone": True}]}},
        {"name": "Technician", "type": "people", "config": {"multiple": False}},
        {"name": "Planned for", "type": "date"},
        {"name": "Estimate", "type": "number", "config": {"decimals": 1, "suffix": " h", "min": 0}},
        {"name": "Priority", "type": "priority"},
        {"name": "Asset", "type": "text"},
    ),
    items=(
        DemoItem("Breakdowns", "Fabricate and fit new guard on press 4", "In progress", "sam", 0, 3, "Critical",
                 "Press 4"),
        DemoItem("Breakdowns", "Hydraulic unit HU-2 leaking at pressure fitting", "Waiting for parts", "sam", 1,
                 1.5, "High", "HU-2"),
        DemoItem("Breakdowns", "Light curtain on press 4 trips intermittently", "Not started", "jana", 2, 2,
                 "High", "Press 4"),
        DemoItem("Breakdowns", "Labeller micro-stops on line 3", "In progress", "jana", 1, 4, "Medium",
                 "Labeller L3"),
        DemoItem("Preventive", "Quarterly inspection of compressor K1", "Not started", "sam", 6, 4, "Medium",
                 "Compressor K1"),
        DemoItem("Preventive", "Replace worn V-belt on conveyor C3", "Waiting for parts", "jana", 3, 1, "Medium",
                 "Conveyor C3"),
        DemoItem("Preventive", "Lubricate gearbox on mixer M2", "Done", "sam", -3, 0.5, "Low", "Mixer M2"),
        DemoItem("Improvements", "Quick-change clamps for press 2 dies", "Not started", "jana", 14, 16, "Medium",
                 "Press 2"),
        DemoItem("Improvements", "LED lighting for warehouse aisle 2", "Done", "sam", -5, 6, "Low", "Warehouse"),
    ),
)

BOARDS = (TIER_1, MAINTENANCE)


@dataclass(frozen=True)
class DemoKpi:
    """A KPI the tier-1 board's template defines (thresholds and target come from it), who answers for it and
    the values recorded on it, oldest first; the last sets its status."""

    category: str
    name: str
    values: tuple[float, ...]
    responsible: str  # a Person key


# One per SQCDP letter, so the tier meeting's KPI row shows red, amber and green.
TIER_1_KPIS = (
    DemoKpi("safety", "Days without lost-time injury", (12, 13, 14), "tom"),
    DemoKpi("quality", "Scrap rate", (1.4, 1.8, 2.3), "tom"),
    DemoKpi("cost", "Overtime hours", (18, 22, 16), "maria"),
    DemoKpi("delivery", "On-time delivery", (96, 93.5), "tom"),
    DemoKpi("people", "Attendance", (97, 96.5), "jana"),
)


def email_of(person: Person, slug: str) -> str:
    return f"{person.mailbox}@{slug}.test"


@dataclass
class DemoOrganization:
    """The demo organization being built: runs procedures as one of its people."""

    node: Node
    organization: Organization
    callers: dict[str, Caller]

    async def call(self, who: str, procedure_name: str, raw: dict[str, Any]) -> Any:
        """Run a procedure as `who` the way the web edge does: authorize, decode the input, implementation."""
        caller = dataclasses.replace(self.callers[who], request_id=new_id(Prefix.HTTP_REQUEST))
        return await run_procedure(HANDLERS, self.node, caller, REGISTRY[procedure_name], raw)

    def user_id(self, who: str) -> str:
        return self.callers[who].uid


def _caller(organization: Organization, user_id: str, email: str, role: str) -> Caller:
    """The caller a signed-in session of this user on the organization's host resolves to."""
    return Caller(request_id=new_id(Prefix.HTTP_REQUEST), organization=organization, user_id=user_id, user_email=email,
                  role=Role.parse(role), credential=CredentialKind.SESSION, credential_id=f"user:{user_id}")


async def _make_board(demo: DemoOrganization, project_id: str, spec: DemoBoard) -> dict[str, Any]:
    if spec.template is not None:
        board: dict[str, Any] = await demo.call("maria", "templates.apply", {
            "templateId": spec.template, "projectId": project_id, "boardName": spec.name,
            "overrides": {"defaultView": spec.view}})
        return board
    made: dict[str, Any] = await demo.call("maria", "boards.create", {
        "projectId": project_id, "name": spec.name, "defaultView": spec.view,
        "groups": [{"name": name, "color": color} for name, color in spec.groups], "columns": list(spec.columns)})
    return made


async def _fill_board(demo: DemoOrganization, project_id: str, spec: DemoBoard
                      ) -> tuple[dict[str, Any], dict[str, str]]:
    """The board with its items: its summary, and the ids of the KPIs its template made, by name."""
    board = await _make_board(demo, project_id, spec)
    groups = {group["name"]: group["id"] for group in board["groups"]}
    column = {col["type"]: col["id"] for col in board["columns"]}
    today = demo.node.clock.now().date()
    for item in spec.items:
        given = {"status": spec.working if item.status == spec.done else item.status,
                 "people": [demo.user_id(item.owner)],
                 "date": (today + timedelta(days=item.due_in_days)).isoformat(),
                 "number": item.number, "priority": item.priority, "text": item.text}
        values = {column[kind]: value for kind, value in given.items() if kind in column and value is not None}
        created = await demo.call(spec.author, "items.create", {
            "boardId": board["id"], "groupId": groups[item.group], "name": item.name, "values": values})
        if item.status == spec.done:
            await demo.call(item.owner, "items.setValue",
                            {"itemId": created["id"], "columnId": column["status"], "value": spec.done})
    return ({"id": board["id"], "name": spec.name, "items": len(spec.items), "groups": list(groups)},
            {kpi["name"]: kpi["id"] for kpi in board.get("kpis", ())})


async def _add_kpi_values(demo: DemoOrganization, kpi_ids: dict[str, str]) -> list[dict[str, Any]]:
    """Who answers for each of the template's KPIs, and the values recorded on them."""
    kpis = []
    for spec in TIER_1_KPIS:
        kpi = await demo.call("tom", "kpis.update", {"id": kpi_ids[spec.name],
                                                     "responsibleUserId": demo.user_id(spec.responsible)})
        for value in spec.values:
            recorded = await demo.call(spec.responsible, "kpis.setValue", {"kpiId": kpi["id"], "value": value})
        kpis.append({"id": kpi["id"], "name": spec.name, "category": spec.category,
                     "status": recorded["status"]})
    return kpis


async def build_demo(node: Node, slug: str, password: str) -> dict[str, Any]:
    """Create the demo organization `slug`; Conflict when an organization already has that slug."""
    options = decode_input(DemoOptions, {"slug": slug, "password": password})
    slug = options.slug.lower()
    if await account_repo.slug_taken(node.pool, slug):
        raise Conflict(f"an organization with slug {slug!r} already exists; pick another with --slug",
                       details=[FieldError("slug", "already taken")])
    owner, *others = PEOPLE
    org_id, owner_id = await create_organization(node, slug=slug, name=ORGANIZATION_NAME,
                                                 owner_email=email_of(owner, slug), owner_password=password,
                                                 owner_name=owner.name, plan=PLAN)
    user_ids = {owner.key: owner_id}
    for person in others:
        user_ids[person.key] = await create_user(node, org_slug=slug, email=email_of(person, slug),
                                                 password=password, name=person.name, role=person.role)
    organization = await organization_for_slug(node, slug)
    demo = DemoOrganization(node, organization, {
        p.key: _caller(organization, user_ids[p.key], email_of(p, slug), p.role) for p in PEOPLE})

    workspace = await demo.call("maria", "workspaces.create", {
        "name": "Plant Ulm", "description": "Assembly and pressing, lines 1-4", "color": "#0073EA",
        "icon": "factory", "visibility": "open"})
    # Tom runs the line's boards; Sam is a guest, who sees only the workspaces he is a member of.
    for who, role in (("tom", "admin"), ("jana", "member"), ("sam", "member")):
        await demo.call("maria", "workspaces.members.add",
                        {"workspaceId": workspace["id"], "userId": user_ids[who], "role": role})
    project = await demo.call("maria", "projects.create", {
        "workspaceId": workspace["id"], "name": "Line 3",
        "description": "Daily tier meeting and maintenance for assembly line 3"})
    built = [await _fill_board(demo, project["id"], spec) for spec in BOARDS]
    boards = [summary for summary, _ in built]
    kpis = await _add_kpi_values(demo, built[0][1])
    return {
        "organizationId": org_id, "slug": slug, "name": ORGANIZATION_NAME, "plan": PLAN,
        "host": f"{slug}.{node.settings.service_host}", "baseUrl": node.base_url(slug), "password": password,
        "users": [{"id": user_ids[p.key], "name": p.name, "email": email_of(p, slug), "role": p.role}
                  for p in PEOPLE],
        "workspaceId": workspace["id"], "projectId": project["id"], "boards": boards,
        "kpis": kpis,
    }


async def _in_started_app(settings: Settings, database_url: str, work: Callable[[Node], Awaitable[T]]) -> T:
    """Run `work` with the server's own environment (pool, actor system, event bus) started as `obeya serve`
    starts it, without listening on a port."""
    runner = web.AppRunner(create_app(settings, database_url), handle_signals=False)
    await runner.setup()
    try:
        return await work(runner.app[NODE])
    finally:
        await runner.cleanup()


def how_to_log_in(result: dict[str, Any]) -> str:
    password, base_url = result["password"], result["baseUrl"]
    owner = result["users"][0]
    login = json.dumps({"email": owner["email"], "password": password})
    tier_1 = result["boards"][0]
    width = max(len(user["name"]) for user in result["users"])
    lines = [
        f"Demo organization {result['name']!r} is ready: {base_url}",
        f"Start the server with `obeya serve` if it is not running, then sign in as any of these people with "
        f"the password {password}",
        *(f"  {user['role']:<7} {user['name']:<{width}}  {user['email']}" for user in result["users"]),
        *(f"Board {board['name']!r}: {board['id']} ({board['items']} items)" for board in result["boards"]),
        f"KPIs on {tier_1['name']!r}: " + ", ".join(f"{kpi['name']} ({kpi['status']})" for kpi in result["kpis"]),
        "Try it:",
        f"  curl -s -c obeya.cookies -H 'Content-Type: application/json' -d {shlex.quote(login)} "
        f"{base_url}/api/v1/auth/login",
        f"  curl -s -b obeya.cookies '{base_url}/api/v1/items?boardId={tier_1['id']}'",
        f"  Live updates: Socket.IO on {base_url}/socket.io with the session cookie, "
        f"then emit subscribe {{\"room\": \"board:{tier_1['id']}\"}}",
    ]
    return "\n".join(lines)


def run_demo(settings: Settings, database_url: str, *, slug: str, password: str | None) -> int:
    """The `obeya demo` command: build the demo, print its JSON on standard output and the how-to on
    standard error."""
    # 12 random bytes: about 96 bits, URL- and shell-safe, short enough to type from a screen.
    chosen = password if password is not None else secrets.token_urlsafe(12)
    result = asyncio.run(_in_started_app(settings, database_url, lambda node: build_demo(node, slug, chosen)))
    print(how_to_log_in(result), file=sys.stderr)
    print(json.dumps(result))
    return 0
