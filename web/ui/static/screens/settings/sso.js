// Settings section "Single sign-on": the redirect URI to register at the provider (with a copy button), and
// the organization's OpenID Connect settings (sso.getConfig / sso.updateConfig): issuer, client ID, a client
// secret that is never shown back ("a secret is set" instead), allowed domains, and enforcement behind a
// plain warning. (The settings frame shows plans without single sign-on the plan message instead.)
import { html, useState } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { dateTime } from "../../format.js";
import { organizationSlug, organizationUrl } from "../../session.js";
import { Field, ErrorSummary, Submit, useForm } from "../../components/forms.js";
import { notify } from "../../components/notices.js";
import { CopyField } from "../../components/secret.js";
import { useLoad, Loaded } from "./load.js";
import strings from "./sso.strings.js";

const t = catalogue(strings);
// docs/sign-in.md: the callback every provider must know, and where members start signing in.
const CALLBACK_PATH = "/api/v1/auth/sso/callback";
const START_PATH = "/api/v1/auth/sso/start";

function SsoForm({ config, onSaved }) {
  const form = useForm({ issuer: config.issuer ?? "", clientId: config.clientId ?? "", clientSecret: "",
    allowedDomains: (config.allowedDomains ?? []).join("\n"), enforce: config.enforce ?? false });
  const { values, errors, set } = form;
  const check = (v) => ({ issuer: v.issuer.trim() ? null : t("issuerRequired"),
    clientId: v.clientId.trim() ? null : t("clientIdRequired"),
    clientSecret: config.hasClientSecret || v.clientSecret ? null : t("clientSecretRequired") });
  const save = async (v) => {
    const saved = await api.sso.updateConfig({ issuer: v.issuer.trim(), clientId: v.clientId.trim(), enforce: v.enforce,
      allowedDomains: v.allowedDomains.split(/[\s,]+/).filter(Boolean), clientSecret: v.clientSecret || null });
    set("clientSecret")("");
    notify(t("saved"));
    onSaved(saved);
  };
  return html`<form novalidate onSubmit=${(event) => { event.preventDefault(); form.submit(save, check); }}>
    <${ErrorSummary} title=${t("errorTitle")} errors=${errors} />
    <${Field} name="issuer" label=${t("issuer")} hint=${t("issuerHint")} type="url" value=${values.issuer}
      onInput=${set("issuer")} error=${errors.issuer} required autocomplete="off" />
    <${Field} name="clientId" label=${t("clientId")} value=${values.clientId} onInput=${set("clientId")}
      error=${errors.clientId} required autocomplete="off" />
    <${Field} name="clientSecret" label=${t("clientSecret")} type="password" value=${values.clientSecret}
      hint=${config.hasClientSecret ? t("clientSecretSet") : t("clientSecretHint")} onInput=${set("clientSecret")}
      error=${errors.clientSecret} required=${!config.hasClientSecret} autocomplete="new-password" />
    <${Field} name="allowedDomains" label=${t("domains")} hint=${t("domainsHint")} as="textarea" value=${values.allowedDomains}
      onInput=${set("allowedDomains")} error=${errors.allowedDomains} />
    <div class="notice notice--warning sso-enforce">
      <p><strong>${t("enforceWarning")}</strong></p>
      <label class="checkbox"><input type="checkbox" id="field-enforce" checked=${values.enforce}
        onChange=${(event) => set("enforce")(event.currentTarget.checked)} /> <span>${t("enforce")}</span></label>
    </div>
    <div class="button-row"><${Submit} busy=${form.busy} busyLabel=${t("saving")}>${t("save")}<//></div>
  </form>`;
}

export default function Section() {
  const state = useLoad((signal) => api.sso.getConfig({}, { signal }), []);
  const [saved, setSaved] = useState(null);
  return html`<h2>${t("title")}</h2>
    <${Loaded} state=${state}>${(data) => {
      const config = saved ?? data;
      return html`<p>${t("intro")}</p>
        <section class="card" aria-labelledby="sso-redirect-title">
          <h3 id="sso-redirect-title">${t("redirectTitle")}</h3>
          <p>${t("redirectIntro")}</p>
          <${CopyField} label=${t("redirectLabel")} value=${organizationUrl(organizationSlug, CALLBACK_PATH)}
            hint=${t("redirectExact")} copyLabel=${t("copy")} copiedLabel=${t("copied")}
            copyFailedLabel=${t("copyFailed")} />
        </section>
        <section class="card" aria-labelledby="sso-settings-title">
          <h3 id="sso-settings-title">${t("settingsTitle")}</h3>
          <p>${config.configured ? t("configuredAt", { time: dateTime(config.updatedAt) }) : t("notConfigured")}
            ${config.configured && html` ${t("signInLink")} <code>${organizationUrl(organizationSlug, START_PATH)}</code>.`}</p>
          <${SsoForm} key=${config.updatedAt ?? "new"} config=${config} onSaved=${setSaved} />
        </section>`;
    }}<//>`;
}
