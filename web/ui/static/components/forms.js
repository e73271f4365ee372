// Forms the GOV.UK way: a visible label above every field, a hint under it, the error message next to the
// field saying how to fix it, and one error summary at the top linking to each field at fault. A server
// refusal's `details[]` (field, message) maps onto the fields by name; a refusal without fields shows in the
// summary alone. `useForm` keeps a form's values, errors and busy state.
import { html, useState, useRef, useEffect, useId } from "../lib.js";
import { ApiError } from "../api.js";
import { catalogue } from "../i18n.js";
import strings from "./components.strings.js";

const t = catalogue(strings);

/** The message next to a field (or a group of boxes) saying what is wrong, read out as an error. */
export function FieldError({ id, message }) {
  return html`<p class="field-error" id=${id}><span class="visually-hidden">${t("errorPrefix")}</span> ${message}</p>`;
}

/**
 * The id of the field `name`: `field-<name>` unless `idPrefix` sets a form apart (two forms on one page that
 * name their fields alike: a create form and an edit dialog).
 */
export const fieldId = (name, idPrefix) => (idPrefix ? `${idPrefix}-field-${name}` : `field-${name}`);

/**
 * A labelled input. `as` is "input" (default), "textarea" or "select" (pass <option>s as children). `suffix`
 * is text shown after an input as part of the value's meaning (an address's ".obeya.example"), read out with
 * the hint.
 */
export function Field({ name, label, hint, error, as = "input", type = "text", value, onInput, children,
  required = false, autocomplete, inputmode, suffix, idPrefix, ...rest }) {
  const id = fieldId(name, idPrefix);
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const suffixId = suffix ? `${id}-suffix` : undefined;
  const described = [hintId, suffixId, errorId].filter(Boolean).join(" ") || undefined;
  const common = { id, name, "aria-describedby": described, "aria-invalid": error ? "true" : undefined,
    required, autocomplete, inputmode, ...rest };
  const onChange = (event) => onInput?.(event.currentTarget.value);
  let control;
  if (as === "textarea") control = html`<textarea ...${common} value=${value ?? ""} onInput=${onChange}></textarea>`;
  else if (as === "select") {
    control = html`<select ...${common} value=${value ?? ""} onChange=${onChange}>${children}</select>`;
  } else control = html`<input ...${common} type=${type} value=${value ?? ""} onInput=${onChange} />`;
  if (suffix) control = html`<div class="field__affixed">${control}<span class="field__suffix" id=${suffixId}>${suffix}</span></div>`;
  return html`<div class=${`field${error ? " field--error" : ""}`}>
    <label for=${id}>${label}</label>
    ${hint && html`<p class="hint" id=${hintId}>${hint}</p>`}
    ${error && html`<${FieldError} id=${errorId} message=${error} />`}
    ${control}
  </div>`;
}

/** The list of what is wrong, focused when it appears, each entry a link to its field (`idPrefix` as the fields'). */
export function ErrorSummary({ title, errors, idPrefix }) {
  const box = useRef(null);
  const entries = Object.entries(errors).filter(([, message]) => message);
  useEffect(() => { if (entries.length) box.current?.focus(); }, [entries.map(([k, m]) => k + m).join()]);
  if (!entries.length) return null;
  return html`<div class="error-summary" role="alert" tabindex="-1" ref=${box}>
    <h2 class="error-summary__title">${title}</h2>
    <ul>${entries.map(([field, message]) => html`<li key=${field}>${field === "_form"
      ? message : html`<a href=${`#${fieldId(field, idPrefix)}`} onClick=${(event) => {
        event.preventDefault();
        document.getElementById(fieldId(field, idPrefix))?.focus();
      }}>${message}</a>`}</li>`)}</ul>
  </div>`;
}

/** A refusal as messages by field (`_form` for what names no field, or a field the form does not show). */
export function errorsFrom(error, fields = []) {
  if (!(error instanceof ApiError)) return { _form: String(error?.message ?? error) };
  const byField = {};
  for (const detail of error.details ?? []) {
    const field = String(detail.field ?? "").split(/[.[]/)[0];
    if (fields.includes(field) && !byField[field]) byField[field] = detail.message;
    else byField._form = byField._form ? `${byField._form}; ${detail.field}: ${detail.message}` : `${detail.field}: ${detail.message}`;
  }
  if (!Object.keys(byField).length) byField._form = error.message;
  return byField;
}

/**
 * A form's state: `values`, `set(name)(value)`, `errors`, `busy`, and `submit(action)` which runs
 * `action(values)`, maps a refusal onto the fields and answers whether it succeeded.
 */
export function useForm(initial) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  return {
    values, errors, busy, setErrors,
    set: (name) => (value) => setValues((old) => ({ ...old, [name]: value })),
    reset: () => { setValues(initial); setErrors({}); },
    /**
     * @param {(values: any) => Promise<any>} action
     * @param {(values: any) => Record<string, string | null | undefined>} [check] the browser's own checks
     */
    async submit(action, check = () => ({})) {
      const problems = Object.fromEntries(Object.entries(check(values)).filter(([, m]) => m));
      setErrors(problems);
      if (Object.keys(problems).length) return false;
      setBusy(true);
      try {
        await action(values);
        return true;
      } catch (error) {
        setErrors(errorsFrom(error, Object.keys(initial)));
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}

/** A submit button that says it is busy (and cannot be pressed twice). */
export function Submit({ busy, children, busyLabel, kind = "primary" }) {
  return html`<button type="submit" class=${`button button--${kind}`} disabled=${busy} aria-busy=${busy ? "true" : undefined}>
    ${busy && busyLabel ? busyLabel : children}</button>`;
}

/** A unique id for aria attributes within a component. */
export const useFieldId = useId;
