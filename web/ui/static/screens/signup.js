// Sign-up on the service host ("/signup"): a person and their new organization (POST /api/v1/auth/signup,
// SignupInput). The organization's address is suggested from its name until the person edits it. The rules
// of SignupInput are shown as hints and checked here first; the server's refusals (a taken address or
// e-mail) land on their fields. Then the person goes to the new organization's own address to sign in.
import { html, useState } from "../lib.js";
import { rest } from "../api.js";
import { catalogue } from "../i18n.js";
import { serviceHost } from "../session.js";
import { Page } from "../components/page.js";
import { ErrorSummary, Field, Submit, useForm } from "../components/forms.js";
import { signInUrl, slugPattern, suggestSlug } from "./joining/address.js";
import { restate } from "./joining/refusals.js";
import strings from "./signup.strings.js";

const t = catalogue(strings);
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;  // protocol/fields.py EMAIL_PATTERN

function check({ name, email, password, organizationName, organizationSlug }) {
  const trimmed = name.trim();
  return {
    name: !trimmed ? t("nameMissing") : trimmed.length < 2 || trimmed.length > 100 ? t("nameShort") : null,
    email: !email.trim() ? t("emailMissing") : EMAIL.test(email.trim()) && email.trim().length <= 254 ? null
      : t("emailInvalid"),
    password: !password ? t("passwordMissing") : password.length < 8 || password.length > 200
      ? t("passwordLength") : null,
    organizationName: !organizationName.trim() ? t("organizationNameMissing")
      : organizationName.trim().length > 100 ? t("organizationNameLong") : null,
    organizationSlug: !organizationSlug ? t("slugMissing") : slugPattern.test(organizationSlug) ? null
      : t("slugInvalid"),
  };
}

/** The server's refusal in this screen's words, by field. */
function explain(error, values) {
  const address = `${values.organizationSlug}.${serviceHost}`;
  const ours = check(values);
  /** @type {Record<string, string>} */
  const messages = {};
  for (const { field, message } of error.details) {
    if (field === "organizationSlug") {
      messages[field] = error.status === 409 ? t("slugTaken", { address })
        : /reserved/.test(message) ? t("slugReserved", { address }) : ours[field] ?? message;
    } else if (field === "email" && error.status === 409) messages[field] = t("emailTaken");
    else messages[field] = ours[field] ?? message;
  }
  return Object.keys(messages).length ? messages : null;
}

export default function SignUp() {
  const form = useForm({ name: "", email: "", password: "", organizationName: "", organizationSlug: "" });
  // The address follows the name until the person types one of their own.
  const [slugEdited, setSlugEdited] = useState(false);
  const { values, errors } = form;

  const setOrganizationName = (value) => {
    form.set("organizationName")(value);
    if (!slugEdited) form.set("organizationSlug")(suggestSlug(value));
  };
  const setSlug = (value) => {
    setSlugEdited(value !== "");
    form.set("organizationSlug")(value.trim().toLowerCase());
  };
  const submit = async (event) => {
    event.preventDefault();
    await form.submit(async (input) => {
      const body = { ...input, name: input.name.trim(), email: input.email.trim(),
        organizationName: input.organizationName.trim() };
      try {
        await rest("POST", "/api/v1/auth/signup", body);
      } catch (error) {
        throw restate(error, (refusal) => explain(refusal, input));
      }
      window.location.assign(signInUrl(input.organizationSlug, body.email, { welcome: "1" }));
    }, check);
  };

  return html`<${Page} title=${t("title")}>
    <p class="signup__intro">${t("intro")}</p>
    <${ErrorSummary} title=${t("errorTitle")} errors=${errors} />
    <form class="card" onSubmit=${submit} novalidate>
      <fieldset>
        <legend>${t("you")}</legend>
        <${Field} name="name" label=${t("nameLabel")} hint=${t("nameHint")} error=${errors.name} value=${values.name}
          onInput=${form.set("name")} autocomplete="name" required />
        <${Field} name="email" type="email" label=${t("emailLabel")} hint=${t("emailHint")} error=${errors.email}
          value=${values.email} onInput=${form.set("email")} autocomplete="email" spellcheck="false" required />
        <${Field} name="password" type="password" label=${t("passwordLabel")} hint=${t("passwordHint")}
          error=${errors.password} value=${values.password} onInput=${form.set("password")}
          autocomplete="new-password" minlength="8" maxlength="200" required />
      </fieldset>
      <fieldset>
        <legend>${t("organization")}</legend>
        <${Field} name="organizationName" label=${t("organizationNameLabel")} hint=${t("organizationNameHint")}
          error=${errors.organizationName} value=${values.organizationName} onInput=${setOrganizationName}
          autocomplete="organization" maxlength="100" required />
        <${Field} name="organizationSlug" label=${t("slugLabel")} hint=${t("slugHint")}
          error=${errors.organizationSlug} value=${values.organizationSlug} onInput=${setSlug}
          suffix=${`.${serviceHost}`} autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="63"
          required />
      </fieldset>
      <${Submit} busy=${form.busy} busyLabel=${t("busy")}>${t("submit")}<//>
    </form>
    <p class="signup__other">${t("haveAccount")} <a href="/">${t("goThere")}</a></p>
  <//>`;
}
