// Settings section "Billing": the subscription (billing.getSubscription: plan, status, seats, renewal), the
// plans and what each gives (docs/billing.md, protocol/plans.py), "Upgrade" through a checkout
// (billing.createCheckoutSession) and "Manage billing" through the portal (billing.createPortalSession), both
// opened in this tab. The processor sends the person back to /settings/billing?checkout=success|canceled or
// ?portal=return, which this section reads to say what happened.
import { html, useState } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { date, number } from "../../format.js";
import { settingsPath } from "../../links.js";
import { Field } from "../../components/forms.js";
import { notify } from "../../components/notices.js";
import { useLoad, Loaded } from "./load.js";
import strings from "./billing.strings.js";

const t = catalogue(strings);

// What each plan gives (protocol/plans.py PLANS; docs/billing.md's table). null: unlimited.
const PLANS = ["free", "starter", "business", "enterprise"];
const GIVES = {
  seats: [3, 10, 25, null], boards: [3, 10, 50, null], items: [100, 1000, null, null],
  kpis: [false, true, true, true], automations: [0, 5, null, null], apiAccess: [false, false, true, true],
  requests: [60, 300, 1000, 5000], templates: [true, true, true, true], csvImport: [false, true, true, true],
  webhooks: [false, true, true, true], auditLog: [false, false, true, true],
  advancedPermissions: [false, false, true, true], sso: [false, false, false, true],
  customBranding: [false, false, false, true],
};

function shown(row, value) {
  if (value === null) return t("unlimited");
  if (typeof value === "boolean") return value ? t("yes") : t("no");
  if (row === "automations") return value === 0 ? t("no") : t("perBoard", { count: value });
  return number(value);
}

const here = (query) => `${window.location.origin}${settingsPath("billing")}?${query}`;

function Subscription({ subscription, onManage, busy }) {
  const { seats } = subscription;
  return html`<section class="card" aria-labelledby="billing-current">
    <h3 id="billing-current">${t("current")}</h3>
    <dl class="facts">
      <div><dt>${t("plan")}</dt><dd><strong>${t(`plan.${subscription.plan}`)}</strong></dd></div>
      <div><dt>${t("status")}</dt><dd>${t(`status.${subscription.status}`)}</dd></div>
      <div><dt>${t("interval")}</dt><dd>${subscription.interval ? t(`interval.${subscription.interval}`) : t("noInterval")}</dd></div>
      ${subscription.currentPeriodEnd && html`<div><dt>${subscription.cancelAtPeriodEnd ? t("ends") : t("renews")}</dt>
        <dd>${date(subscription.currentPeriodEnd)}</dd></div>`}
      <div><dt>${t("seats")}</dt><dd>${seats.included === null ? t("seatsUnlimited", { used: number(seats.used) })
        : t("seatsUsed", { used: number(seats.used), included: number(seats.included) })}</dd></div>
    </dl>
    ${subscription.plan !== "free" && html`<p class="hint">${t("manageHint")}</p>
      <button type="button" class="button button--secondary" disabled=${busy} onClick=${onManage}>
        ${busy ? t("opening") : t("manage")}</button>`}
  </section>`;
}

function Plans({ current, onChoose, busy }) {
  const [interval, setPeriod] = useState("monthly");
  const rank = PLANS.indexOf(current);
  return html`<section aria-labelledby="billing-plans">
    <h3 id="billing-plans">${t("plansTitle")}</h3>
    <div class="narrow-field"><${Field} as="select" name="interval" label=${t("intervalLabel")} value=${interval}
        onInput=${setPeriod}>
      <option value="monthly">${t("interval.monthly")}</option>
      <option value="annual">${t("interval.annual")}</option>
    <//></div>
    <div class="table-scroll"><table class="table plans">
      <caption class="visually-hidden">${t("plansTitle")}</caption>
      <thead><tr><th scope="col">${t("feature")}</th>${PLANS.map((plan) => html`<th scope="col" key=${plan}
        class=${plan === current ? "plans__current" : ""}>${t(`plan.${plan}`)}
        ${plan === current && html`<br /><span class="chip">${t("yourPlan")}</span>`}</th>`)}</tr></thead>
      <tbody>${Object.entries(GIVES).map(([row, values]) => html`<tr key=${row}>
        <th scope="row">${t(`row.${row}`)}</th>
        ${values.map((value, index) => html`<td key=${index} class=${PLANS[index] === current ? "plans__current" : ""}>
          ${shown(row, value)}</td>`)}
      </tr>`)}</tbody>
      <tfoot><tr><td></td>${PLANS.map((plan, index) => html`<td key=${plan}>
        ${plan !== "free" && plan !== current && html`<button type="button" disabled=${busy}
          class=${`button ${index > rank ? "button--primary" : "button--secondary"}`}
          onClick=${() => onChoose(plan, interval)}>${t(index > rank ? "upgrade" : "switchTo", { plan: t(`plan.${plan}`) })}</button>`}
      </td>`)}</tr></tfoot>
    </table></div>
  </section>`;
}

function Returned({ query, plan }) {
  const checkout = query?.get("checkout");
  const message = checkout === "success" ? t("returnSuccess", { plan: t(`plan.${plan}`) })
    : checkout === "canceled" ? t("returnCanceled") : query?.get("portal") === "return" ? t("returnPortal") : null;
  return message && html`<p role="status" class=${`notice ${checkout === "success" ? "notice--success" : ""}`}>${message}</p>`;
}

export default function Section({ query }) {
  const state = useLoad((signal) => api.billing.getSubscription({}, { signal }), []);
  const [busy, setBusy] = useState(false);
  const leave = async (open) => {
    setBusy(true);
    try {
      const url = await open();
      // Only a web address is followed: a javascript: or data: URL in the reply would run in this page.
      if (!/^https?:$/.test(new URL(url, window.location.href).protocol)) throw new Error(t("badAddress"));
      window.location.assign(url);
    } catch (error) {
      notify(error.message, "error");
      setBusy(false);
    }
  };
  const checkout = (plan, interval) => leave(async () => (await api.billing.createCheckoutSession({
    plan, interval, successUrl: here("checkout=success"), cancelUrl: here("checkout=canceled") })).checkoutUrl);
  const portal = () => leave(async () => (await api.billing.createPortalSession({ returnUrl: here("portal=return") })).portalUrl);
  return html`<h2>${t("title")}</h2>
    <${Loaded} state=${state}>${({ subscription }) => html`
      <${Returned} query=${query} plan=${subscription.plan} />
      <${Subscription} subscription=${subscription} onManage=${portal} busy=${busy} />
      <${Plans} current=${subscription.plan} onChoose=${checkout} busy=${busy} />`}<//>`;
}
