"""Bad input never makes a 500: every registered procedure, called by an organization's owner with an input
built from its declared fields, then with each field in turn given a wrong type, a null, text PostgreSQL
cannot store (a NUL character) and an overlong text, answers with a 4xx (or a 2xx) and never a server error."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import inspect

from protocol.pagination import encode_cursor
from protocol.registry import REGISTRY, Access
from tests.harness import Org
from tests.integration.boards.conftest import make_board

# A well-formed cursor whose time, in UTC, lies before the year 1.
FORGED_CURSOR = encode_cursor("0001-01-01T00:00:00+05:00", "x")
# A well-formed cursor holding a number past 64 bits.
HUGE_CURSOR = encode_cursor(10**30, 10**30, "x")
# Calls that would end the test's own session or organization when they succeed.
_LEAVE_ALONE = ("auth.logout", "organizations.delete", "organizations.leave", "organizations.transferOwnership",
                "organizations.members.remove", "auth.deleteAccount")


def _sample(info: inspect.Type) -> Any:
    """A plausible value of a declared type (not necessarily valid: ids name nothing)."""
    if isinstance(info, inspect.StrType):
        return "probe" + "x" * max(0, (info.min_length or 0) - 5)
    if isinstance(info, (inspect.IntType, inspect.FloatType)):
        return info.ge if info.ge is not None else 1
    if isinstance(info, inspect.BoolType):
        return True
    if isinstance(info, inspect.LiteralType):
        return info.values[0]
    if isinstance(info, (inspect.ListType, inspect.SetType, inspect.FrozenSetType, inspect.VarTupleType)):
        return [_sample(info.item_type)] * (info.min_length or 0)
    if isinstance(info, inspect.DictType):
        return {}
    if isinstance(info, inspect.UnionType):
        return _sample(next(t for t in info.types if not isinstance(t, inspect.NoneType)))
    if isinstance(info, inspect.StructType):
        return {f.encode_name: _sample(f.type) for f in info.fields if f.required}
    if isinstance(info, (inspect.DateType, inspect.DateTimeType)):
        return "2026-11-22"
    return "probe"


def _wrong_type(info: inspect.Type) -> Any:
    return 7 if isinstance(info, inspect.StrType) else "seven"


def inputs(input_type: type[msgspec.Struct]) -> list[Any]:
    info = inspect.type_info(input_type)
    assert isinstance(info, inspect.StructType)
    base = {f.encode_name: _sample(f.type) for f in info.fields if f.required}
    probes: list[Any] = [base, None, [], "text"]
    for f in info.fields:
        for value in (_wrong_type(f.type), None, "a\u0000b", "y" * 100_000, {"nested": ["\u0000"]}):
            probes.append({**base, f.encode_name: value})
    return probes


async def test_no_procedure_answers_a_server_error(org: Org) -> None:
    failures = []
    for name, procedure in sorted(REGISTRY.items()):
        if name in _LEAVE_ALONE or procedure.access is Access.PUBLIC:
            continue
        call = org.owner.query if procedure.is_query else org.owner.mutate
        for data in inputs(procedure.input):
            reply = await call(name, data)
            if reply.status >= 500:
                failures.append((name, repr(data)[:120], reply.status, str(reply.body)[:200]))
    assert failures == [], "\n".join(map(str, failures))


# The second pass names things that exist, so the calls get past the lookups into each procedure's own
# checks. Calls that would remove what the later calls need are left to the first pass.
_DESTRUCTIVE = ("delete", "remove", "archive", "revoke", "rotate", "move", "leave", "transfer", "logout")
_ID_FIELDS = {"boardId": "board", "itemId": "item", "parentId": "item", "groupId": "group", "columnId": "column",
              "kpiId": "kpi", "actionId": "action", "sheetId": "sheet", "sessionId": "session",
              "automationId": "automation", "ruleId": "automation", "webhookId": "webhook",
              "workspaceId": "workspace", "projectId": "project", "commentId": "comment", "userId": "user",
              "assigneeId": "user", "responsibleUserId": "user", "escalateToUserId": "user"}
_ID_BY_AREA = {"items": "item", "kpis": "kpi", "actions": "action", "problemSolving": "sheet",
               "checklists": "checklist", "audits": "session", "automations": "automation", "webhooks": "webhook",
               "workspaces": "workspace", "projects": "project", "boards": "board", "comments": "comment",
               "columns": "column", "boards.groups": "group", "export": "sheet"}


async def _things(org: Org) -> dict[str, str]:
    board = await make_board(org)

    async def made(name: str, data: dict[str, Any]) -> str:
        reply = await org.owner.mutate(name, data)
        assert reply.status == 200, (name, reply.body)
        return str(reply.data["id"])

    item = await board.add_item("Probe item")
    project = await org.owner.query("projects.get", {"id": board.project_id})
    audit_checklist = await made("audits.createChecklist", {"boardId": board.id, "name": "5S", "type": "5s", "items": [
        {"question": "Floor clean?", "category": "shine"}]})
    return {
        "board": board.id, "item": item["id"], "group": board.group_id, "column": board.column("status")["id"],
        "project": board.project_id, "workspace": project.data["workspaceId"], "user": org.owner_id,
        "comment": await made("comments.create", {"itemId": item["id"], "body": "probe"}),
        "kpi": await made("kpis.define", {"boardId": board.id, "name": "Scrap", "category": "quality",
                                          "direction": "lower_is_better", "frequency": "daily"}),
        "action": await made("actions.create", {"boardId": board.id, "title": "Fix", "priority": "high",
                                                "assigneeId": org.owner_id, "dueDate": "2026-12-01"}),
        "sheet": await made("problemSolving.create", {"boardId": board.id, "title": "Why", "type": "five_whys"}),
        "checklist": await made("checklists.create", {"boardId": board.id, "name": "Start of shift",
                                                      "frequency": "daily", "items": [{"text": "Guards on"}]}),
        "auditChecklist": audit_checklist,
        "session": await made("audits.startAudit", {"boardId": board.id, "checklistId": audit_checklist}),
        "automation": await made("automations.create", {
            "boardId": board.id, "name": "Probe", "trigger": {"type": "item.created", "config": {}},
            "actions": [{"type": "archive_item", "config": {}}], "enabled": False}),
        "webhook": await made("webhooks.create", {"url": "http://127.0.0.1:9/hook", "events": ["item.created"]}),
    }


def _with_real_ids(name: str, data: dict[str, Any], things: dict[str, str]) -> dict[str, Any]:
    area = name.rsplit(".", 1)[0]
    real = dict(data)
    for field in data:
        kind = _ID_FIELDS.get(field) or (_ID_BY_AREA.get(area) if field == "id" else None)
        if name in ("audits.getChecklist",) and field == "id" or name.startswith("audits.") and field == "checklistId":
            kind = "auditChecklist"
        if kind is not None:
            real[field] = things[kind]
        if field == "stream":  # events.list: a stream the caller may read, so the call reaches the query
            real[field] = f"board:{things['board']}"
    return real


async def test_no_procedure_answers_a_server_error_on_things_that_exist(org: Org) -> None:
    things = await _things(org)
    failures = []
    for name, procedure in sorted(REGISTRY.items()):
        if procedure.access is Access.PUBLIC or any(word in name.lower() for word in _DESTRUCTIVE):
            continue
        call = org.owner.query if procedure.is_query else org.owner.mutate
        info = inspect.type_info(procedure.input)
        assert isinstance(info, inspect.StructType)
        base = _with_real_ids(name, {f.encode_name: _sample(f.type) for f in info.fields if f.required}, things)
        probes: list[Any] = [base]
        for f in info.fields:
            for value in (_wrong_type(f.type), None, "y" * 100_000, {"nested": [1]}, -1, 10**30, 2**63, -(2**63) - 1,
                          2**31, -(2**31) - 1, {"nested": 10**30}, FORGED_CURSOR, HUGE_CURSOR):
                probes.append({**base, f.encode_name: value})
        for data in probes:
            reply = await call(name, data)
            if reply.status >= 500:
                failures.append((name, repr(data)[:160], reply.status))
    assert failures == [], "\n".join(map(str, failures))
