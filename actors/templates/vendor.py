"""The vendor templates (docs/templates-and-meetings.md): read-only lean boards every organization can apply, as data —
an SQCDP tier-1 board, a 5S audit board, A3 / 8D problem solving, a gemba walk and a kaizen pipeline. Ids are
`tpl_vendor_<name>`; group and column keys are `grp_*` / `col_*` and automations name them by these keys
(protocol/templates.py). tests/integration/templates/test_vendor.py applies every one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from actors.templates.structure import summary_view
from protocol import templates as spec
from protocol.kpis import Band, Thresholds


@dataclass(frozen=True)
class VendorTemplate:
    id: str
    name: str
    description: str
    category: str
    tags: tuple[str, ...]
    structure: spec.Structure


def view(template: VendorTemplate) -> dict[str, Any]:
    return summary_view(template.id, template.name, template.description, template.category, list(template.tags),
                        template.structure)


def _status(*labels: str, done: str = "Done") -> dict[str, Any]:
    colors = ("#C4C4C4", "#FDAB3D", "#E2445C", "#579BFC", "#A25DDC")
    return {"labels": [*({"name": name, "color": colors[index % len(colors)]} for index, name in enumerate(labels)),
                       {"name": done, "color": "#00C875", "isDone": True}]}


def _group(key: str, name: str, color: str) -> spec.TemplateGroup:
    return spec.TemplateGroup(key=key, name=name, color=color)


def _column(key: str, name: str, column_type: Any, config: dict[str, Any] | None = None, *,
            width: int = 150) -> spec.TemplateColumn:
    return spec.TemplateColumn(key=key, name=name, type=column_type, config=config, width=width)


def _bands(green: tuple[float | None, float | None], amber: tuple[float | None, float | None],
           red: tuple[float | None, float | None]) -> Thresholds:
    return Thresholds(green=Band(*green), amber=Band(*amber), red=Band(*red))


def _kpi(name: str, category: Any, direction: Any, unit: str, thresholds: Thresholds, *, frequency: Any = "daily",
         target: float | None = None, days: int = 90) -> spec.TemplateKpi:
    return spec.TemplateKpi(name=name, category=category, direction=direction, frequency=frequency, unit=unit,
                            thresholds=thresholds,
                            target=None if target is None else spec.TemplateTarget(value=target, days=days))


def _rule(name: str, trigger: str, trigger_config: dict[str, Any], *actions: tuple[str, dict[str, Any]]
          ) -> spec.TemplateAutomation:
    return spec.TemplateAutomation(name=name, trigger=spec.TemplateTrigger(trigger, trigger_config),
                                   actions=[spec.TemplateAction(kind, config) for kind, config in actions])


def _changed_to(column: str, value: Any) -> dict[str, Any]:
    return {"columnId": column, "toValue": value}


SQCDP = VendorTemplate(
    id="tpl_vendor_sqcdp", name="SQCDP tier-1 board",
    description="The daily tier-1 meeting board of a production line: one group per SQCDP letter (Safety, "
                "Quality, Cost, Delivery, People) for the day's problems and their countermeasures, and one KPI "
                "per letter with green, amber and red bands. Escalated problems become critical; a red KPI opens "
                "a corrective action in its letter, due in three days, for the KPI's owner.",
    category="tier_meeting", tags=("sqcdp", "tier 1", "daily management", "shop floor"),
    structure=spec.Structure(
        defaultView="board",
        groups=[_group("grp_s", "S – Safety", "#E2445C"), _group("grp_q", "Q – Quality", "#579BFC"),
                _group("grp_c", "C – Cost", "#FDAB3D"), _group("grp_d", "D – Delivery", "#00C875"),
                _group("grp_p", "P – People", "#A25DDC")],
        columns=[_column("col_status", "Status", "status", _status("Open", "In progress", "Escalated")),
                 _column("col_owner", "Owner", "people", {"multiple": False}),
                 _column("col_due", "Due", "date"),
                 _column("col_priority", "Priority", "priority"),
                 _column("col_countermeasure", "Countermeasure", "text", width=300)],
        kpis=[_kpi("Days without lost-time injury", "safety", "higher_is_better", "days",
                   _bands((30, None), (7, 30), (None, 7)), target=365, days=365),
              _kpi("Scrap rate", "quality", "lower_is_better", "%", _bands((None, 1.5), (1.5, 2), (2, None)),
                   target=1.0),
              _kpi("Overtime hours", "cost", "lower_is_better", "h", _bands((None, 20), (20, 40), (40, None)),
                   frequency="weekly", target=15),
              _kpi("On-time delivery", "delivery", "higher_is_better", "%", _bands((95, None), (90, 95), (None, 90)),
                   target=98),
              _kpi("Attendance", "people", "higher_is_better", "%", _bands((95, None), (90, 95), (None, 90)),
                   target=97)],
        automations=[
            _rule("Escalated problems are critical", "value.changed", _changed_to("col_status", "Escalated"),
                  ("set_value", {"columnId": "col_priority", "value": "Critical"})),
            msgspec.structs.replace(
                _rule("New safety problems are at least high priority", "item.created", {"groupId": "grp_s"},
                      ("set_value", {"columnId": "col_priority", "value": "High"})),
                conditions=[spec.TemplateCondition("col_priority", "is_empty")]),
            _rule("A red KPI opens a countermeasure", "kpi.threshold_breach", {"threshold": "red"},
                  ("create_action", {"title": "Countermeasure: {kpi.name} is red ({kpi.value})",
                                     "priority": "high", "dueInDays": 3})),
        ]))

FIVE_S = VendorTemplate(
    id="tpl_vendor_5s_audit", name="5S audit board",
    description="Findings of the weekly 5S audit of a work area, one group per S (Sort, Set in order, Shine, "
                "Standardize, Sustain), each with the area, a photo, an owner and a due date; the area's audit "
                "score and open red tags as KPIs. Findings closed as Done leave the board.",
    category="audit", tags=("5s", "audit", "workplace organisation"),
    structure=spec.Structure(
        defaultView="table",
        groups=[_group("grp_sort", "1S Sort (Seiri)", "#E2445C"), _group("grp_set", "2S Set in order (Seiton)",
                                                                          "#FDAB3D"),
                _group("grp_shine", "3S Shine (Seiso)", "#579BFC"),
                _group("grp_standardize", "4S Standardize (Seiketsu)", "#00C875"),
                _group("grp_sustain", "5S Sustain (Shitsuke)", "#A25DDC")],
        columns=[_column("col_status", "Status", "status", _status("Open", "In progress")),
                 _column("col_area", "Area", "dropdown", {"options": ["Assembly", "Pressing", "Warehouse",
                                                                      "Maintenance shop", "Office"]}),
                 _column("col_owner", "Owner", "people", {"multiple": False}),
                 _column("col_due", "Due", "date"),
                 _column("col_red_tag", "Red tag", "checkbox"),
                 _column("col_photo", "Photo", "file"),
                 _column("col_finding", "Finding", "long_text", width=300)],
        kpis=[_kpi("5S audit score", "quality", "higher_is_better", "%", _bands((80, None), (60, 80), (None, 60)),
                   frequency="weekly", target=85),
              _kpi("Open red tags", "cost", "lower_is_better", "tags", _bands((None, 5), (5, 15), (15, None)),
                   frequency="weekly", target=3)],
        automations=[_rule("Closed findings are archived", "value.changed", _changed_to("col_status", "Done"),
                           ("archive_item", {}))]))

PROBLEM_SOLVING = VendorTemplate(
    id="tpl_vendor_8d", name="A3 / 8D problem solving",
    description="A structured problem-solving board following the 8 disciplines (the A3 sections map onto "
                "them): team, problem description, containment, root cause, corrective actions, validation, "
                "prevention and recognition. Each step has an owner, a due date, evidence and a verification "
                "tick; a verified step is done.",
    category="problem_solving", tags=("8d", "a3", "root cause", "corrective action"),
    structure=spec.Structure(
        defaultView="table",
        groups=[_group("grp_d1", "D1 Team", "#C4C4C4"), _group("grp_d2", "D2 Problem description", "#E2445C"),
                _group("grp_d3", "D3 Containment", "#FF642E"), _group("grp_d4", "D4 Root cause", "#FDAB3D"),
                _group("grp_d5", "D5 Corrective actions", "#579BFC"),
                _group("grp_d6", "D6 Implement and validate", "#66CCFF"),
                _group("grp_d7", "D7 Prevent recurrence", "#037F4C"),
                _group("grp_d8", "D8 Recognise the team", "#00C875")],
        columns=[_column("col_status", "Status", "status", _status("Not started", "In progress", "Blocked")),
                 _column("col_owner", "Owner", "people"),
                 _column("col_due", "Due", "date"),
                 _column("col_method", "Method", "label", {"labels": [
                     {"name": "5 Whys", "color": "#579BFC"}, {"name": "Ishikawa", "color": "#A25DDC"},
                     {"name": "Is / Is not", "color": "#FDAB3D"}, {"name": "Pareto", "color": "#00C875"}]}),
                 _column("col_evidence", "Evidence", "file"),
                 _column("col_verified", "Verified", "checkbox"),
                 _column("col_notes", "Notes", "long_text", width=300)],
        kpis=[_kpi("Days to containment", "quality", "lower_is_better", "days",
                   _bands((None, 1), (1, 3), (3, None)), frequency="monthly", target=1),
              _kpi("8D reports closed on time", "quality", "higher_is_better", "%",
                   _bands((90, None), (75, 90), (None, 75)), frequency="monthly", target=95)],
        automations=[_rule("A verified step is done", "value.changed", _changed_to("col_verified", True),
                           ("set_value", {"columnId": "col_status", "value": "Done"}))]))

GEMBA = VendorTemplate(
    id="tpl_vendor_gemba_walk", name="Gemba walk",
    description="Plan gemba walks and record what was seen on the floor: each observation has its area, its "
                "kind (safety, quality, flow, 5S, idea), a photo and a follow-up owner. Done observations move to "
                "Closed; the number of walks done each week is a KPI.",
    category="gemba", tags=("gemba", "leader standard work", "go and see"),
    structure=spec.Structure(
        defaultView="board",
        groups=[_group("grp_planned", "Planned walks", "#579BFC"), _group("grp_seen", "Observations", "#FDAB3D"),
                _group("grp_follow_up", "Follow-up", "#E2445C"), _group("grp_closed", "Closed", "#00C875")],
        columns=[_column("col_status", "Status", "status", _status("Open", "In progress")),
                 _column("col_walker", "Walker", "people", {"multiple": False}),
                 _column("col_date", "Date", "date"),
                 _column("col_area", "Area", "dropdown", {"options": ["Assembly", "Pressing", "Warehouse",
                                                                      "Shipping", "Maintenance"]}),
                 _column("col_kind", "Observation", "label", {"labels": [
                     {"name": "Safety", "color": "#E2445C"}, {"name": "Quality", "color": "#579BFC"},
                     {"name": "Flow", "color": "#FDAB3D"}, {"name": "5S", "color": "#A25DDC"},
                     {"name": "Idea", "color": "#00C875"}]}),
                 _column("col_photo", "Photo", "file"),
                 _column("col_notes", "Notes", "long_text", width=300)],
        kpis=[_kpi("Gemba walks done", "people", "higher_is_better", "walks", _bands((5, None), (3, 5), (None, 3)),
                   frequency="weekly", target=5)],
        automations=[_rule("Done observations are closed", "value.changed", _changed_to("col_status", "Done"),
                           ("move_item", {"groupId": "grp_closed"}))]))

KAIZEN = VendorTemplate(
    id="tpl_vendor_kaizen", name="Kaizen pipeline",
    description="Improvement ideas from idea to standard: evaluated, approved, implemented and standardised. "
                "Each idea has an owner, an implementation cost, an annual saving and its payback in months "
                "(computed). Approved ideas move to Approved; realised savings and ideas per month are KPIs.",
    category="continuous_improvement", tags=("kaizen", "ideas", "continuous improvement"),
    structure=spec.Structure(
        defaultView="board",
        groups=[_group("grp_ideas", "Ideas", "#C4C4C4"), _group("grp_evaluating", "Evaluating", "#FDAB3D"),
                _group("grp_approved", "Approved", "#579BFC"), _group("grp_doing", "Implementing", "#A25DDC"),
                _group("grp_standard", "Standardised", "#00C875")],
        columns=[_column("col_status", "Status", "status", _status("New", "Evaluating", "Approved", "Rejected")),
                 _column("col_owner", "Owner", "people", {"multiple": False}),
                 _column("col_cost", "Implementation cost", "currency", {"currency": "EUR", "decimals": 0,
                                                                         "min": 0}),
                 _column("col_saving", "Annual saving", "currency", {"currency": "EUR", "decimals": 0, "min": 0}),
                 _column("col_payback", "Payback (months)", "formula",
                         {"expression": "{col_cost} / {col_saving} * 12", "decimals": 1}),
                 _column("col_start", "Start", "date"),
                 _column("col_description", "Description", "long_text", width=300)],
        kpis=[_kpi("Ideas submitted", "people", "higher_is_better", "ideas", _bands((20, None), (10, 20), (None, 10)),
                   frequency="monthly", target=25),
              _kpi("Realised savings", "cost", "higher_is_better", "EUR",
                   _bands((10000, None), (5000, 10000), (None, 5000)), frequency="monthly", target=12000)],
        automations=[_rule("Approved ideas move to Approved", "value.changed", _changed_to("col_status", "Approved"),
                           ("move_item", {"groupId": "grp_approved"}))]))

TEMPLATES = (SQCDP, FIVE_S, PROBLEM_SOLVING, GEMBA, KAIZEN)
BY_ID = {template.id: template for template in TEMPLATES}
