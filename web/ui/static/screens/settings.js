// The settings area: a side navigation of the sections the signed-in person may open, and the chosen section
// (screens/settings/<section>.js, default export `Section({query})`, loaded on first use). Who may open a
// section follows the least role its procedures need (docs/api/<domain>.md); a section whose plan feature
// the organization lacks shows the plan and the way to Billing instead of a form every write of which would
// be refused (this frame is the one place that checks: sections assume their feature is there). The
// credential sections stay open without API access (after a downgrade the old credentials must still be
// listed and revoked; the API allows both on every plan): they get the plan message as `planNotice`, shown
// in place of what makes a credential. "/settings" goes to the first section the person may open.
import { html, useEffect, useState } from "../lib.js";
import { query as read } from "../api.js";
import { catalogue } from "../i18n.js";
import { navigate } from "../router.js";
import { settingsPath } from "../links.js";
import { role, organization } from "../session.js";
import { Page, Loading, LoadError } from "../components/page.js";
import strings from "./settings.strings.js";

const t = catalogue(strings);

const RANK = { guest: 0, member: 1, admin: 2, owner: 3 };

/**
 * The sections in navigation order: the least role that may open each (what its list procedure needs), and
 * the plan feature without which its procedures (or the credentials it makes) would be refused
 * (`billing.checkFeatureGate`); `listed`: without the feature the section still opens, to list and revoke
 * (only the credentials it makes would be refused).
 * @type {{section: string, least: keyof typeof RANK, feature?: string, listed?: boolean}[]}
 */
const SECTIONS = [
  { section: "members", least: "guest" },
  { section: "api-keys", least: "admin", feature: "api_access", listed: true },
  { section: "tokens", least: "guest", feature: "api_access", listed: true },
  { section: "applications", least: "admin", feature: "api_access", listed: true },
  { section: "mcp-keys", least: "guest", feature: "api_access", listed: true },
  { section: "webhooks", least: "admin", feature: "webhooks" },
  { section: "automations", least: "guest", feature: "automations" },
  { section: "sso", least: "admin", feature: "sso" },
  { section: "displays", least: "admin" },
  { section: "billing", least: "admin" },
  { section: "activity", least: "member" },
  { section: "exports", least: "guest" },
];

/** Whether the person with `roleName` may open `entry`; an unknown role opens only what guests may. */
const mayOpen = (entry, roleName) => (RANK[roleName] ?? 0) >= RANK[entry.least];

const modules = new Map();
function loadSection(section) {
  if (!modules.has(section)) {
    const loading = import(`./settings/${section}.js`);
    loading.catch(() => modules.delete(section));
    modules.set(section, loading);
  }
  return modules.get(section);
}

function Navigation({ sections, current }) {
  return html`<nav aria-label=${t("navigation")} class="settings__nav">
    <ul>${sections.map(({ section }) => html`<li key=${section}>
      <a href=${settingsPath(section)} aria-current=${section === current ? "page" : undefined}>
        ${t(`section.${section}`)}</a>
    </li>`)}</ul>
  </nav>`;
}

/** What the plan lacks, the plans that have it and the way to Billing (or to an admin). */
function PlanNotice({ entry, plan }) {
  const canSeeBilling = mayOpen(SECTIONS.find((item) => item.section === "billing"), role.value);
  const feature = t(`feature.${entry.feature}`);
  return html`<div class="notice notice--warning">
    <p><strong>${t("planMissingTitle", { feature })}</strong></p>
    <p>${t("planMissing", { plans: t(`plans.${entry.feature}`), feature, plan: t(`plan.${plan}`) })}</p>
    <p>${canSeeBilling ? html`<a href=${settingsPath("billing")}>${t("planUpgrade")}</a>` : t("planAskAdmin")}</p>
  </div>`;
}

function PlanMissing({ entry, plan }) {
  return html`<h2>${t(`section.${entry.section}`)}</h2><${PlanNotice} entry=${entry} plan=${plan} />`;
}

/** The section's module, after its plan feature is known to be there (or, for a listed one, known missing). */
function SectionBody({ entry, query }) {
  const [state, setState] = useState({ component: null, plan: null, error: null });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    const gate = entry.feature ? read("billing.checkFeatureGate", { feature: entry.feature })
      : Promise.resolve({ allowed: true });
    gate.then(async ({ allowed, plan }) => {
      if (!allowed && !entry.listed) return current && setState({ component: null, plan, error: null });
      const module = await loadSection(entry.section);
      if (current) setState({ component: module.default, plan: allowed ? null : plan, error: null });
    }).catch((error) => current && setState({ component: null, plan: null, error }));
    return () => { current = false; };
  }, [entry.section, attempt]);
  if (state.error) {
    return html`<${LoadError} title=${t("loadFailed")} error=${state.error} retryLabel=${t("retry")}
      onRetry=${() => { setState({ component: null, plan: null, error: null }); setAttempt((n) => n + 1); }} />`;
  }
  const Section = state.component;
  if (state.plan && !Section) return html`<${PlanMissing} entry=${entry} plan=${state.plan} />`;
  const planNotice = state.plan ? html`<${PlanNotice} entry=${entry} plan=${state.plan} />` : null;
  return Section ? html`<${Section} query=${query} planNotice=${planNotice} />` : html`<${Loading} label=${t("loading")} />`;
}

export default function Settings({ params, query }) {
  const visible = SECTIONS.filter((entry) => mayOpen(entry, role.value));
  const name = params.section ?? null;
  const entry = SECTIONS.find((item) => item.section === name) ?? null;
  useEffect(() => {
    if (name === null && visible.length) navigate(settingsPath(visible[0].section), { replace: true });
  }, [name]);
  // The document title names the section too (the page's title is set first, by Page, then this).
  useEffect(() => {
    const org = organization.value?.name;
    const title = entry ? `${t(`section.${entry.section}`)} · ${t("title")}` : t(name ? "notFound" : "title");
    document.title = org ? `${title} · ${org} · Obeya` : `${title} · Obeya`;
  }, [name, organization.value?.name]);
  if (name !== null && entry === null) {
    return html`<${Page} title=${t("notFound")}><p>${t("notFoundBody")}</p>
      <${Navigation} sections=${visible} current=${null} /><//>`;
  }
  let body;
  if (entry === null) body = html`<${Loading} label=${t("loading")} />`;
  else if (!mayOpen(entry, role.value)) {
    body = html`<h2>${t("noAccessTitle")}</h2><p>${t("noAccess")}</p>`;
  } else body = html`<${SectionBody} key=${entry.section} entry=${entry} query=${query} />`;
  return html`<${Page} title=${t("title")}>
    <div class="settings">
      <${Navigation} sections=${visible} current=${name} />
      <div class="settings__section">${body}</div>
    </div>
  <//>`;
}
