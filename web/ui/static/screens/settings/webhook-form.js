// The form that adds or edits a webhook: its URL, the events it receives (checkboxes grouped by what they are
// about), a signing secret when it is added (never shown back: an edit says whether one is set), a
// description and, when editing, whether it is paused. The server checks the URL (a public address).
import { html } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { Field, FieldError, ErrorSummary, Submit, useForm } from "../../components/forms.js";
import strings from "./webhooks.strings.js";

const t = catalogue(strings);

// The events a webhook may subscribe to (protocol/webhooks.py EVENT_NAMES), grouped by their first part.
const EVENTS = [
  "item.created", "item.updated", "item.deleted", "item.moved", "item.commented",
  "kpi.value_entered", "kpi.target_breached", "kpi.created", "kpi.updated",
  "action.created", "action.updated", "action.escalated", "action.completed",
  "project.created", "project.deleted", "board.created", "board.updated", "board.deleted",
  "member.invited", "member.joined", "member.removed", "member.role_changed",
  "form.submitted", "form.published", "meeting.started", "meeting.completed",
  "approval.requested", "approval.decided", "approval.completed",
];
const GROUPS = [...new Set(EVENTS.map((name) => name.split(".")[0]))];

function EventChoices({ chosen, onChange, error }) {
  const toggle = (name) => (event) => onChange(event.currentTarget.checked
    ? [...chosen, name] : chosen.filter((other) => other !== name));
  return html`<fieldset class=${`field webhook-events${error ? " field--error" : ""}`}
      aria-describedby=${error ? "webhook-events-error" : "webhook-events-hint"}>
    <legend>${t("eventsLegend")}</legend>
    <p class="hint" id="webhook-events-hint">${t("eventsHint")}</p>
    ${error && html`<${FieldError} id="webhook-events-error" message=${error} />`}
    <div class="webhook-events__groups">
      ${GROUPS.map((group) => html`<fieldset key=${group} class="webhook-events__group">
        <legend>${t(`group.${group}`)}</legend>
        ${EVENTS.filter((name) => name.startsWith(`${group}.`)).map((name) => html`<label key=${name} class="checkbox">
          <input type="checkbox" id=${name === EVENTS[0] ? "field-events" : undefined} checked=${chosen.includes(name)}
            onChange=${toggle(name)} />
          <span>${t(`event.${name}`)} <code class="webhook-events__name">${name}</code></span>
        </label>`)}
      </fieldset>`)}
    </div>
  </fieldset>`;
}

/** `webhook` null to add one; `onDone(saved)` after the server took it. */
export function WebhookForm({ webhook, onDone, onCancel }) {
  const form = useForm({ url: webhook?.url ?? "", events: webhook?.events ?? [], secret: "",
    description: webhook?.description ?? "", active: webhook?.active ?? true });
  const { values, errors, set } = form;
  const check = (v) => ({ url: v.url.trim() ? null : t("urlRequired"), events: v.events.length ? null : t("eventsRequired") });
  const save = async (v) => {
    const common = { url: v.url.trim(), events: v.events };
    // webhooks.update reads a null description as "unchanged": an emptied one is sent as "" to clear it.
    const saved = webhook
      ? await api.webhooks.update({ id: webhook.id, ...common, description: v.description.trim(), active: v.active })
      : await api.webhooks.create({ ...common, description: v.description.trim() || null, secret: v.secret || null });
    onDone(saved);
  };
  return html`<form novalidate onSubmit=${(event) => { event.preventDefault(); form.submit(save, check); }}>
    <${ErrorSummary} title=${t("errorTitle")} errors=${errors} />
    <${Field} name="url" label=${t("url")} hint=${t("urlHint")} type="url" value=${values.url} onInput=${set("url")}
      error=${errors.url} required autocomplete="off" />
    <${EventChoices} chosen=${values.events} onChange=${set("events")} error=${errors.events} />
    ${webhook ? webhook.secretSet && html`<p class="notice">${t("secretKept")}</p>` : html`<${Field} name="secret"
      label=${t("secret")} hint=${t("secretHint")} type="password" value=${values.secret} onInput=${set("secret")}
      error=${errors.secret} autocomplete="new-password" />`}
    <${Field} name="description" label=${t("description")} as="textarea" value=${values.description}
      onInput=${set("description")} error=${errors.description} />
    ${webhook && html`<label class="checkbox field"><input type="checkbox" checked=${values.active}
      onChange=${(event) => set("active")(event.currentTarget.checked)} /> <span>${t("active")}</span></label>`}
    <div class="button-row">
      <${Submit} busy=${form.busy} busyLabel=${t("saving")}>${webhook ? t("save") : t("create")}<//>
      <button type="button" class="button button--secondary" onClick=${onCancel}>${t("cancel")}</button>
    </div>
  </form>`;
}
