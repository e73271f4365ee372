// Settings section "OAuth applications" (owners and admins; docs/sign-in.md): the organization's applications
// with client id, type, redirect URIs and scopes; registering one (confidential ones get a client secret shown
// once); editing name, redirect URIs and scopes; issuing a new secret (shown once) and deleting, each after a
// confirmation.
import { html, useState, useId, useRef } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { organizationUrl } from "../../session.js";
import { useForm, Field, ErrorSummary, Submit } from "../../components/forms.js";
import { Dialog, ConfirmDialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import { useList, ScopeChoices, NewSecret, SecretWithheld, withheld } from "./parts.js";
import { Loaded } from "./load.js";
import strings from "./applications.strings.js";

const t = catalogue(strings);

const SCOPES = ["read", "write", "delete", "admin", "webhooks"];
const lines = (text) => text.split("\n").map((line) => line.trim()).filter(Boolean);
const check = (values) => ({ name: values.name.trim() ? null : t("nameMissing"),
  redirectUris: lines(values.redirectUris).length ? null : t("redirectUrisMissing"),
  scopes: values.scopes.length ? null : t("scopesMissing") });

function KindChoice({ value, onChange }) {
  return html`<fieldset class="field">
    <legend>${t("kind")}</legend>
    ${["confidential", "public"].map((kind) => html`<div class="radio" key=${kind}>
      <input type="radio" id=${`field-kind-${kind}`} name="kind" value=${kind} checked=${value === kind}
        aria-describedby=${`field-kind-${kind}-hint`} onChange=${() => onChange(kind)} />
      <div><label for=${`field-kind-${kind}`}>${t(kind)}</label>
        <p class="hint" id=${`field-kind-${kind}-hint`}>${t(`${kind}Hint`)}</p></div>
    </div>`)}
  </fieldset>`;
}

/**
 * Name, redirect URIs and scopes; the type too when registering (it cannot change later). `onWithheld(name)`
 * when the application was registered but its reply was lost (its secret cannot be shown again).
 */
function AppForm({ app, onDone, onCancel, onWithheld }) {
  // The edit dialog's fields get their own ids: the registration form stays on the page beneath it.
  const editing = useId();
  const idPrefix = app ? editing : undefined;
  const form = useForm({ name: app?.name ?? "", redirectUris: (app?.redirectUris ?? []).join("\n"),
    scopes: app?.scopes ?? [], kind: "confidential" });
  const submit = (event) => {
    event.preventDefault();
    form.submit(async (values) => {
      const fields = { name: values.name.trim(), redirectUris: lines(values.redirectUris), scopes: values.scopes };
      const reply = app ? await api.oauthApps.update({ id: app.id, ...fields })
        : await withheld(() => api.oauthApps.create({ ...fields, public: values.kind === "public" }),
          () => onWithheld(fields.name));
      if (!app) form.reset();
      if (reply) onDone(reply);
    }, check);
  };
  return html`<${ErrorSummary} title=${t("errorTitle")} errors=${form.errors} idPrefix=${idPrefix} />
    <form onSubmit=${submit} novalidate>
      <${Field} name="name" label=${t("name")} hint=${t("nameHint")} value=${form.values.name} onInput=${form.set("name")}
        error=${form.errors.name} maxlength="100" autocomplete="off" idPrefix=${idPrefix} />
      <${Field} name="redirectUris" as="textarea" label=${t("redirectUris")} hint=${t("redirectUrisHint")} rows="3"
        value=${form.values.redirectUris} onInput=${form.set("redirectUris")} error=${form.errors.redirectUris}
        spellcheck="false" idPrefix=${idPrefix} />
      <${ScopeChoices} name="scopes" legend=${t("scopes")} hint=${t("scopesHint")} selected=${form.values.scopes}
        choices=${SCOPES.map((value) => ({ value, meaning: t(`scope.${value}`) }))} onChange=${form.set("scopes")}
        error=${form.errors.scopes} idPrefix=${idPrefix} />
      ${!app && html`<${KindChoice} value=${form.values.kind} onChange=${form.set("kind")} />`}
      <div class="button-row">
        <${Submit} busy=${form.busy} busyLabel=${t(app ? "saving" : "registering")}>${t(app ? "save" : "register")}<//>
        ${onCancel && html`<button type="button" class="button button--secondary" onClick=${onCancel}>${t("cancel")}</button>`}
      </div>
    </form>`;
}

function AppRow({ app, onAsk, mayRotate }) {
  return html`<tr>
    <th scope="row">${app.name}<br /><span class="hint">${t(app.public ? "typePublic" : "typeConfidential")}</span></th>
    <td><code class="client-id">${app.clientId}</code></td>
    <td><ul class="uri-list">${app.redirectUris.map((uri) => html`<li key=${uri}><code>${uri}</code></li>`)}</ul></td>
    <td><ul class="scope-chips">${app.scopes.map((scope) => html`<li key=${scope}><code>${scope}</code></li>`)}</ul></td>
    <td><div class="row-actions">
      <button type="button" class="button button--secondary button--small" aria-label=${t("editOf", { name: app.name })}
        onClick=${() => onAsk("edit", app)}>${t("edit")}</button>
      ${!app.public && mayRotate && html`<button type="button" class="button button--secondary button--small"
        aria-label=${t("rotateOf", { name: app.name })} onClick=${() => onAsk("rotate", app)}>${t("rotate")}</button>`}
      <button type="button" class="button button--quiet button--small" aria-label=${t("deleteOf", { name: app.name })}
        onClick=${() => onAsk("delete", app)}>${t("delete")}</button>
    </div></td>
  </tr>`;
}

/** `planNotice`: the plan has no API access; shown instead of registering (editing and deleting still work). */
export default function Section({ planNotice = null }) {
  const list = useList((signal) => api.oauthApps.list({}, { signal }));
  // {title, app, secret} after registering or a new secret; {title, message} when its reply was lost
  const [shown, setShown] = useState(null);
  const [asking, setAsking] = useState(null); // {action: "edit" | "rotate" | "delete", app}
  const [busy, setBusy] = useState(false);
  const listHeading = useRef(null); // where focus goes when the deleted application's row took its button away
  const registered = ({ clientSecret, ...app }) => {
    list.upsert(app);
    setShown({ title: t("createdTitle", { name: app.name }), app, secret: clientSecret ?? null });
    notify(t("registered", { name: app.name }));
  };
  const lost = (title, message) => {
    list.reload();
    setShown({ title, message });
  };
  const confirm = async () => {
    const { action, app } = asking;
    setBusy(true);
    try {
      if (action === "delete") {
        await api.oauthApps.delete({ id: app.id });
        list.drop(app.id);
        notify(t("deleted", { name: app.name }));
      } else {
        const reply = await withheld(() => api.oauthApps.rotateSecret({ id: app.id }),
          () => lost(t("rotateWithheldTitle", { name: app.name }), t("rotateWithheldMessage")));
        if (reply) {
          const { clientSecret, ...rotated } = reply;
          list.upsert(rotated);
          setShown({ title: t("rotatedTitle", { name: app.name }), app: rotated, secret: clientSecret });
        }
        notify(t("rotated", { name: app.name }));
      }
    } catch (error) {
      notify(error.message, "error");
    } finally {
      setBusy(false);
      setAsking(null);
    }
  };
  const confirming = asking && asking.action !== "edit" ? asking : null;
  return html`<h2>${t("title")}</h2>
    <p class="settings__intro">${t("intro", { url: organizationUrl("auth", "/oauth/authorize") })}</p>
    ${shown?.message && html`<${SecretWithheld} title=${shown.title} message=${shown.message}
      onDone=${() => setShown(null)} />`}
    ${shown?.app && html`<${NewSecret} title=${shown.title} label=${t("clientSecret")} value=${shown.secret}
        onDone=${() => setShown(null)}>
      <dl class="new-secret__fact"><dt>${t("clientId")}</dt><dd><code>${shown.app.clientId}</code></dd></dl>
    <//>`}
    ${planNotice ?? html`<section class="card settings__create" aria-labelledby="app-create">
      <h3 id="app-create">${t("createTitle")}</h3>
      <${AppForm} onDone=${registered}
        onWithheld=${(name) => lost(t("withheldTitle", { name }), t("withheldMessage"))} />
    </section>`}
    <h3 tabindex="-1" ref=${listHeading}>${t("listTitle")}</h3>
    <${Loaded} state=${list}>${(apps) => (apps.length === 0 ? html`<p class="empty">${t("empty")}</p>`
      : html`<div class="table-scroll"><table class="table">
        <caption class="visually-hidden">${t("listTitle")}</caption>
        <thead><tr><th scope="col">${t("name")}</th><th scope="col">${t("clientId")}</th>
          <th scope="col">${t("redirectUris")}</th><th scope="col">${t("scopesColumn")}</th><th scope="col">${t("actions")}</th></tr></thead>
        <tbody>${apps.map((app) => html`<${AppRow} key=${app.id} app=${app} mayRotate=${!planNotice}
          onAsk=${(action, item) => setAsking({ action, app: item })} />`)}</tbody>
      </table></div>`)}<//>
    <${Dialog} open=${asking?.action === "edit"} wide title=${asking ? t("editTitle", { name: asking.app.name }) : ""}
        onClose=${() => setAsking(null)}>
      ${asking?.action === "edit" && html`<${AppForm} key=${asking.app.id} app=${asking.app}
        onCancel=${() => setAsking(null)} onDone=${(app) => {
        list.upsert(app);
        notify(t("saved", { name: app.name }));
        setAsking(null);
      }} />`}
    <//>
    <${ConfirmDialog} open=${confirming !== null} title=${confirming ? t(`${confirming.action}Title`) : ""}
      message=${confirming ? t(`${confirming.action}Message`, { name: confirming.app.name }) : ""}
      confirmLabel=${confirming ? t(confirming.action) : ""} cancelLabel=${t("cancel")} busy=${busy}
      onConfirm=${confirm} onClose=${() => setAsking(null)} focusAfter=${listHeading} />`;
}
