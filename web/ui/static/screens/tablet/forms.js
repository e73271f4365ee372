// The board's published forms (a near miss, a safety observation), one tap away: each opens its public page.
import { html } from "../../lib.js";

export function Forms({ t, forms }) {
  if (forms.length === 0) return html`<p class="tablet-empty">${t("noForms")}</p>`;
  return html`<ul class="tablet-forms">${forms.map((form) => html`<li key=${form.id}>
    <a class="button button--secondary tablet-big tablet-forms__link" href=${form.publicUrl} target="_blank"
      rel="noopener" aria-label=${t("openForm", { name: form.name })}>${form.name}</a>
    ${form.description && html`<p class="tablet-card__meta">${form.description}</p>`}
  </li>`)}</ul>`;
}
