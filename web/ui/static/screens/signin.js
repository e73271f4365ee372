// An organization's sign-in ("/signin", and any path while signed out): e-mail and password
// (POST /api/v1/auth/login on this host: the session is this host's), then back to the path the person asked
// for: the path itself when the shell shows this screen in its place, or ?next= (same host only). A refusal
// says what to do; an organization that enforces single sign-on is offered its provider. Nothing public
// tells a signed-out page whether single sign-on is set up, so its link is always there, as a secondary way
// that says when it works.
import { html, useEffect, useState } from "../lib.js";
import { rest } from "../api.js";
import { catalogue } from "../i18n.js";
import { navigate, location } from "../router.js";
import { loadSession, me, organizationSlug, organizationUrl, serviceHost } from "../session.js";
import { Page } from "../components/page.js";
import { ErrorSummary, Field, Submit, useForm } from "../components/forms.js";
import { restate, samePath } from "./joining/refusals.js";
import strings from "./signin.strings.js";

const t = catalogue(strings);
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;  // protocol/fields.py EMAIL_PATTERN

/** Where to go once signed in: ?next= on /signin, else the path this screen stands in for. */
function destination(query) {
  const { path } = location.value;
  if (path === "/signin") return samePath(query.get("next")) ?? "/";
  return samePath(window.location.pathname + window.location.search) ?? "/";
}

function check({ email, password }) {
  return {
    email: !email.trim() ? t("emailMissing") : EMAIL.test(email.trim()) ? null : t("emailInvalid"),
    password: password ? null : t("passwordMissing"),
  };
}

function SingleSignOn({ to, primary }) {
  const href = `/api/v1/auth/sso/start?returnTo=${encodeURIComponent(to)}`;
  return html`<a class=${`button ${primary ? "button--primary" : "button--secondary"} signin__sso`} href=${href}>
    ${t("sso")}</a>`;
}

export default function SignIn({ query }) {
  const address = `${organizationSlug}.${serviceHost}`;
  const to = destination(query);
  const form = useForm({ email: query.get("email") ?? "", password: "" });
  const [ssoRequired, setSsoRequired] = useState(false);
  const { values, errors } = form;

  // Signed in already (another tab, the back button): go on.
  useEffect(() => { if (me.value && location.value.path === "/signin") navigate(to, { replace: true }); }, []);

  const explain = (error) => {
    if (error.status === 401) return { password: t("wrong") };
    if (error.status === 404) return { _form: t("noOrganization", { address }) };
    if (error.status === 422) return Object.fromEntries(error.details.map(({ field, message }) =>
      [field, check(values)[field] ?? message]));
    return null;
  };
  const submit = async (event) => {
    event.preventDefault();
    setSsoRequired(false);
    const signedIn = await form.submit(async ({ email, password }) => {
      try {
        await rest("POST", "/api/v1/auth/login", { email: email.trim(), password });
      } catch (error) {
        if (error.status === 403) setSsoRequired(true);
        throw restate(error, explain);
      }
    }, check);
    if (!signedIn) return;
    await loadSession();
    navigate(to, { replace: true });
  };

  return html`<${Page} title=${t("title")}>
    <p class="signin__to">${t("to", { address })}</p>
    ${query.get("welcome") === "1" && html`<div class="notice notice--success signin__ready">
      <p class="signin__ready-title">${t("ready", { address })}</p>
      <p>${t("readyWhy")}</p>
    </div>`}
    ${ssoRequired ? html`<div class="notice notice--warning" role="alert">
        <h2>${t("ssoEnforcedTitle")}</h2>
        <p>${t("ssoEnforced")}</p>
        <${SingleSignOn} to=${to} primary=${true} />
      </div>`
      : html`<${ErrorSummary} title=${t("errorTitle")} errors=${errors} />`}
    <form class="card" onSubmit=${submit} novalidate>
      <${Field} name="email" type="email" label=${t("emailLabel")} error=${errors.email} value=${values.email}
        onInput=${form.set("email")} autocomplete="username" spellcheck="false" required />
      <${Field} name="password" type="password" label=${t("passwordLabel")} error=${errors.password}
        value=${values.password} onInput=${form.set("password")} autocomplete="current-password" required />
      <${Submit} busy=${form.busy} busyLabel=${t("busy")}>${t("submit")}<//>
    </form>
    ${!ssoRequired && html`<section class="signin__alternative">
      <p class="signin__or">${t("ssoOr")}</p>
      <${SingleSignOn} to=${to} primary=${false} />
      <p class="hint">${t("ssoHint")}</p>
    </section>`}
    <p class="signin__other">${t("other")} <a href=${organizationUrl(null, "/")}>${t("otherLink")}</a></p>
  <//>`;
}
