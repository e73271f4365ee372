"""How flows, requests, decisions and versions are shown (procedures and the `flow:<id>` events), the answers
an approver's link page sums up, and the record hash a GxP signature binds: the SHA-256 of the canonical JSON
of the signed submission version."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from actors.approvals.state import RequestRow
from actors.forms.answers import answer_text
from protocol.approvals import REQUEST_STATUSES
from protocol.form_schema import FormSchema
from protocol.ids import iso


def record_hash(submission_id: str, version: int, data: dict[str, Any]) -> str:
    """Canonical JSON: keys sorted, no insignificant white space, UTF-8; of {submissionId, version, data}."""
    canonical = json.dumps({"submissionId": submission_id, "version": version, "data": data}, sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def flow_view(row: Mapping[str, Any], counts: dict[str, int] | None = None) -> dict[str, Any]:
    view = {"id": row["id"], "formId": row["form_id"], "name": row["name"], "description": row["description"],
            "gxpRequired": row["gxp_required"], "isActive": row["is_active"], "nodes": row["nodes"],
            "edges": row["edges"], "createdBy": row["created_by"], "createdAt": iso(row["created_at"]),
            "updatedAt": iso(row["updated_at"])}
    if counts is not None:
        view["requestCounts"] = {status: counts.get(status, 0) for status in REQUEST_STATUSES}
    return view


def request_view(row: RequestRow | Mapping[str, Any]) -> dict[str, Any]:
    get = (lambda name: getattr(row, name)) if isinstance(row, RequestRow) else row.__getitem__
    return {"id": get("id"), "flowId": get("flow_id"), "formId": get("form_id"), "submissionId": get("submission_id"),
            "itemId": get("item_id"), "status": get("status"), "currentNodeId": get("node_id"), "step": get("step"),
            "version": get("version"), "gxpRequired": get("gxp_required"),
            "awaitingRevision": get("revision_token_hash") is not None,
            "stepStartedAt": iso(get("step_started_at")), "expiresAt": iso(get("expires_at")),
            "createdAt": iso(get("created_at")), "updatedAt": iso(get("updated_at")),
            "completedAt": iso(get("completed_at"))}


def decision_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "requestId": row["request_id"], "nodeId": row["node_id"], "step": row["step"],
            "decision": row["decision"], "comment": row["comment"], "fieldModifications": row["field_modifications"],
            "decidedBy": {"id": row["user_id"], "name": row["user_name"], "email": row["user_email"]},
            "via": row["via"], "ipAddress": row["ip_address"], "userAgent": row["user_agent"],
            "version": row["version"], "signature": row["signature"], "createdAt": iso(row["created_at"])}


def version_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"version": row["version"], "data": row["data"], "changedBy": row["changed_by"],
            "changedByName": row["changed_by_name"], "changedByEmail": row["changed_by_email"],
            "reason": row["reason"], "comment": row["comment"], "createdAt": iso(row["created_at"])}


def answer_summary(schema: FormSchema, data: Mapping[str, Any], limit: int, length: int = 300
                   ) -> tuple[list[tuple[str, str]], int]:
    """The first `limit` answered fields in the form's order as (label, answer as text: a choice by its label,
    cut at `length` characters), and how many answered fields are left out."""
    answered = [component for component in schema.components if answer_text(data.get(component.key)) != ""]
    lines = []
    for component in answered[:limit]:
        labels = {choice.value: choice.label for choice in component.data.values} if component.data else {}
        answer = data[component.key]
        parts = answer if isinstance(answer, list) else [answer]
        shown = [labels.get(part, part) if isinstance(part, str) else part for part in parts]
        text = answer_text(shown if isinstance(answer, list) else shown[0])
        lines.append((component.label or component.key, text if len(text) <= length else text[:length] + "…"))
    return lines, len(answered) - len(lines)
