"""A template's structure, pure: taken from a board (snapshot), merged with an apply's overrides, and re-pointed
at a new board's groups and columns (remap). Also the template views callers see.

References inside column settings and automations are group and column keys; a snapshot uses the source
board's ids as keys, so nothing needs rewriting when it is taken, except the board's own id (BOARD_KEY).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

import msgspec

from protocol import templates as spec
from protocol.errors import FieldError, ValidationFailed
from protocol.ids import iso
from protocol.kpis import Thresholds

# Automation config keys that name a group or a column of the rule's own board: a template must have it.
_GROUP_KEYS = ("groupId", "fromGroupId", "toGroupId")
_COLUMN_KEYS = ("columnId",)
# Where a rule names its board's groups, columns and KPIs, or the board itself: all that applying re-points.
_RULE_KEYS = (*_GROUP_KEYS, *_COLUMN_KEYS, "boardId", "kpiId")
# Column types whose settings name other columns: created without settings, then given them once the
# board's new column ids are known.
REFERRING_TYPES = frozenset({"formula", "lookup"})
# Triggers tied to something outside the board's structure (a form of the source board, a rule's secret):
# a snapshot leaves such rules out (docs/decisions.md, "Template structure and use").
UNPORTABLE_TRIGGERS = frozenset({"form.submitted", "webhook.received"})
# Actions holding the source board's integrations, often with their credentials (a call_webhook's URL and
# headers): a template is read by every member of the organization, so a snapshot leaves such rules out too.
UNPORTABLE_ACTIONS = frozenset({"call_webhook"})
KPI_TRIGGER = "kpi.threshold_breach"
# A KPI rule's `kpiId` names the structure's KPI by this prefix and the KPI's index (`kpi:0` the first).
KPI_KEY = "kpi:"
# A target whose deadline has passed becomes this many days from the day of applying; one further away than a
# template holds (spec.DAYS_MAX), that many.
DEFAULT_TARGET_DAYS = 90
_REFERENCE = re.compile(r"\{([A-Za-z0-9_-]{1,64})\}")


def _replace_board(value: Any, board_id: str) -> Any:
    if isinstance(value, str):
        return spec.BOARD_KEY if value == board_id else value
    if isinstance(value, list):
        return [_replace_board(v, board_id) for v in value]
    if isinstance(value, dict):
        return {k: _replace_board(v, board_id) for k, v in value.items()}
    return value


def _thresholds(raw: Mapping[str, Any] | None) -> Thresholds | None:
    return None if raw is None else msgspec.convert(raw, Thresholds)


def snapshot(board: Mapping[str, Any], kpis: Iterable[Mapping[str, Any]], automations: Iterable[Mapping[str, Any]],
             today: date) -> spec.Structure:
    """The structure of a board (its `boards.get` view), its KPI records (definition and current target) and its
    automation records; no items, values or comments."""
    kpis = list(kpis)  # read twice: the KPIs, and the keys rules name them by
    groups = [spec.TemplateGroup(key=g["id"], name=g["name"], color=g["color"]) for g in board["groups"]]
    columns = [spec.TemplateColumn(key=c["id"], name=c["name"], type=c["type"], config=c["config"],
                                   width=c["width"], required=c["required"]) for c in board["columns"]]
    template_kpis = []
    for kpi in kpis:
        target = None
        if kpi["t_value"] is not None:
            days = (kpi["t_deadline"] - today).days
            days = DEFAULT_TARGET_DAYS if days < 1 else min(days, spec.DAYS_MAX)
            target = spec.TemplateTarget(value=kpi["t_value"], days=days)
        template_kpis.append(spec.TemplateKpi(
            name=kpi["name"], category=kpi["category"], direction=kpi["direction"], frequency=kpi["frequency"],
            unit=kpi["unit"], thresholds=_thresholds(kpi["thresholds"]), target=target))
    kpi_keys = {kpi["id"]: f"{KPI_KEY}{index}" for index, kpi in enumerate(kpis)}
    rules = [msgspec.convert(_replace_board({
        "name": rule["name"], "trigger": _kpi_keyed(rule["trigger"], kpi_keys), "conditions": rule["conditions"],
        "actions": rule["actions"], "enabled": rule["enabled"]}, board["id"]), spec.TemplateAutomation)
        for rule in automations if rule["trigger"]["type"] not in UNPORTABLE_TRIGGERS
        and not any(action["type"] in UNPORTABLE_ACTIONS for action in rule["actions"])
        and _kpi_keyed(rule["trigger"], kpi_keys) is not None]
    return spec.Structure(defaultView=board["defaultView"], groups=groups, columns=columns, kpis=template_kpis,
                          automations=rules)


def _kpi_keyed(trigger: Mapping[str, Any], kpi_keys: Mapping[str, str]) -> Mapping[str, Any] | None:
    """A KPI rule's trigger naming its KPI by key; None when that KPI is not in the template (left out, as
    the rule could not run on the new board)."""
    kpi_id = (trigger.get("config") or {}).get("kpiId")
    if trigger["type"] != KPI_TRIGGER or kpi_id is None:
        return trigger
    if kpi_id not in kpi_keys:
        return None
    return {**trigger, "config": {**trigger["config"], "kpiId": kpi_keys[kpi_id]}}


def merged(structure: spec.Structure, overrides: spec.Overrides | None) -> spec.Structure:
    """The template's structure with each part the overrides give replaced."""
    if overrides is None:
        return structure
    parts = {name: value for name in ("defaultView", "groups", "columns", "kpis", "automations")
             if (value := getattr(overrides, name)) is not None}
    return msgspec.structs.replace(structure, **parts)


def check(structure: spec.Structure, field: str = "overrides") -> None:
    """Keys are unique, and every automation names only groups and columns the structure has; a failure names
    the field (`<field>.automations.2.trigger.config.columnId`)."""
    errors = []
    for part in ("groups", "columns"):
        seen: set[str] = set()
        for index, entry in enumerate(getattr(structure, part)):
            if entry.key in seen or entry.key == spec.BOARD_KEY:
                errors.append(FieldError(f"{field}.{part}.{index}.key", "is not unique in the structure"))
            seen.add(entry.key)
    groups = {g.key for g in structure.groups}
    columns = {c.key for c in structure.columns}
    dependencies = {c.key for c in structure.columns if c.type == "dependency"}
    kpis = {f"{KPI_KEY}{index}" for index in range(len(structure.kpis))}
    for index, column in enumerate(structure.columns):
        if column.type in REFERRING_TYPES and column.config is not None:
            errors += _unknown_columns(column.config, columns, dependencies, f"{field}.columns.{index}.config")
    for index, rule in enumerate(structure.automations):
        at = f"{field}.automations.{index}"
        errors += _unknown(rule.trigger.config, groups, columns, f"{at}.trigger.config")
        kpi_id = rule.trigger.config.get("kpiId")
        if rule.trigger.type == KPI_TRIGGER and kpi_id is not None and kpi_id not in kpis:
            errors.append(FieldError(f"{at}.trigger.config.kpiId", f"names no KPI of the structure ({KPI_KEY}0 is "
                                     "the first)"))
        errors += [FieldError(f"{at}.conditions.{n}.columnId", "names no column of the structure")
                   for n, condition in enumerate(rule.conditions) if condition.columnId not in columns]
        for n, action in enumerate(rule.actions):
            if _on_the_board(action.config):  # another board's ids are its own
                errors += _unknown(action.config, groups, columns, f"{at}.actions.{n}.config")
                values = action.config.get("values")
                errors += [FieldError(f"{at}.actions.{n}.config.values.{key}", "names no column of the structure")
                           for key in (values if isinstance(values, dict) else ()) if key not in columns]
    if errors:
        raise ValidationFailed.naming(errors)


def _on_the_board(config: Mapping[str, Any]) -> bool:
    """Whether an action acts on the rule's own board (no `boardId`, or `board`)."""
    return bool(config.get("boardId", spec.BOARD_KEY) == spec.BOARD_KEY)


def _unknown(config: Mapping[str, Any], groups: set[str], columns: set[str], at: str) -> list[FieldError]:
    return [FieldError(f"{at}.{key}", f"names no {what} of the structure")
            for keys, known, what in ((_GROUP_KEYS, groups, "group"), (_COLUMN_KEYS, columns, "column"))
            for key in keys if key in config and config[key] is not None and not _names(config[key], known)]


def _names(reference: Any, known: set[str]) -> bool:
    """Whether a reference is the key of a group or column in `known` (a list or an object is not)."""
    return isinstance(reference, str) and reference in known


def _unknown_columns(config: Mapping[str, Any], columns: set[str], dependencies: set[str],
                     at: str) -> list[FieldError]:
    """A formula's `{key}` references and a lookup's columns must be columns of the structure, the column a
    lookup follows a dependency column (as the board checks them)."""
    expression = config.get("expression")
    named = set(_REFERENCE.findall(expression)) if isinstance(expression, str) else set()
    errors = [FieldError(f"{at}.expression", f"names no column {key} of the structure")
              for key in sorted(named - columns)]
    return errors + [FieldError(f"{at}.{key}", f"names no {what}column of the structure")
                     for key, known, what in (("dependencyColumnId", dependencies, "dependency "),
                                              ("targetColumnId", columns, ""))
                     if config.get(key) is not None and not _names(config[key], known)]


def remap(config: Mapping[str, Any], ids: Mapping[str, str]) -> dict[str, Any]:
    """A column's settings (formula, lookup) re-pointed by `ids`: the `{key}` references of a formula's
    expression and the columns a lookup follows and reads; its other settings stay as they are."""
    pointed = dict(config)
    if isinstance(pointed.get("expression"), str):
        pointed["expression"] = _REFERENCE.sub(lambda match: "{" + ids.get(match[1], match[1]) + "}",
                                               pointed["expression"])
    for key in ("dependencyColumnId", "targetColumnId"):
        if isinstance(pointed.get(key), str):
            pointed[key] = ids.get(pointed[key], pointed[key])
    return pointed


def remap_rule(rule: Mapping[str, Any], ids: Mapping[str, str]) -> dict[str, Any]:
    """A rule (a TemplateAutomation as builtins) with its references re-pointed by `ids`: the groups and columns
    its trigger and conditions name, and in each action on its own board the groups, columns, the board and the
    columns of the `values` a created item gets. Names, texts and compared values stay as they are, even when
    they read like a key."""
    def pointed(config: Mapping[str, Any]) -> dict[str, Any]:
        return {key: ids.get(value, value) if key in _RULE_KEYS and isinstance(value, str) else value
                for key, value in config.items()}

    actions = []
    for action in rule["actions"]:
        config = action["config"]
        if _on_the_board(config):
            config = pointed(config)
            if isinstance(config.get("values"), dict):
                config["values"] = {ids.get(key, key): value for key, value in config["values"].items()}
        actions.append({**action, "config": config})
    return {**rule, "trigger": {**rule["trigger"], "config": pointed(rule["trigger"]["config"])},
            "conditions": [{**condition, "columnId": ids.get(condition["columnId"], condition["columnId"])}
                           for condition in rule["conditions"]],
            "actions": actions}


def counts(structure: spec.Structure) -> dict[str, int]:
    return {"groups": len(structure.groups), "columns": len(structure.columns), "kpis": len(structure.kpis),
            "automations": len(structure.automations)}


def preview(structure: spec.Structure) -> dict[str, Any]:
    """What a template picker draws: the groups in their colours and the columns by type."""
    return {"groups": [{"name": g.name, "color": g.color} for g in structure.groups],
            "columns": [{"name": c.name, "type": c.type} for c in structure.columns]}


def summary_view(template_id: str, name: str, description: str | None, category: str, tags: list[str],
                 structure: spec.Structure) -> dict[str, Any]:
    return {"id": template_id, "name": name, "description": description, "category": category, "tags": tags,
            "preview": preview(structure), "isVendor": template_id.startswith(spec.VENDOR_PREFIX),
            **counts(structure)}


def tenant_view(row: Mapping[str, Any]) -> dict[str, Any]:
    structure = stored(row)
    return {**summary_view(row["id"], row["name"], row["description"], row["category"], list(row["tags"]),
                           structure),
            "sourceBoardId": row["source_board_id"], "createdBy": row["created_by"], "usageCount": row["usage_count"],
            "createdAt": iso(row["created_at"]), "updatedAt": iso(row["updated_at"])}


def stored(row: Mapping[str, Any]) -> spec.Structure:
    return msgspec.convert(row["structure"], spec.Structure)


def detail(view: dict[str, Any], structure: spec.Structure) -> dict[str, Any]:
    return {**view, "structure": msgspec.to_builtins(structure)}
