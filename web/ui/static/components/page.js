// A screen's frame: its heading (the page's one h1, focused after navigation so a screen reader announces
// the new screen), the document title, an optional breadcrumb trail and actions beside the heading.
import { html, useEffect, useRef } from "../lib.js";
import { organization } from "../session.js";
import { catalogue } from "../i18n.js";
import strings from "./components.strings.js";

const t = catalogue(strings);

export function Page({ title, breadcrumbs = [], actions = null, children, wide = false }) {
  const heading = useRef(null);
  useEffect(() => {
    const org = organization.value?.name;
    document.title = org ? `${title} · ${org} · Obeya` : `${title} · Obeya`;
  }, [title, organization.value?.name]);
  useEffect(() => { heading.current?.focus({ preventScroll: true }); }, []);
  return html`<div class=${`page${wide ? " page--wide" : ""}`}>
    ${breadcrumbs.length > 0 && html`<nav aria-label=${t("breadcrumb")} class="breadcrumbs"><ol>
      ${breadcrumbs.map(([label, href]) => html`<li key=${href ?? label}>${href ? html`<a href=${href}>${label}</a>` : label}</li>`)}
    </ol></nav>`}
    <div class="page__header">
      <h1 tabindex="-1" ref=${heading}>${title}</h1>
      ${actions && html`<div class="page__actions">${actions}</div>`}
    </div>
    ${children}
  </div>`;
}

/** What a screen shows while its data loads, or when it cannot: a status line, never a blank page. */
export function Loading({ label }) {
  return html`<p class="loading" role="status">${label}</p>`;
}

export function LoadError({ title, error, retryLabel, onRetry }) {
  return html`<div class="notice notice--error" role="alert">
    <h2>${title}</h2>
    <p>${error?.message ?? String(error)}</p>
    ${onRetry && html`<button type="button" class="button button--secondary" onClick=${onRetry}>${retryLabel}</button>`}
  </div>`;
}
