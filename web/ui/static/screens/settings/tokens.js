// Settings section "Personal access tokens" (every member, their own): the person's tokens with scopes, status
// and dates; creating one (name, scopes, lifetime) whose secret is shown once; revoking one after a
// confirmation.
import { html, useState } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { useForm, Field } from "../../components/forms.js";
import { ConfirmDialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import { useList, CreateCard, ScopeChoices, Status, Dates, NewSecret, SecretWithheld } from "./parts.js";
import { Loaded } from "./load.js";
import strings from "./tokens.strings.js";

const t = catalogue(strings);

const SCOPES = ["read", "write", "delete", "admin", "webhooks"];
// Lifetimes offered, in days; the server's default is 90 and its longest 365.
const LIFETIMES = [7, 30, 90, 180, 365];

function CreateForm({ onCreated, onWithheld }) {
  const form = useForm({ name: "", scopes: [], expiresIn: "90" });
  const check = (values) => ({ name: values.name.trim() ? null : t("nameMissing"),
    scopes: values.scopes.length ? null : t("scopesMissing") });
  return html`<${CreateCard} id="token-create" form=${form} t=${t} check=${check} onCreated=${onCreated}
      onWithheld=${onWithheld} create=${(name, values) => api.auth.tokens.create({ name, scopes: values.scopes,
        expiresIn: `${values.expiresIn}d` })}>
      <${ScopeChoices} name="scopes" legend=${t("scopes")} hint=${t("scopesHint")} selected=${form.values.scopes}
        choices=${SCOPES.map((value) => ({ value, meaning: t(`scope.${value}`) }))} onChange=${form.set("scopes")}
        error=${form.errors.scopes} />
      <${Field} name="expiresIn" as="select" label=${t("expiresIn")} hint=${t("expiresInHint")}
        value=${form.values.expiresIn} onInput=${form.set("expiresIn")} error=${form.errors.expiresIn}>
        ${LIFETIMES.map((days) => html`<option key=${days} value=${String(days)}>${t("days", { count: days })}</option>`)}
      <//>
    <//>`;
}

function TokenRow({ token, onRevoke }) {
  return html`<tr>
    <th scope="row" class="credential__name">${token.name}<br /><code class="hint">svc_pat_${token.prefix}…</code></th>
    <td><ul class="scope-chips">${token.scopes.map((scope) => html`<li key=${scope}><code>${scope}</code></li>`)}</ul></td>
    <td><${Status} status=${token.status} /></td>
    <td><${Dates} credential=${token} /></td>
    <td>${token.status === "active" && html`<button type="button" class="button button--secondary button--small"
      aria-label=${t("revokeOf", { name: token.name })} onClick=${onRevoke}>${t("revoke")}</button>`}</td>
  </tr>`;
}

/** `planNotice`: the plan has no API access; shown instead of the form (listing and revoking still work). */
export default function Section({ planNotice = null }) {
  const list = useList((signal) => api.auth.tokens.list({}, { signal }));
  const [secret, setSecret] = useState(null);
  const [revoking, setRevoking] = useState(null);
  const [busy, setBusy] = useState(false);
  const created = (reply) => {
    // The reply has the secret but not the listed shape (prefix, status): the list is read again.
    list.reload();
    setSecret({ title: t("newTokenTitle", { name: reply.name }), value: reply.token });
    notify(t("created", { name: reply.name }));
  };
  // The token was made but its secret is withheld: it is in the list, to be revoked.
  const lost = (name) => {
    list.reload();
    setSecret({ title: t("withheldTitle", { name }), message: t("withheldMessage") });
  };
  const revoke = async () => {
    setBusy(true);
    try {
      list.upsert(await api.auth.tokens.revoke({ tokenId: revoking.id }));
      notify(t("revoked", { name: revoking.name }));
    } catch (error) {
      notify(error.message, "error");
    } finally {
      setBusy(false);
      setRevoking(null);
    }
  };
  return html`<h2>${t("title")}</h2>
    <p class="settings__intro">${t("intro")}</p>
    ${secret?.message && html`<${SecretWithheld} title=${secret.title} message=${secret.message}
      onDone=${() => setSecret(null)} />`}
    ${secret?.value && html`<${NewSecret} title=${secret.title} label=${t("newTokenLabel")} value=${secret.value}
      onDone=${() => setSecret(null)} />`}
    ${planNotice ?? html`<${CreateForm} onCreated=${created} onWithheld=${lost} />`}
    <h3>${t("listTitle")}</h3>
    <${Loaded} state=${list}>${(tokens) => (tokens.length === 0 ? html`<p class="empty">${t("empty")}</p>`
      : html`<div class="table-scroll"><table class="table">
        <caption class="visually-hidden">${t("listTitle")}</caption>
        <thead><tr><th scope="col">${t("name")}</th><th scope="col">${t("access")}</th><th scope="col">${t("status")}</th>
          <th scope="col">${t("dates")}</th><th scope="col">${t("actions")}</th></tr></thead>
        <tbody>${tokens.map((token) => html`<${TokenRow} key=${token.id} token=${token}
          onRevoke=${() => setRevoking(token)} />`)}</tbody>
      </table></div>`)}<//>
    <${ConfirmDialog} open=${revoking !== null} title=${t("revokeTitle")}
      message=${revoking ? t("revokeMessage", { name: revoking.name }) : ""} confirmLabel=${t("revoke")}
      cancelLabel=${t("cancel")} busy=${busy} onConfirm=${revoke} onClose=${() => setRevoking(null)} />`;
}
