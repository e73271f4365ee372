// One line saying what a recorded change of a meeting's board did ("Item 'Pump 3' Status → Done", "KPI 'Scrap
// rate' value 4.2 (Red)", "Action 'Fix guard' escalated to level 2"), read against the state just before it:
// an item's name, a column's name and a group's name come from the board as it was, an agenda entry's from the
// agenda. A change this does not know is named by its event.
import { number } from "../../format.js";
import { findEntry } from "./agenda.js";

const ITEM_FIELDS = new Set(["name", "description", "archivedAt", "deletedAt"]);

/** A column value as a few words: a label's text, a number, a date, a count of people. */
export function valueText(t, value) {
  if (value === null || value === undefined || value === "") return t("valueEmpty");
  if (typeof value === "number") return number(value);
  if (typeof value === "boolean") return value ? t("yes") : t("no");
  if (Array.isArray(value)) return value.map((entry) => valueText(t, entry)).join(", ");
  if (typeof value === "object") {
    if ("label" in value) return String(value.label);
    if ("text" in value) return String(value.text || value.url || "");
    if ("from" in value) return `${value.from} – ${value.to}`;
    return t("valueChanged");
  }
  return String(value);
}

function itemLine(t, name, data, board) {
  const item = board?.items.get(data.item?.id);
  const itemName = item?.name ?? data.item?.name ?? t("unknownItem");
  if (name === "item.created") {
    const group = board?.groups.value.find((entry) => entry.id === data.item?.groupId);
    return group ? t("itemCreatedIn", { name: itemName, group: group.name }) : t("itemCreated", { name: itemName });
  }
  if (name === "item.deleted") return t("itemDeleted", { name: itemName });
  if (name === "item.moved") {
    if (data.reordered) return t("itemsReordered", { count: data.itemIds?.length ?? 0 });
    const group = board?.groups.value.find((entry) => entry.id === data.to?.groupId);
    return t("itemMoved", { name: itemName, group: group?.name ?? t("anotherBoard") });
  }
  const parts = Object.entries(data.changes ?? {}).map(([field, change]) => {
    if (field === "name") return t("itemRenamed", { old: change.old ?? itemName, new: change.new });
    if (field === "archivedAt") return change.new ? t("itemArchived", { name: itemName }) : t("itemRestored", { name: itemName });
    if (field === "deletedAt") return change.new ? t("itemDeleted", { name: itemName }) : t("itemRestored", { name: itemName });
    if (ITEM_FIELDS.has(field)) return t("itemField", { name: itemName, field: t(`field_${field}`), value: t("valueChanged") });
    const column = board?.columns.value.find((entry) => entry.id === field);
    return t("itemField", { name: itemName, field: column?.name ?? field, value: valueText(t, change.new) });
  });
  return parts.join("; ") || t("itemChanged", { name: itemName });
}

function boardLine(t, data, board) {
  const change = String(data.change ?? "");
  const [kind, verb] = change.split(".");
  const named = data.column?.name ?? data.group?.name
    ?? (kind === "column" ? board?.columns.value.find((entry) => entry.id === data.column?.id)?.name : null)
    ?? (kind === "group" ? board?.groups.value.find((entry) => entry.id === data.group?.id)?.name : null);
  if ((kind === "column" || kind === "group") && verb) return t(`${kind}_${verb}`, { name: named ?? "" });
  if (data.board?.name) return t("boardRenamed", { name: data.board.name });
  return t("boardChanged");
}

function actionLine(t, name, data) {
  const action = data.action ?? {};
  const title = action.title ?? t("unknownAction");
  switch (name) {
    case "action.created":
      return t("actionCreated", { title, owner: action.assignee?.name ?? t("nobody"), due: action.dueDate ?? "" });
    case "action.completed":
      return t("actionCompleted", { title });
    case "action.escalated":
      return t("actionEscalated", { title, level: data.toLevel ?? action.escalationLevel });
    case "action.deleted":
      return t("actionDeleted");
    default: {
      const changes = data.changes ?? {};
      if (changes.status) return t("actionStatus", { title, status: t(`actionStatus_${changes.status.new}`) });
      if (changes.escalationLevel) return t("actionDeescalated", { title, level: changes.escalationLevel.new });
      if (changes.dueDate) return t("actionDue", { title, due: changes.dueDate.new });
      if (changes.assigneeId) return t("actionOwner", { title, owner: action.assignee?.name ?? t("nobody") });
      return t("actionChanged", { title });
    }
  }
}

/** The words for an agenda entry name ("kpis/<id>"): its KPI's name or action's title. */
export function entryLabel(t, agenda, name) {
  const found = findEntry(agenda, name);
  if (!found) return t("unknownEntry");
  return found.list === "kpis" ? t("entryKpi", { name: found.entry.name }) : t("entryAction", { title: found.entry.title });
}

function meetingLine(t, name, data, before) {
  if (name === "meeting.completed") return t("meetingCompletedLine");
  const after = data.meeting ?? {};
  const previous = before.meeting ?? {};
  const wasDiscussed = new Set(previous.discussed ?? []);
  const nowDiscussed = new Set(after.discussed ?? []);
  const marked = [...nowDiscussed].find((entry) => !wasDiscussed.has(entry));
  if (marked) return t("entryDiscussed", { entry: entryLabel(t, before.agenda, marked) });
  const unmarked = [...wasDiscussed].find((entry) => !nowDiscussed.has(entry));
  if (unmarked) return t("entryNotDiscussed", { entry: entryLabel(t, before.agenda, unmarked) });
  if (after.current?.entry !== previous.current?.entry) {
    return after.current ? t("focusOn", { entry: entryLabel(t, before.agenda, after.current.entry) }) : t("focusNone");
  }
  return t("meetingChanged");
}

/**
 * One change (`name`, its event `payload`) in words. `before` is the state just before it: `board` (a board
 * store, or null without a snapshot), `agenda` (the agenda state) and `meeting` (current, discussed).
 */
export function describe(t, name, payload, before) {
  const data = payload?.data ?? {};
  if (name.startsWith("item.")) return itemLine(t, name, data, before.board);
  if (name === "board.updated") return boardLine(t, data, before.board);
  if (name === "board.deleted") return t("boardDeleted");
  if (name.startsWith("action.")) return actionLine(t, name, data);
  if (name === "kpi.value_entered" || name === "kpi.target_breached") {
    return t(name === "kpi.value_entered" ? "kpiValue" : "kpiBreach", { name: data.kpi?.name ?? "",
      value: number(data.value?.value), status: data.value?.status ? t(`short_${data.value.status}`) : t("status_none") });
  }
  if (name === "kpi.alert_updated" && data.alert) {
    return t(`kpiAlert_${data.alert.status}`, { name: data.kpi?.name ?? data.alert.kpiName ?? "",
      threshold: t(`short_${data.alert.threshold}`) });
  }
  if (name.startsWith("kpi.")) return t("kpiChanged", { name: data.kpi?.name ?? data.alert?.kpiName ?? "" });
  if (name.startsWith("meeting.")) return meetingLine(t, name, data, before);
  return t("otherChange", { name });
}
