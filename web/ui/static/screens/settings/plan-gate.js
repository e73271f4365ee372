// Sections of a plan feature (webhooks, automations, single sign-on): whether the organization's plan has it
// (billing.checkFeatureGate, read from the database, so an upgrade a moment ago counts) and, when it does not,
// the message shown instead of the section, linking to the billing section (or, for those who may not open
// it, saying to ask an admin).
import { html } from "../../lib.js";
import { query } from "../../api.js";
import { catalogue } from "../../i18n.js";
import { settingsPath } from "../../links.js";
import { isAdmin } from "../../session.js";
import strings from "./common.strings.js";

const t = catalogue(strings);

/**
 * The gate's answer and, when the plan has the feature, what `read` answers.
 * @template T
 * @param {string} feature
 * @param {AbortSignal} signal
 * @param {(signal: AbortSignal) => Promise<T>} read
 * @returns {Promise<{gate: {allowed: boolean, plan: string}, data: T | null}>}
 */
export async function withFeature(feature, signal, read) {
  const gate = await query("billing.checkFeatureGate", { feature }, { signal });
  return { gate, data: gate.allowed ? await read(signal) : null };
}

export function PlanRequired({ feature, plan }) {
  return html`<div class="notice notice--warning">
    <p>${t("planMissing", { plan, feature: t(`feature.${feature}`) })}</p>
    <p>${isAdmin.value ? html`<a href=${settingsPath("billing")}>${t("planUpgrade")}</a>` : t("planAskAdmin")}</p>
  </div>`;
}
