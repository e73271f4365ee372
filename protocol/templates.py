"""Board templates: the structure a template holds, the inputs with their limits and the
procedure declarations. Every procedure needs the plan feature `templates`; reading needs the `read:items` key
scope, changing `write:items`; all of them are for members and up (a template shows a board's structure).

A structure is a board's skeleton: groups, columns, KPIs and automations, no items, values or comments. Each
group and column has a `key`; automations and column settings refer to groups and columns by these keys (and to
the board itself by `BOARD_KEY`), so a template applied to a new board points at the new board's own groups and
columns.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from protocol.automations import Operator
from protocol.boards import ColumnName, GroupName, HexColor, View
from protocol.columns import ColumnType
from protocol.fields import Id
from protocol.ids import Prefix
from protocol.kpis import Category, Direction, Frequency, KpiName, Number, Thresholds, Unit
from protocol.registry import EmptyInput, Procedure, Role, declare

# What the source board's id becomes in a template's automations (a create_item on the same board).
BOARD_KEY = "board"
# Vendor template ids.
VENDOR_PREFIX = f"{Prefix.TEMPLATE}_vendor_"

TemplateName = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
Description = Annotated[str, msgspec.Meta(max_length=2000)]
Category_ = Annotated[str, msgspec.Meta(min_length=1, max_length=50)]
Tag = Annotated[str, msgspec.Meta(min_length=1, max_length=50)]
Key = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
RuleName = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]
# A trigger or action type: a template may name `kpi.threshold_breach`, which is not a rule trigger.
TypeName = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
# A KPI target's deadline, in days after the day of applying: at most ten years.
DAYS_MAX = 3660
Days = Annotated[int, msgspec.Meta(ge=1, le=DAYS_MAX)]


class TemplateGroup(msgspec.Struct, kw_only=True):
    key: Key
    name: GroupName
    color: HexColor | None = None


class TemplateColumn(msgspec.Struct, kw_only=True):
    key: Key
    name: ColumnName
    type: ColumnType
    config: dict[str, Any] | None = None
    width: Annotated[int, msgspec.Meta(ge=40, le=2000)] = 150
    required: bool = False


class TemplateTarget(msgspec.Struct, kw_only=True):
    """A KPI's target; its deadline is `days` after the day the template is applied."""

    value: Number
    days: Days = 90


class TemplateKpi(msgspec.Struct, kw_only=True):
    name: KpiName
    category: Category
    direction: Direction
    frequency: Frequency = "daily"
    unit: Unit | None = None
    thresholds: Thresholds | None = None
    target: TemplateTarget | None = None


class TemplateTrigger(msgspec.Struct):
    type: TypeName
    config: dict[str, Any] = {}


class TemplateCondition(msgspec.Struct):
    columnId: Key
    operator: Operator
    value: Any = None


class TemplateAction(msgspec.Struct):
    type: TypeName
    config: dict[str, Any] = {}


class TemplateAutomation(msgspec.Struct, kw_only=True):
    name: RuleName
    trigger: TemplateTrigger
    actions: Annotated[list[TemplateAction], msgspec.Meta(min_length=1, max_length=20)]
    conditions: Annotated[list[TemplateCondition], msgspec.Meta(max_length=20)] = []
    enabled: bool = True


# How many of each a template holds: boards.create's limits for groups and columns; as many KPIs and rules as a
# tier board reasonably shows. A board with more cannot be saved as a template (400 naming sourceBoardId).
LIMITS = {"groups": 50, "columns": 100, "kpis": 100, "automations": 100}
Groups = Annotated[list[TemplateGroup], msgspec.Meta(max_length=LIMITS["groups"])]
Columns = Annotated[list[TemplateColumn], msgspec.Meta(max_length=LIMITS["columns"])]
Kpis = Annotated[list[TemplateKpi], msgspec.Meta(max_length=LIMITS["kpis"])]
Automations = Annotated[list[TemplateAutomation], msgspec.Meta(max_length=LIMITS["automations"])]


class Structure(msgspec.Struct, kw_only=True):
    defaultView: View = "board"
    groups: Groups = []
    columns: Columns = []
    kpis: Kpis = []
    automations: Automations = []


class Overrides(msgspec.Struct, kw_only=True):
    """A partial override of a template's structure: each part given replaces the template's
    part whole; a part left out is the template's."""

    defaultView: View | None = None
    groups: Groups | None = None
    columns: Columns | None = None
    kpis: Kpis | None = None
    automations: Automations | None = None


class IdInput(msgspec.Struct):
    id: Id


class CreateInput(msgspec.Struct):
    sourceBoardId: Id
    name: TemplateName
    description: Description | None = None
    includeKpis: bool = True
    includeAutomations: bool = True
    category: Category_ = "custom"
    tags: Annotated[list[Tag], msgspec.Meta(max_length=20)] = []


class ApplyInput(msgspec.Struct):
    templateId: Id
    projectId: Id
    boardName: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    overrides: Overrides | None = None


class UpdateInput(msgspec.Struct):
    id: Id
    name: TemplateName | None = None
    description: Description | None = None


READ, WRITE = "read:items", "write:items"


def _read(name: str, input: type[msgspec.Struct], summary: str) -> Procedure:
    return declare(name, "query", input, key_scope=READ, min_role=Role.MEMBER, feature="templates",
                   summary=summary)


def _write(name: str, input: type[msgspec.Struct], summary: str, *, token_scope: str | None = None) -> Procedure:
    return declare(name, "mutation", input, key_scope=WRITE, token_scope=token_scope, min_role=Role.MEMBER,
                   feature="templates", summary=summary)


LIST_VENDOR = _read("templates.listVendor", EmptyInput, "The built-in lean board templates")
LIST_TENANT = _read("templates.listTenant", EmptyInput, "The organization's templates, newest first")
GET = _read("templates.getById", IdInput, "A template with its structure")
CREATE = _write("templates.create", CreateInput, "Save a board's structure (groups, columns, KPIs, automations) "
                "as a template")
APPLY = _write("templates.apply", ApplyInput, "Create a board from a template, with optional overrides")
UPDATE = _write("templates.update", UpdateInput, "Rename a template or change its description (its creator or an "
                "admin)")
DELETE = _write("templates.delete", IdInput, "Delete a template (its creator or an admin); boards built from it "
                "stay", token_scope="delete")
