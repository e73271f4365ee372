"""A flow's graph: its default (start → end approved), the shape check every save runs (node data by type,
edges between known nodes), the integrity rules activation runs (one start, all reachable, no cycle, an
outgoing edge from every non-end node, both labels on conditions, approvers on approval nodes; 400 naming
the node ids), conditions evaluated on answers, the walk from a node to the next stop, and the order of
the approval steps. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from actors.automations.conditions import plain
from protocol import approvals as spec
from protocol.automations import ACTION_REQUIRES
from protocol.errors import BadRequest, FieldError

Graph = tuple[list[dict[str, Any]], list[dict[str, Any]]]  # (nodes, edges) as stored
_ACTION_TYPES = frozenset(ACTION_REQUIRES) | {"archive_item"}
MAX_EXPIRY_HOURS = 24 * 365


def default_graph() -> Graph:
    return ([{"id": "start", "type": "start", "position": {"x": 0, "y": 0}, "data": {}},
             {"id": "end", "type": "end", "position": {"x": 0, "y": 200}, "data": {"status": "approved"}}],
            [{"id": "start-end", "source": "start", "target": "end", "label": None}])


def refuse(message: str, faults: Iterable[tuple[str, str]]) -> BadRequest:
    details = [FieldError(f"nodes.{node_id}", text) for node_id, text in faults]
    ids = list(dict.fromkeys(d.field.removeprefix("nodes.") for d in details))
    return BadRequest(f"{message}: {'; '.join(f'{d.field}: {d.message}' for d in details)}", details=details,
                      data={"nodeIds": ids})


def _data_faults(node: dict[str, Any], members: Collection[str], form_keys: Collection[str]) -> list[str]:
    data, kind = node["data"], node["type"]
    faults: list[str] = []
    if kind == "approval":
        approvers = data.get("approverIds", [])
        if not isinstance(approvers, list) or not all(isinstance(a, str) for a in approvers):
            faults.append("approverIds must be a list of user ids")
        elif any(a not in members for a in approvers):
            faults.append("approverIds must be active members of the organization")
        if data.get("approvalType", "any") not in ("any", "all"):
            faults.append("approvalType must be any or all")
        hours = data.get("expiresInHours")
        if hours is not None and (isinstance(hours, bool) or not isinstance(hours, int | float)
                                  or not 0 < hours <= MAX_EXPIRY_HOURS):
            faults.append(f"expiresInHours must be a number of hours from 0 to {MAX_EXPIRY_HOURS}")
    elif kind == "condition":
        if not isinstance(data.get("field"), str) or data["field"] not in form_keys:
            faults.append("field must be a key of the form")
        if data.get("operator") not in spec.CONDITION_OPERATORS:
            faults.append(f"operator must be one of {', '.join(spec.CONDITION_OPERATORS)}")
    elif kind == "action":
        action_type, config = data.get("type"), data.get("config", {})
        if not isinstance(action_type, str) or action_type not in _ACTION_TYPES:
            faults.append(f"type must be an automation action ({', '.join(sorted(_ACTION_TYPES))})")
        elif not isinstance(config, dict):
            faults.append("config must be an object")  # its keys: as an automation's (approvals/handlers.py)
    elif kind == "end" and data.get("status") not in ("approved", "rejected"):
        faults.append("status must be approved or rejected")
    return faults


def check_shape(nodes: list[dict[str, Any]], edges: list[dict[str, Any]], *, members: Collection[str],
                form_keys: Collection[str]) -> None:
    """What every saved graph must be: unique ids, each node's data right for its type, edges between nodes
    of the graph. BadRequest naming the node ids otherwise."""
    faults: list[tuple[str, str]] = []
    seen: set[str] = set()
    for node in nodes:
        if node["id"] in seen:
            faults.append((node["id"], "node id used twice"))
        seen.add(node["id"])
        faults.extend((node["id"], text) for text in _data_faults(node, members, form_keys))
    edge_ids: set[str] = set()
    for edge in edges:
        if edge["id"] in edge_ids:
            faults.append((edge["source"], f"edge id {edge['id']} used twice"))
        edge_ids.add(edge["id"])
        for end in ("source", "target"):
            if edge[end] not in seen:
                faults.append((edge[end], f"edge {edge['id']} names an unknown {end} node"))
    if faults:
        raise refuse("the flow's graph is malformed", faults)


def check_integrity(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> None:
    """The activation rules listed above (after `check_shape`); BadRequest naming the node ids otherwise."""
    by_id = {node["id"]: node for node in nodes}
    outgoing: dict[str, list[dict[str, Any]]] = {node_id: [] for node_id in by_id}
    for edge in edges:
        outgoing[edge["source"]].append(edge)
    faults: list[tuple[str, str]] = []
    starts = [node["id"] for node in nodes if node["type"] == "start"]
    if len(starts) != 1:
        faults.extend((node_id, "a flow has exactly one start node") for node_id in starts or ["start"])
    for node in nodes:
        node_id, out = node["id"], outgoing[node["id"]]
        if node["type"] != "end" and not out:
            faults.append((node_id, "has no outgoing edge"))
        if node["type"] == "end" and out:
            faults.append((node_id, "an end node has no outgoing edge"))
        if node["type"] == "condition":
            labels = sorted(str(edge.get("label")) for edge in out)
            if labels != ["false", "true"]:
                faults.append((node_id, 'a condition has two outgoing edges labelled "true" and "false"'))
        elif node["type"] in ("start", "approval", "action") and len(out) > 1:
            faults.append((node_id, "has more than one outgoing edge"))
        if node["type"] == "approval" and not node["data"].get("approverIds"):
            faults.append((node_id, "an approval node needs approvers"))
    if len(starts) == 1:
        reached = _reachable(starts[0], outgoing)
        faults.extend((node_id, "is not reachable from the start node") for node_id in by_id if node_id not in reached)
        faults.extend((node_id, "is on a cycle") for node_id in _on_cycles(by_id, outgoing))
    if faults:
        raise refuse("the flow's graph is not valid", faults)


def _reachable(start: str, outgoing: dict[str, list[dict[str, Any]]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for edge in outgoing[todo.pop()]:
            if edge["target"] not in seen:
                seen.add(edge["target"])
                todo.append(edge["target"])
    return seen


def _on_cycles(by_id: dict[str, Any], outgoing: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Nodes on a cycle: those a node can reach itself from (the graphs are small)."""
    return [node_id for node_id in by_id
            if any(node_id in _reachable(edge["target"], outgoing) for edge in outgoing[node_id])]


def _number(value: Any) -> float | None:
    try:
        return float(plain(value))
    except (TypeError, ValueError):
        return None


def condition_holds(data: dict[str, Any], answers: dict[str, Any]) -> bool:
    operator, actual, expected = data["operator"], answers.get(data["field"]), data.get("value")
    if operator == "equals":
        return bool(actual == expected or plain(actual) == expected)
    if operator == "not_equals":
        return not (actual == expected or plain(actual) == expected)
    if operator == "contains":
        if isinstance(actual, list):
            return expected in actual
        return actual is not None and str(expected).lower() in str(actual).lower()
    if operator in ("is_empty", "is_not_empty"):
        empty = actual in (None, "", [], {}, False)
        return empty if operator == "is_empty" else not empty
    left, right = _number(actual), _number(expected)
    if left is None or right is None:
        return False
    return {"gt": left > right, "gte": left >= right, "lt": left < right, "lte": left <= right}[operator]


@dataclass(frozen=True)
class Stop:
    """Where a walk stops: an approval node to wait at, or an end node's status; with the action nodes
    passed on the way (to run after the commit)."""

    node: dict[str, Any]
    actions: tuple[dict[str, Any], ...]


def walk(nodes: list[dict[str, Any]], edges: list[dict[str, Any]], after: str, answers: dict[str, Any]) -> Stop:
    """From node `after` (exclusive), through condition and action nodes, to the next approval or end node.
    A dead end (a graph changed under an open request) ends the request rejected: nothing approved it."""
    by_id = {node["id"]: node for node in nodes}
    actions: list[dict[str, Any]] = []
    current = after
    for _ in range(len(nodes) + 1):
        out = [edge for edge in edges if edge["source"] == current]
        node = by_id[current]
        if node["type"] == "condition":
            label = "true" if condition_holds(node["data"], answers) else "false"
            out = [edge for edge in out if str(edge.get("label")) == label]
        if not out:
            return Stop({"id": current, "type": "end", "data": {"status": "rejected"}}, tuple(actions))
        target = by_id[out[0]["target"]]
        if target["type"] in ("approval", "end"):
            return Stop(target, tuple(actions))
        if target["type"] == "action":
            actions.append(target)
        current = target["id"]
    return Stop({"id": current, "type": "end", "data": {"status": "rejected"}}, tuple(actions))


def approval_path(nodes: list[dict[str, Any]], edges: list[dict[str, Any]], answers: dict[str, Any]) -> list[str]:
    """The approval nodes' ids a request with `answers` meets from the start, in order, each step approved: its
    conditions decided as `walk` decides them, so a branch not taken is not counted. What "step 2 of 3" counts."""
    start = next((node["id"] for node in nodes if node["type"] == "start"), None)
    path: list[str] = []
    while start is not None and len(path) < len(nodes):  # the bound: a graph changed into a cycle
        stop = walk(nodes, edges, start, answers)
        if stop.node["type"] != "approval":
            break
        path.append(stop.node["id"])
        start = stop.node["id"]
    return path
