// A secret the server shows once (an API key, a token, a client secret): in a read-only field with a copy
// button, and a plain warning that it will not be shown again.
import { html, useState, useId } from "../lib.js";

export function SecretOnce({ label, value, warning, copyLabel, copiedLabel }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // No clipboard permission (plain http): select the text so Ctrl+C copies it.
      const input = /** @type {HTMLInputElement | null} */ (document.getElementById(id));
      input?.select();
      document.execCommand?.("copy");
    }
    setCopied(true);
  };
  return html`<div class="secret">
    <p class="notice notice--warning"><strong>${warning}</strong></p>
    <label for=${id}>${label}</label>
    <div class="secret__row">
      <input id=${id} class="secret__value" readonly value=${value} onFocus=${(e) => e.currentTarget.select()} />
      <button type="button" class="button button--secondary" onClick=${copy}>${copyLabel}</button>
    </div>
    <p role="status" class="secret__status">${copied ? copiedLabel : ""}</p>
  </div>`;
}
