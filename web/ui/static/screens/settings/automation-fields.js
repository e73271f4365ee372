// The settings of one trigger or action in the rule form, drawn from its kind's field list
// (automation-kinds.js): labelled inputs and selects of the board's columns and groups, the organization's
// people as checkboxes, or one JSON textarea for a kind without a form. Field names are `<prefix>-<key>`
// (`trigger-cron`, `action-0-url`), the keys the form's errors use.
import { html } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { Field, FieldError } from "../../components/forms.js";
import strings from "./automations.strings.js";

const t = catalogue(strings);

function People({ name, label, chosen, members, error, onChange }) {
  const toggle = (id) => (event) => onChange(event.currentTarget.checked ? [...chosen, id] : chosen.filter((x) => x !== id));
  return html`<fieldset class=${`field${error ? " field--error" : ""}`}>
    <legend class="label">${label}</legend>
    ${error && html`<${FieldError} message=${error} />`}
    ${members.map((member, index) => html`<label key=${member.id} class="checkbox checkbox--plain">
      <input type="checkbox" id=${index === 0 ? `field-${name}` : undefined} checked=${chosen.includes(member.id)}
        onChange=${toggle(member.id)} /> <span>${member.name} (${member.email})</span>
    </label>`)}
  </fieldset>`;
}

function OneField({ prefix, field, value, onInput, error, board, members }) {
  const name = `${prefix}-${field.key}`;
  const label = t(`field.${field.key}`);
  const hint = field.hint ? t(`hint.${field.key}`) : undefined;
  const common = { name, label, hint, error, value, onInput, required: field.required };
  switch (field.kind) {
    case "people":
      return html`<${People} name=${name} label=${label} chosen=${value} members=${members} error=${error} onChange=${onInput} />`;
    case "textarea":
      return html`<${Field} ...${common} as="textarea" />`;
    case "number":
      return html`<${Field} ...${common} inputmode="numeric" />`;
    case "column":
    case "group": {
      const list = field.kind === "column" ? board.columns : board.groups;
      return html`<${Field} ...${common} as="select">
        <option value="">${field.required ? t("choose") : t("anyGroup")}</option>
        ${list.map((entry) => html`<option key=${entry.id} value=${entry.id}>${entry.name}</option>`)}
      <//>`;
    }
    case "select":
      return html`<${Field} ...${common} as="select">
        <option value="">${t("choose")}</option>
        ${field.options.map((option) => html`<option key=${option} value=${option}>${field.raw ? option : t(`option.${option}`)}</option>`)}
      <//>`;
    default:
      return html`<${Field} ...${common} />`;
  }
}

/** `fields` null: the JSON textarea. `onChange(draft)` with the whole new draft. */
export function ConfigFields({ prefix, fields, draft, onChange, errors, board, members }) {
  if (fields === null) {
    return html`<${Field} name=${`${prefix}-config`} label=${t("jsonLabel")} hint=${t("jsonHint")} as="textarea"
      class="mono" value=${draft.json} error=${errors[`${prefix}-config`]}
      onInput=${(json) => onChange({ json })} />`;
  }
  return fields.map((field) => html`<${OneField} key=${field.key} prefix=${prefix} field=${field} value=${draft[field.key]}
    error=${errors[`${prefix}-${field.key}`]} board=${board} members=${members}
    onInput=${(value) => onChange({ ...draft, [field.key]: value })} />`);
}
