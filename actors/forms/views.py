"""How forms and submissions look on the wire: the form, its list summary, its public
definition for respondents, a submission and its versions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from actors.kernel.app_links import form_url
from protocol.ids import iso


def form_summary(row: Mapping[str, Any], base_url: str, submission_count: int) -> dict[str, Any]:
    settings = row["settings"]
    return {"id": row["id"], "boardId": row["board_id"], "name": row["name"], "description": row["description"],
            "slug": row["slug"], "status": row["status"], "settings": settings,
            "publicUrl": form_url(base_url, row["slug"]), "submissionCount": submission_count,
            "fieldCount": len(row["schema"].get("components", [])),
            "requireAuth": bool(settings.get("requireAuth", False)), "createdBy": row["created_by"],
            "createdAt": iso(row["created_at"]), "updatedAt": iso(row["updated_at"]),
            "publishedAt": iso(row["published_at"])}


def form_view(row: Mapping[str, Any], base_url: str, submission_count: int) -> dict[str, Any]:
    return {**form_summary(row, base_url, submission_count), "schema": row["schema"], "mappings": row["mappings"]}


def public_form(row: Mapping[str, Any]) -> dict[str, Any]:
    """What a respondent sees of a published or closed form."""
    settings = row["settings"]
    return {"id": row["id"], "slug": row["slug"], "name": row["name"], "description": row["description"],
            "schema": row["schema"], "settings": {"successMessage": settings.get("successMessage")},
            "requireAuth": bool(settings.get("requireAuth", False)), "status": row["status"]}


def submission_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "formId": row["form_id"], "data": row["data"], "itemId": row["item_id"],
            "status": row["status"], "submittedBy": row["submitted_by"], "submittedAt": iso(row["submitted_at"]),
            "version": row["version"]}


def version_view(row: Mapping[str, Any]) -> dict[str, Any]:
    changed_by = None if row["changed_by"] is None else {
        "id": row["changed_by"], "name": row["changed_by_name"], "email": row["changed_by_email"]}
    return {"version": row["version"], "data": row["data"], "changedBy": changed_by, "reason": row["reason"],
            "comment": row["comment"], "createdAt": iso(row["created_at"])}
