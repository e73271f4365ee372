// Short messages after an action ("Board created", "Could not save: ..."). Errors go to an alert region (read
// out at once) and stay until dismissed; the others go to a polite status region and leave after a few
// seconds. Any screen calls `notify`.
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

function Toast({ notice, dismissLabel }) {
  return html`<div class=${`toast toast--${notice.kind}`}>
    <span>${notice.text}</span>
    <button type="button" class="button button--quiet" aria-label=${dismissLabel} onClick=${() => dismiss(notice.id)}>×</button>
  </div>`;
}

/** Both regions are always in the page: a live region added together with its text may not be read out. */
export function Notices({ dismissLabel }) {
  const errors = notices.value.filter((notice) => notice.kind === "error");
  const others = notices.value.filter((notice) => notice.kind !== "error");
  return html`<div class="notices">
    <div class="notices__region" role="alert">
      ${errors.map((notice) => html`<${Toast} key=${notice.id} notice=${notice} dismissLabel=${dismissLabel} />`)}
    </div>
    <div class="notices__region" role="status" aria-live="polite">
      ${others.map((notice) => html`<${Toast} key=${notice.id} notice=${notice} dismissLabel=${dismissLabel} />`)}
    </div>
  </div>`;
}
