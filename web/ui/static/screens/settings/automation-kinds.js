// What the rule form knows of each trigger and action kind (protocol/automations.py and docs/decisions.md
// "Automation rules, actions and conditions"): the settings each takes, as fields the form draws. A kind
// listed with `null` has no form: its settings are written as JSON, checked by the server.
//
// Field kinds: "text", "textarea", "number" (whole), "column" and "group" (of the rule's board), "people"
// (members of the organization), "select" (`options`). `required` mirrors the server's TRIGGER_REQUIRES and
// ACTION_REQUIRES, so the form can say so before sending.

export const TRIGGERS = {
  "item.created": [{ key: "groupId", kind: "group" }],
  "item.moved": [{ key: "fromGroupId", kind: "group" }, { key: "toGroupId", kind: "group" }],
  "value.changed": [{ key: "columnId", kind: "column", required: true }, { key: "toValue", kind: "text", hint: true }],
  "date.arrived": [{ key: "columnId", kind: "column", required: true }, { key: "offsetDays", kind: "number" }],
  "subitems.completed": [],
  recurring: [{ key: "cron", kind: "text", required: true, hint: true }],
  "kpi.threshold_breach": [{ key: "threshold", kind: "select", options: ["red", "amber"] }],
  "webhook.received": [],
  "form.submitted": null,
};

export const ACTIONS = {
  set_value: [{ key: "columnId", kind: "column", required: true }, { key: "value", kind: "text", required: true }],
  move_item: [{ key: "groupId", kind: "group", required: true }],
  archive_item: [],
  send_notification: [{ key: "userIds", kind: "people", required: true },
    { key: "message", kind: "textarea", required: true, hint: true }],
  send_email: [{ key: "to", kind: "text", required: true }, { key: "subject", kind: "text", required: true },
    { key: "body", kind: "textarea", required: true }],
  call_webhook: [{ key: "url", kind: "text", required: true },
    { key: "method", kind: "select", options: ["POST", "GET", "PUT", "PATCH", "DELETE"], raw: true, required: true }],
  create_subitem: [{ key: "name", kind: "text", required: true }],
  create_action: [{ key: "title", kind: "text", required: true },
    { key: "priority", kind: "select", options: ["critical", "high", "medium", "low"] },
    { key: "dueInDays", kind: "number" }],
  assign_person: null,
  create_item: null,
};

export const OPERATORS = ["is", "is_not", "contains", "not_contains", "gt", "lt", "is_empty", "is_not_empty"];
export const VALUELESS = new Set(["is_empty", "is_not_empty"]);

/** A kind's config as the form edits it: strings (and lists of ids) by key, or JSON text for a kind without
 * a form. */
export function draftOf(fields, config = {}) {
  if (fields === null) return { json: JSON.stringify(config, null, 2) };
  return Object.fromEntries(fields.map(({ key, kind }) => [key,
    kind === "people" ? [...(config[key] ?? [])] : config[key] === undefined || config[key] === null ? "" : String(config[key])]));
}

/** The config the server takes from a draft: empty optional fields left out, numbers as numbers. Throws
 * SyntaxError for JSON that does not parse to an object. */
export function configOf(fields, draft) {
  if (fields === null) {
    const parsed = JSON.parse(draft.json || "{}");
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new SyntaxError("not an object");
    return parsed;
  }
  const config = {};
  for (const { key, kind } of fields) {
    const value = draft[key];
    if (value === "" || (Array.isArray(value) && value.length === 0)) continue;
    config[key] = kind === "number" && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  }
  return config;
}
