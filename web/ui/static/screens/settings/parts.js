// What the credential sections (API keys, tokens, applications, assistant keys) and members draw the same way:
// a list read once (load.js) and then kept up to date from each write's reply, the create form's frame (card, name,
// button), the scope checkboxes with their meaning, a credential's status in words and its dates, an optional
// expiry day, the box a new secret is shown in once, and the box saying a credential was made but its secret could
// not be shown (`withheld`).
import { html, useEffect, useRef } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { dateTime } from "../../format.js";
import { SecretOnce } from "../../components/secret.js";
import { Field, FieldError, fieldId, ErrorSummary, Submit } from "../../components/forms.js";
import { ApiError } from "../../api.js";
import { useLoad } from "./load.js";
import strings from "./parts.strings.js";

const t = catalogue(strings);

/**
 * A list the section reads when it opens (`useLoad`'s state, drawn with `Loaded`), plus `upsert` and `drop`:
 * writes put their reply into it at once (upsert by id, newest first) instead of reading the list again.
 * @param {(signal: AbortSignal) => Promise<any[]>} read
 */
export function useList(read) {
  const list = useLoad(read, []);
  return {
    ...list,
    upsert: (item) => list.update((rows) => (rows?.some((old) => old.id === item.id)
      ? rows.map((old) => (old.id === item.id ? { ...old, ...item } : old)) : [item, ...(rows ?? [])])),
    drop: (id) => list.update((rows) => (rows ?? []).filter((old) => old.id !== id)),
  };
}

/**
 * Checkboxes for a credential's scopes: each labelled with the scope's name and described by its meaning.
 * The first box carries the field's id (`fieldId`) so the error summary's link lands on the group.
 * @param {{name: string, legend: string, hint: string, choices: {value: string, meaning: string}[],
 *   selected: string[], onChange: (selected: string[]) => void, error?: string, idPrefix?: string}} props
 */
export function ScopeChoices({ name, legend, hint, choices, selected, onChange, error, idPrefix }) {
  const base = fieldId(name, idPrefix);
  const toggle = (value, on) => onChange(on ? [...selected, value] : selected.filter((item) => item !== value));
  return html`<div class=${`field${error ? " field--error" : ""}`}>
    <fieldset class="scopes" aria-describedby=${`${base}-hint${error ? ` ${base}-error` : ""}`}>
      <legend>${legend}</legend>
      <p class="hint" id=${`${base}-hint`}>${hint}</p>
      ${error && html`<${FieldError} id=${`${base}-error`} message=${error} />`}
      <div class="scopes__list">${choices.map(({ value, meaning }, index) => {
        const id = index === 0 ? base : `${base}-${index}`;
        return html`<div class="checkbox scopes__choice" key=${value}>
          <input type="checkbox" id=${id} name=${name} value=${value} checked=${selected.includes(value)}
            aria-describedby=${`${id}-meaning`} onChange=${(event) => toggle(value, event.currentTarget.checked)} />
          <label for=${id}><code>${value}</code></label>
          <span class="scopes__meaning" id=${`${id}-meaning`}>${meaning}</span>
        </div>`;
      })}</div>
    </fieldset>
  </div>`;
}

/** A credential's status in words (the colour only repeats it). */
export function Status({ status }) {
  return html`<span class=${`chip chip--${status}`}>${t(`status.${status}`)}</span>`;
}

/** Created, last used and expiry of a credential, in the viewer's time zone. */
export function Dates({ credential }) {
  return html`<dl class="credential-dates">
    <dt>${t("created")}</dt><dd>${dateTime(credential.createdAt)}</dd>
    <dt>${t("lastUsed")}</dt><dd>${credential.lastUsedAt ? dateTime(credential.lastUsedAt) : t("never")}</dd>
    <dt>${t("expires")}</dt><dd>${credential.expiresAt ? dateTime(credential.expiresAt) : t("never")}</dd>
  </dl>`;
}

/** An optional expiry day (a date field); `expiryInstant` turns it into the end of that day where the viewer is. */
export function ExpiryDay({ value, onInput, error }) {
  return html`<${Field} name="expiresAt" type="date" label=${t("expiryDay")} hint=${t("expiryDayHint")}
    value=${value} onInput=${onInput} error=${error} />`;
}

/** The end of `day` ("2026-12-31") in the viewer's time zone, as the ISO instant the API takes; null for "". */
export function expiryInstant(day) {
  return day ? new Date(`${day}T23:59:59`).toISOString() : null;
}

/** The browser's check of an expiry day: after today. */
export function expiryProblem(day) {
  return day && new Date(`${day}T23:59:59`).getTime() <= Date.now() ? t("expiryPast") : null;
}

/**
 * The box a new secret is shown in, once: a heading (focused when it appears), what else the person needs
 * (`children`, e.g. a client id), the secret with its copy button, and "Done" which hides it for good.
 */
export function NewSecret({ title, label, value, children, onDone }) {
  const heading = useRef(null);
  useEffect(() => { heading.current?.focus(); }, [value]);
  return html`<section class="card new-secret" aria-labelledby="new-secret-title">
    <h3 id="new-secret-title" tabindex="-1" ref=${heading}>${title}</h3>
    ${children}
    ${value && html`<${SecretOnce} label=${label} value=${value} warning=${t("secretWarning")} copyLabel=${t("copy")}
      copiedLabel=${t("copied")} copyFailedLabel=${t("copyFailed")} />`}
    <button type="button" class="button button--secondary" onClick=${onDone}>${t("done")}</button>
  </section>`;
}

/**
 * `write()`'s reply, or null after `onWithheld()` when the server made the credential but withheld its secret:
 * the first reply was lost, api.js sent the write again under the same Idempotency-Key, and the server never
 * shows a secret twice (409, `secretWithheld`). Any other refusal is thrown on.
 * @template T
 * @param {() => Promise<T>} write
 * @param {() => void} onWithheld
 * @returns {Promise<T | null>}
 */
/**
 * A credential's create form: the card with its heading, the error summary, the name field, the section's own
 * fields (`children`) and the button. `create(name, values)` makes the credential (`t` is the section's
 * catalogue); a reply the server withholds on a retry calls `onWithheld(name)`; the form empties after either.
 */
export function CreateCard({ id, form, t: text, check, create, onCreated, onWithheld, children }) {
  const submit = (event) => {
    event.preventDefault();
    form.submit(async (values) => {
      const name = values.name.trim();
      const reply = await withheld(() => create(name, values), () => onWithheld(name));
      form.reset();
      if (reply) onCreated(reply);
    }, check);
  };
  return html`<section class="card settings__create" aria-labelledby=${id}>
    <h3 id=${id}>${text("createTitle")}</h3>
    <${ErrorSummary} title=${text("errorTitle")} errors=${form.errors} />
    <form onSubmit=${submit} novalidate>
      <${Field} name="name" label=${text("name")} hint=${text("nameHint")} value=${form.values.name}
        onInput=${form.set("name")} error=${form.errors.name} maxlength="100" autocomplete="off" />
      ${children}
      <${Submit} busy=${form.busy} busyLabel=${text("creating")}>${text("create")}<//>
    </form>
  </section>`;
}

export async function withheld(write, onWithheld) {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof ApiError) || !error.secretWithheld) throw error;
    onWithheld();
    return null;
  }
}

/**
 * Where the secret would have been (`NewSecret`'s place): that the credential exists but its secret cannot be
 * shown, and what to do (`message`: revoke or delete it and make a new one). The heading is focused.
 */
export function SecretWithheld({ title, message, onDone }) {
  const heading = useRef(null);
  useEffect(() => { heading.current?.focus(); }, [title]);
  return html`<section class="card new-secret new-secret--withheld" aria-labelledby="secret-withheld-title">
    <h3 id="secret-withheld-title" tabindex="-1" ref=${heading}>${title}</h3>
    <p class="notice notice--warning">${message}</p>
    <button type="button" class="button button--secondary" onClick=${onDone}>${t("understood")}</button>
  </section>`;
}
