// Accepting an invitation ("/invite/accept?token=", reached from the plain page the e-mail's link opens,
// which only describes the invitation: a GET never accepts). Name and password (AcceptInvitationInput), then
// POST /api/v1/invitations/accept opens a session on this host and the person arrives home. An unknown, used
// or expired token says so and what to do.
import { html, useState } from "../lib.js";
import { rest } from "../api.js";
import { catalogue } from "../i18n.js";
import { navigate } from "../router.js";
import { loadSession, organizationSlug, serviceHost } from "../session.js";
import { Page } from "../components/page.js";
import { ErrorSummary, Field, Submit, useForm } from "../components/forms.js";
import { restate } from "./joining/refusals.js";
import strings from "./invite.strings.js";

const t = catalogue(strings);
// AcceptInvitationInput's token bounds.
const TOKEN = { shortest: 10, longest: 200 };

function check({ name, password }) {
  const trimmed = name.trim();
  return {
    name: !trimmed ? t("nameMissing") : trimmed.length < 2 || trimmed.length > 100 ? t("nameShort") : null,
    password: !password ? t("passwordMissing") : password.length < 8 || password.length > 200
      ? t("passwordLength") : null,
  };
}

function Gone({ message }) {
  return html`<div class="notice notice--error" role="alert">
    <h2>${t("goneTitle")}</h2>
    <p>${message}</p>
    <a class="button button--secondary" href="/signin">${t("signIn")}</a>
  </div>`;
}

export default function Invite({ query }) {
  const address = `${organizationSlug}.${serviceHost}`;
  const token = query.get("token") ?? "";
  const form = useForm({ name: "", password: "" });
  const [gone, setGone] = useState(false);
  const { values, errors } = form;
  const usable = token.length >= TOKEN.shortest && token.length <= TOKEN.longest;

  const explain = (error) => {
    if (error.status === 401) return { password: t("wrongPassword") };
    if (error.status === 403) return { _form: t("noSeat", { address }) };
    if (error.status === 422) return Object.fromEntries(error.details.filter(({ field }) => field !== "token")
      .map(({ field, message }) => [field, check(values)[field] ?? message]));
    return null;
  };
  const submit = async (event) => {
    event.preventDefault();
    const joined = await form.submit(async ({ name, password }) => {
      try {
        await rest("POST", "/api/v1/invitations/accept", { token, name: name.trim(), password });
      } catch (error) {
        // Unknown, used or expired (404), or already taken by another attempt (409).
        if (error.status === 404 || error.status === 409) setGone(true);
        throw restate(error, explain);
      }
    }, check);
    if (!joined) return;
    await loadSession();
    navigate("/", { replace: true });
  };

  if (!usable) return html`<${Page} title=${t("title")}><${Gone} message=${t("missing")} /><//>`;
  if (gone) return html`<${Page} title=${t("title")}><${Gone} message=${t("gone")} /><//>`;
  return html`<${Page} title=${t("title")}>
    <p class="invite__intro">${t("intro", { address })}</p>
    <p class="invite__existing">${t("existing")}</p>
    <${ErrorSummary} title=${t("errorTitle")} errors=${errors} />
    <form class="card" onSubmit=${submit} novalidate>
      <${Field} name="name" label=${t("nameLabel")} hint=${t("nameHint")} error=${errors.name} value=${values.name}
        onInput=${form.set("name")} autocomplete="name" required />
      <${Field} name="password" type="password" label=${t("passwordLabel")} hint=${t("passwordHint")}
        error=${errors.password} value=${values.password} onInput=${form.set("password")}
        autocomplete="new-password" required />
      <${Submit} busy=${form.busy} busyLabel=${t("busy")}>${t("submit")}<//>
    </form>
  <//>`;
}
