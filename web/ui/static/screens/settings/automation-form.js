// The form that adds or edits an automation rule: its name, the trigger and its settings, optional
// conditions on the item's columns, and one or more actions with theirs. Kinds without a form take JSON
// (automation-kinds.js). The server checks the whole rule; what it refuses is shown the GOV.UK way, each
// `details[].field` ("actions.0.config.url") on the field that draws it.
import { html, useState, useEffect } from "../../lib.js";
import { api } from "../../api/client.js";
import { ApiError } from "../../api.js";
import { catalogue } from "../../i18n.js";
import { Field, ErrorSummary, Submit } from "../../components/forms.js";
import { TRIGGERS, ACTIONS, OPERATORS, VALUELESS, draftOf, configOf } from "./automation-kinds.js";
import { ConfigFields } from "./automation-fields.js";
import strings from "./automations.strings.js";

const t = catalogue(strings);
let rows = 0;
// The id of a condition's or an action's first control, by its place.
const FIRST_CONTROL = { conditions: (index) => `field-condition-${index}-columnId`,
  actions: (index) => `field-action-${index}-type` };
const row = (fields) => ({ row: ++rows, ...fields });

function initial(rule) {
  const trigger = rule?.trigger ?? { type: "item.created", config: {} };
  return {
    name: rule?.name ?? "",
    trigger: { type: trigger.type, draft: draftOf(TRIGGERS[trigger.type], trigger.config) },
    conditions: (rule?.conditions ?? []).map((c) => row({ columnId: c.columnId, operator: c.operator,
      value: c.value === null || c.value === undefined ? "" : String(c.value) })),
    actions: (rule?.actions ?? [{ type: "set_value", config: {} }]).map((a) => row({ type: a.type,
      draft: draftOf(ACTIONS[a.type], a.config) })),
  };
}

/** The rule as the server takes it and the problems found before sending, by field name. */
function build(state) {
  const problems = {};
  if (!state.name.trim()) problems.name = t("nameRequired");
  const config = (prefix, fields, draft) => {
    for (const field of fields ?? []) {
      const value = draft[field.key];
      if (field.required && (value === "" || value?.length === 0)) {
        problems[`${prefix}-${field.key}`] = t("required", { label: t(`field.${field.key}`) });
      }
    }
    try {
      return configOf(fields, draft);
    } catch {
      problems[`${prefix}-config`] = t("jsonInvalid");
      return {};
    }
  };
  const trigger = { type: state.trigger.type, config: config("trigger", TRIGGERS[state.trigger.type], state.trigger.draft) };
  const conditions = state.conditions.map((c, index) => {
    if (!c.columnId) problems[`condition-${index}-columnId`] = t("required", { label: t("column") });
    if (VALUELESS.has(c.operator)) return { columnId: c.columnId, operator: c.operator };
    const numeric = (c.operator === "gt" || c.operator === "lt") && c.value.trim() !== "" && !Number.isNaN(Number(c.value));
    return { columnId: c.columnId, operator: c.operator, value: numeric ? Number(c.value) : c.value };
  });
  const actions = state.actions.map((a, index) => ({ type: a.type, config: config(`action-${index}`, ACTIONS[a.type], a.draft) }));
  if (!actions.length) problems.actions = t("actionsRequired");
  return { rule: { name: state.name.trim(), trigger, conditions, actions }, problems };
}

/** A refusal's fields as the form's field names; what names no field goes to the summary alone. */
function problemsFrom(error, state) {
  if (!(error instanceof ApiError) || !error.details.length) return { _form: error.message };
  const problems = {};
  const labelled = (name, label, message) => { problems[name] ??= `${label} ${message}`; };
  for (const { field, message } of error.details) {
    let found;
    if (field === "name") labelled("name", t("name"), message);
    else if ((found = /^trigger\.config\.(\w+)/.exec(field))) {
      const fields = TRIGGERS[state.trigger.type];
      if (fields?.some((f) => f.key === found[1])) labelled(`trigger-${found[1]}`, t(`field.${found[1]}`), message);
      else labelled(fields === null ? "trigger-config" : "trigger-type", fields === null ? t("jsonLabel") : t("triggerType"), `${found[1]} ${message}`);
    } else if ((found = /^actions\.(\d+)\.(?:config\.(\w+)|(type))/.exec(field))) {
      const [, index, key] = found;
      const fields = ACTIONS[state.actions[Number(index)]?.type];
      if (key && fields?.some((f) => f.key === key)) labelled(`action-${index}-${key}`, t(`field.${key}`), message);
      else if (key && fields === null) labelled(`action-${index}-config`, t("jsonLabel"), `${key} ${message}`);
      else labelled(`action-${index}-type`, t("actionType"), key ? `${key} ${message}` : message);
    } else if ((found = /^conditions\.(\d+)\.(\w+)/.exec(field))) labelled(`condition-${found[1]}-${found[2]}`, t(found[2] === "columnId" ? "column" : found[2]), message);
    else if (field === "conditions" || field === "actions") labelled(field, t(field === "actions" ? "thenLegend" : "ifLegend"), message);
    else problems._form = problems._form ? `${problems._form}; ${field}: ${message}` : `${field}: ${message}`;
  }
  return problems;
}

function Condition({ condition, index, board, errors, onChange, onRemove }) {
  const set = (key) => (value) => onChange({ ...condition, [key]: value });
  const number = index + 1;
  return html`<fieldset class="rule-part">
    <legend>${t("conditionLegend", { number })}</legend>
    <div class="rule-part__fields">
      <${Field} as="select" name=${`condition-${index}-columnId`} label=${t("column")} value=${condition.columnId}
        onInput=${set("columnId")} error=${errors[`condition-${index}-columnId`]}>
        <option value="">${t("choose")}</option>
        ${board.columns.map((column) => html`<option key=${column.id} value=${column.id}>${column.name}</option>`)}
      <//>
      <${Field} as="select" name=${`condition-${index}-operator`} label=${t("operator")} value=${condition.operator}
        onInput=${set("operator")} error=${errors[`condition-${index}-operator`]}>
        ${OPERATORS.map((op) => html`<option key=${op} value=${op}>${t(`operator.${op}`)}</option>`)}
      <//>
      ${!VALUELESS.has(condition.operator) && html`<${Field} name=${`condition-${index}-value`} label=${t("value")}
        value=${condition.value} onInput=${set("value")} error=${errors[`condition-${index}-value`]} />`}
    </div>
    <button type="button" class="button button--quiet button--small" onClick=${onRemove}>${t("removeCondition", { number })}</button>
  </fieldset>`;
}

function Action({ action, index, board, members, errors, onChange, onRemove }) {
  const number = index + 1;
  return html`<fieldset class="rule-part">
    <legend>${t("actionLegend", { number })}</legend>
    <${Field} as="select" name=${`action-${index}-type`} label=${t("actionType")} value=${action.type}
      error=${errors[`action-${index}-type`]} onInput=${(type) => onChange({ ...action, type, draft: draftOf(ACTIONS[type]) })}>
      ${Object.keys(ACTIONS).map((type) => html`<option key=${type} value=${type}>${t(`action.${type}`)}</option>`)}
    <//>
    <${ConfigFields} prefix=${`action-${index}`} fields=${ACTIONS[action.type]} draft=${action.draft} errors=${errors}
      board=${board} members=${members} onChange=${(draft) => onChange({ ...action, draft })} />
    <button type="button" class="button button--quiet button--small" onClick=${onRemove}>${t("removeAction", { number })}</button>
  </fieldset>`;
}

/** `rule` null to add one to `boardId`; `board` (its groups and columns) and `members` feed the selects. */
export function RuleForm({ rule, boardId, board, members, onDone, onCancel }) {
  const [state, setState] = useState(() => initial(rule));
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const update = (key, value) => setState((old) => ({ ...old, [key]: value }));
  const replace = (key, index, value) => update(key, state[key].map((entry, i) => (i === index ? value : entry)));
  // Removing a part takes its button away: focus goes to the previous part's first control, or to the add
  // button when it was the first.
  const [focusing, setFocusing] = useState(null); // {id}: a new object each time, so the effect runs again
  useEffect(() => {
    if (focusing) document.getElementById(focusing.id)?.focus();
  }, [focusing]);
  const drop = (key, index) => {
    update(key, state[key].filter((_, i) => i !== index));
    setFocusing({ id: index > 0 ? FIRST_CONTROL[key](index - 1) : `field-${key}` });
  };
  const submit = async (event) => {
    event.preventDefault();
    const { rule: input, problems } = build(state);
    setErrors(problems);
    if (Object.keys(problems).length) return;
    setBusy(true);
    try {
      onDone(rule ? await api.automations.update({ id: rule.id, ...input })
        : await api.automations.create({ boardId, ...input }));
    } catch (error) {
      setErrors(problemsFrom(error, state));
    } finally {
      setBusy(false);
    }
  };
  return html`<form novalidate onSubmit=${submit} class="rule-form">
    <${ErrorSummary} title=${t("errorTitle")} errors=${errors} />
    <${Field} name="name" label=${t("name")} hint=${t("nameHint")} value=${state.name} error=${errors.name}
      onInput=${(value) => update("name", value)} required />
    <fieldset class="rule-section">
      <legend>${t("whenLegend")}</legend>
      <${Field} as="select" name="trigger-type" label=${t("triggerType")} value=${state.trigger.type} error=${errors["trigger-type"]}
        onInput=${(type) => update("trigger", { type, draft: draftOf(TRIGGERS[type]) })}>
        ${Object.keys(TRIGGERS).map((type) => html`<option key=${type} value=${type}>${t(`trigger.${type}`)}</option>`)}
      <//>
      <${ConfigFields} prefix="trigger" fields=${TRIGGERS[state.trigger.type]} draft=${state.trigger.draft} errors=${errors}
        board=${board} members=${members} onChange=${(draft) => update("trigger", { ...state.trigger, draft })} />
    </fieldset>
    <fieldset class="rule-section">
      <legend>${t("ifLegend")}</legend>
      <p class="hint">${t("ifHint")}</p>
      ${state.conditions.map((condition, index) => html`<${Condition} key=${condition.row} condition=${condition}
        index=${index} board=${board} errors=${errors} onChange=${(value) => replace("conditions", index, value)}
        onRemove=${() => drop("conditions", index)} />`)}
      <button type="button" id="field-conditions" class="button button--secondary"
        onClick=${() => update("conditions", [...state.conditions, row({ columnId: "", operator: "is", value: "" })])}>
        ${t("addCondition")}</button>
    </fieldset>
    <fieldset class="rule-section">
      <legend>${t("thenLegend")}</legend>
      ${errors.actions && html`<p class="field-error">${errors.actions}</p>`}
      ${state.actions.map((action, index) => html`<${Action} key=${action.row} action=${action} index=${index}
        board=${board} members=${members} errors=${errors} onChange=${(value) => replace("actions", index, value)}
        onRemove=${() => drop("actions", index)} />`)}
      <button type="button" id="field-actions" class="button button--secondary"
        onClick=${() => update("actions", [...state.actions, row({ type: "set_value", draft: draftOf(ACTIONS.set_value) })])}>
        ${t("addAction")}</button>
    </fieldset>
    <div class="button-row">
      <${Submit} busy=${busy} busyLabel=${t("saving")}>${rule ? t("save") : t("create")}<//>
      <button type="button" class="button button--secondary" onClick=${onCancel}>${t("cancel")}</button>
    </div>
  </form>`;
}
