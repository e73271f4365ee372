// Short messages after an action ("Board created", "Could not save: ..."), announced to screen readers
// through one polite live region and shown for a few seconds. Any screen calls `notify`.
import { html, signal } from "../lib.js";

const SHOWN_MS = 6000;
export const notices = signal([]);
let next = 0;

/** Show `text`; kind "error" stays until dismissed. */
export function notify(text, kind = "info") {
  const id = ++next;
  notices.value = [...notices.value, { id, text, kind }];
  if (kind !== "error") setTimeout(() => dismiss(id), SHOWN_MS);
}

export function dismiss(id) {
  notices.value = notices.value.filter((notice) => notice.id !== id);
}

export function Notices({ dismissLabel }) {
  return html`<div class="notices" role="status" aria-live="polite">
    ${notices.value.map((notice) => html`<div key=${notice.id} class=${`toast toast--${notice.kind}`}>
      <span>${notice.text}</span>
      <button type="button" class="button button--quiet" aria-label=${dismissLabel} onClick=${() => dismiss(notice.id)}>×</button>
    </div>`)}
  </div>`;
}
