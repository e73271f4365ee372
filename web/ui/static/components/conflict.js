// A write refused because someone changed the same thing first (409 on expectedVersion): show what is there
// now beside what the person wanted, and let them choose. Nothing is overwritten silently.
import { html } from "../lib.js";

export function ConflictNotice({ title, theirsLabel, yoursLabel, theirs, yours, keepTheirsLabel, overwriteLabel,
  onKeepTheirs, onOverwrite }) {
  return html`<div class="notice notice--warning conflict" role="alert">
    <h2 class="conflict__title">${title}</h2>
    <dl class="conflict__values">
      <dt>${theirsLabel}</dt><dd>${theirs}</dd>
      <dt>${yoursLabel}</dt><dd>${yours}</dd>
    </dl>
    <div class="button-row">
      <button type="button" class="button button--secondary" onClick=${onKeepTheirs}>${keepTheirsLabel}</button>
      <button type="button" class="button button--primary" onClick=${onOverwrite}>${overwriteLabel}</button>
    </div>
  </div>`;
}
