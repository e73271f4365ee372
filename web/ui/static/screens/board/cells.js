// A board cell's two faces, shared by the board and the item page: `CellValue` shows a column's value and
// `CellEditor` edits it. The editor saves through the caller's `onSave(value)` (a promise); a refusal is shown
// under the control (role=alert) with the server's own message, and the editor stays open with what the
// person typed, so nothing is silently dropped. Escape or Cancel leaves without saving.
import { html, useState, useRef, useEffect } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { ApiError } from "../../api.js";
import { CellValue } from "./cell_values.js";
import { EditorControl, PICKED_TYPES } from "./cell_editors.js";
import strings from "../board.strings.js";

export { CellValue };

const t = catalogue(strings);

/** Computed columns (docs/column-types.md) refuse every write. */
export const COMPUTED_TYPES = new Set(["formula", "lookup", "auto_number", "created_date", "last_updated"]);

/** The message to show for a refused value: the server's words about `value` (or the whole refusal). */
export function valueMessage(error) {
  if (error instanceof ApiError) {
    const detail = error.details?.find((entry) => String(entry.field ?? "").startsWith("value"))
      ?? error.details?.[0];
    return detail?.message ?? error.message;
  }
  return String(error?.message ?? error);
}

/**
 * Edit `column`'s `value`. `onSave(value)` answers a promise (rejecting with the refusal); `onCancel()` leaves.
 * `members` (organizations.members.list entries) for people columns, `items` (Map id -> item) for dependencies.
 */
export function CellEditor({ column, value, onSave, onCancel, members = null, items = null }) {
  const [draft, setDraft] = useState(value ?? null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const box = useRef(null);
  const errorId = `cell-error-${column.id}`;

  useEffect(() => {
    box.current?.querySelector("input, select, textarea, button")?.focus();
  }, []);

  const save = async (next) => {
    setBusy(true);
    setError(null);
    try {
      await onSave(next);
    } catch (failure) {
      setError(t("valueError", { column: column.name, message: valueMessage(failure) }));
    } finally {
      setBusy(false);
    }
  };
  const keydown = (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      onCancel();
    }
  };

  if (COMPUTED_TYPES.has(column.type)) {
    return html`<div class="editor" ref=${box} onKeyDown=${keydown}>
      <p><${CellValue} column=${column} value=${value} members=${members} items=${items} /></p>
      <p class="hint">${t("computed")}</p>
      <button type="button" class="button button--secondary" onClick=${onCancel}>${t("close")}</button>
    </div>`;
  }
  const picked = PICKED_TYPES.has(column.type);
  return html`<form class="editor" ref=${box} noValidate aria-busy=${busy ? "true" : undefined} aria-describedby=${error ? errorId : undefined}
      onKeyDown=${keydown} onSubmit=${(event) => { event.preventDefault(); save(draft); }}>
    <${EditorControl} column=${column} value=${value} onChange=${setDraft} onPick=${save} members=${members} items=${items}
      errorId=${error ? errorId : null} />
    ${error && html`<p class="field-error editor__error" id=${errorId} role="alert">${error}</p>`}
    <div class="editor__buttons">
      ${!picked && html`<button type="submit" class="button button--primary" disabled=${busy}>${t("save")}</button>`}
      <button type="button" class="button button--secondary" onClick=${onCancel}>${t("cancel")}</button>
    </div>
  </form>`;
}
