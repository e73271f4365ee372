// The service host's front page ("/" and "/signin"): what Obeya is, a field to go to an organization's own
// address (where people sign in: sessions are per host), a link to create an organization, and, when this
// browser is signed in on the service host (after signing up), links to its organizations' sign-in pages.
import { html } from "../lib.js";
import { catalogue } from "../i18n.js";
import { me, serviceHost } from "../session.js";
import { Page } from "../components/page.js";
import { ErrorSummary, Field, Submit, useForm } from "../components/forms.js";
import { signInUrl, slugPattern } from "./joining/address.js";
import strings from "./welcome.strings.js";

const t = catalogue(strings);

function Memberships({ user }) {
  if (!user?.memberships?.length) return null;
  return html`<section class="card welcome__yours" aria-labelledby="welcome-yours">
    <h2 id="welcome-yours">${t("yoursTitle")}</h2>
    <p>${t("yoursIntro", { email: user.email })}</p>
    <ul class="welcome__organizations">
      ${user.memberships.map((membership) => html`<li key=${membership.organizationId}>
        <a class="button button--secondary welcome__organization" href=${signInUrl(membership.organizationSlug, user.email)}>${membership.organizationSlug}.${serviceHost}</a>
        <span class="welcome__role">${t("role", { role: t(`role.${membership.role}`) })}</span>
      </li>`)}
    </ul>
  </section>`;
}

export default function Welcome() {
  const form = useForm({ organization: "" });
  const check = ({ organization }) => {
    const slug = organization.trim();
    if (!slug) return { organization: t("addressMissing") };
    return { organization: slugPattern.test(slug) ? null : t("addressInvalid") };
  };
  const go = (event) => {
    event.preventDefault();
    form.submit(async ({ organization }) => {
      window.location.assign(signInUrl(organization.trim().toLowerCase(), null));
    }, check);
  };
  return html`<${Page} title=${t("title")}>
    <p class="welcome__lead">${t("lead")}</p>
    <${Memberships} user=${me.value} />
    <section class="card" aria-labelledby="welcome-go">
      <h2 id="welcome-go">${t("goTitle")}</h2>
      <p>${t("goIntro")}</p>
      <${ErrorSummary} title=${t("errorTitle")} errors=${form.errors} />
      <form onSubmit=${go} novalidate>
        <${Field} name="organization" label=${t("addressLabel")} hint=${t("addressHint")}
          error=${form.errors.organization} value=${form.values.organization} onInput=${form.set("organization")}
          suffix=${`.${serviceHost}`} autocomplete="off" autocapitalize="none" spellcheck="false" required />
        <${Submit} busy=${form.busy}>${t("go")}<//>
      </form>
    </section>
    <section class="card" aria-labelledby="welcome-new">
      <h2 id="welcome-new">${t("newTitle")}</h2>
      <p>${t("newIntro")}</p>
      <a class="button button--secondary" href="/signup">${t("create")}</a>
    </section>
  <//>`;
}
