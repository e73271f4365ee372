// Text to copy in a read-only field with a copy button that says whether copying worked (`CopyField`: an
// address to register elsewhere), and a secret the server shows once (an API key, a token, a client secret):
// the same field under a plain warning that it will not be shown again (`SecretOnce`).
import { html, useState, useId } from "../lib.js";

/** Copy `text` (the content of `input`): the clipboard API, else the browser's copy command on the selection. */
async function copied(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission (plain http): the old copy command on the selected text.
    input?.select();
    try {
      return document.execCommand?.("copy") === true;
    } catch {
      return false;
    }
  }
}

/**
 * @param {{label: string, value: string, hint?: string, copyLabel: string, copiedLabel: string,
 *   copyFailedLabel: string}} props `copyFailedLabel` when neither way copied (the text is left selected)
 */
export function CopyField({ label, value, hint, copyLabel, copiedLabel, copyFailedLabel }) {
  const [outcome, setOutcome] = useState(null); // null, "copied" or "failed"
  const id = useId();
  const copy = async () => {
    const input = /** @type {HTMLInputElement | null} */ (document.getElementById(id));
    const done = await copied(value, input);
    if (!done) {
      input?.focus();
      input?.select();
    }
    setOutcome(done ? "copied" : "failed");
  };
  return html`<div class="copy-field">
    <label class="label" for=${id}>${label}</label>
    ${hint && html`<p class="hint" id=${`${id}-hint`}>${hint}</p>`}
    <div class="secret__row">
      <input id=${id} class="secret__value" readonly value=${value} aria-describedby=${hint ? `${id}-hint` : undefined}
        onFocus=${(e) => e.currentTarget.select()} />
      <button type="button" class="button button--secondary" onClick=${copy}>${copyLabel}</button>
    </div>
    <p role="status" class=${`secret__status${outcome === "failed" ? " secret__status--failed" : ""}`}>
      ${outcome === "copied" ? copiedLabel : outcome === "failed" ? copyFailedLabel : ""}</p>
  </div>`;
}

/** A secret shown once: `warning` says so, above the field to copy it from. */
export function SecretOnce({ warning, ...field }) {
  return html`<div class="secret">
    <p class="notice notice--warning"><strong>${warning}</strong></p>
    <${CopyField} ...${field} />
  </div>`;
}
