// The home screen's three panes, left to right: the organization's workspaces, the chosen workspace's
// projects, the chosen project's boards. A pane is a heading, its "new" buttons and a list of links; the
// chosen entry is marked (aria-current and a bar, not colour alone) and shows its rename and delete buttons.
import { html, useId } from "../../lib.js";

// Entries in name order, as a person reads them ("Line 2" before "Line 10"), in the viewer's language.
const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/**
 * One pane. `entries` [{id, name, href, detail}] (listed by name), `headingId` its heading's id (to move focus
 * there), `chosen` the id marked current, `actions` the buttons under the heading, `rowActions(entry)` the
 * buttons of an entry (shown for the chosen one, or for all when `actionsOnEvery`), `empty` what an empty list
 * says.
 */
export function Pane({ title, entries, chosen, actions, rowActions, actionsOnEvery = false, empty, listLabel,
  headingId }) {
  const generated = useId();
  const id = headingId ?? generated;
  return html`<section class="home-pane" aria-labelledby=${id}>
    <div class="home-pane__header">
      <h2 id=${id} class="home-pane__title" tabindex="-1">${title}</h2>
      ${actions && html`<div class="home-pane__actions">${actions}</div>`}
    </div>
    ${entries.length === 0 ? html`<p class="home-pane__empty">${empty}</p>`
      : html`<ul class="home-pane__list" aria-label=${listLabel}>
          ${[...entries].sort((a, b) => byName.compare(a.name, b.name)).map((entry) => {
            const current = entry.id === chosen;
            return html`<li key=${entry.id} class=${`home-entry${current ? " home-entry--current" : ""}`}>
              <a class="home-entry__link" href=${entry.href} aria-current=${current ? "page" : undefined}>
                <span class="home-entry__name">${entry.name}</span>
                ${entry.detail && html`<span class="home-entry__detail">${entry.detail}</span>`}
              </a>
              ${rowActions && (current || actionsOnEvery) && html`<div class="home-entry__actions">${rowActions(entry)}</div>`}
            </li>`;
          })}
        </ul>`}
  </section>`;
}

/** A small button whose accessible name says what it acts on ("Rename Line 4"), visible text first. */
export function RowButton({ label, target, danger = false, onClick }) {
  return html`<button type="button" class=${`button button--small ${danger ? "button--danger-quiet" : "button--quiet"}`}
    aria-label=${`${label} ${target}`} onClick=${onClick}>${label}</button>`;
}
