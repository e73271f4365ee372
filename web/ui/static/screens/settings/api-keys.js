// Settings section "API keys" (owners and admins): the organization's keys with their access, status and dates;
// creating one (name, scopes, optional expiry) whose secret is shown once; revoking, rotating (the new secret
// shown once) and deleting, each after a confirmation.
import { html, useState, useRef } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { useForm } from "../../components/forms.js";
import { ConfirmDialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import { useList, CreateCard, ScopeChoices, Status, Dates, ExpiryDay, expiryInstant, expiryProblem, NewSecret, SecretWithheld,
  withheld } from "./parts.js";
import { Loaded } from "./load.js";
import strings from "./api-keys.strings.js";

const t = catalogue(strings);

const SCOPES = ["read:items", "write:items", "read:actions", "write:actions", "read:kpis", "write:kpis",
  "read:members", "manage_settings", "manage_billing"];
const DONE = { revoke: "revoked", rotate: "rotated", delete: "deleted" };

function CreateForm({ onCreated, onWithheld }) {
  const form = useForm({ name: "", scopes: [], expiresAt: "" });
  const check = (values) => ({ name: values.name.trim() ? null : t("nameMissing"), expiresAt: expiryProblem(values.expiresAt) });
  return html`<${CreateCard} id="api-key-create" form=${form} t=${t} check=${check} onCreated=${onCreated}
      onWithheld=${onWithheld} create=${(name, values) => api.apiKeys.create({ name, scopes: values.scopes,
        expiresAt: expiryInstant(values.expiresAt) })}>
      <${ScopeChoices} name="scopes" legend=${t("scopes")} hint=${t("scopesHint")} selected=${form.values.scopes}
        choices=${SCOPES.map((value) => ({ value, meaning: t(`scope.${value}`) }))} onChange=${form.set("scopes")}
        error=${form.errors.scopes} />
      <${ExpiryDay} value=${form.values.expiresAt} onInput=${form.set("expiresAt")} error=${form.errors.expiresAt} />
    <//>`;
}

function KeyRow({ apiKey, onAsk, mayRotate }) {
  const active = apiKey.status === "active";
  return html`<tr>
    <th scope="row" class="credential__name">${apiKey.name}<br /><code class="hint">svc_sk_live_${apiKey.prefix}…</code></th>
    <td>${apiKey.scopes.length ? html`<ul class="scope-chips">${apiKey.scopes.map((scope) => html`<li key=${scope}><code>${scope}</code></li>`)}</ul>`
      : t("fullAccess")}</td>
    <td><${Status} status=${apiKey.status} /></td>
    <td><${Dates} credential=${apiKey} /></td>
    <td><div class="row-actions">
      ${active && mayRotate && html`<button type="button" class="button button--secondary button--small"
        aria-label=${t("rotateOf", { name: apiKey.name })} onClick=${() => onAsk("rotate", apiKey)}>${t("rotate")}</button>`}
      ${active && html`<button type="button" class="button button--secondary button--small" aria-label=${t("revokeOf", { name: apiKey.name })}
        onClick=${() => onAsk("revoke", apiKey)}>${t("revoke")}</button>`}
      <button type="button" class="button button--quiet button--small" aria-label=${t("deleteOf", { name: apiKey.name })}
        onClick=${() => onAsk("delete", apiKey)}>${t("delete")}</button>
    </div></td>
  </tr>`;
}

/** `planNotice`: the plan has no API access; shown instead of the form (listing and revoking still work). */
export default function Section({ planNotice = null }) {
  const list = useList((signal) => api.apiKeys.list({}, { signal }));
  const [secret, setSecret] = useState(null); // {title, value} of a key just made, or {title, message} if withheld
  const [asking, setAsking] = useState(null); // {action, apiKey} awaiting confirmation
  const [busy, setBusy] = useState(false);
  const listHeading = useRef(null); // where focus goes when the deleted key's row took its button away
  const created = ({ key, apiKey }) => {
    list.upsert(apiKey);
    setSecret({ title: t("newKeyTitle", { name: apiKey.name }), value: key });
    notify(t("created", { name: apiKey.name }));
  };
  // The key was made (or rotated) but its secret is withheld: it is in the list, to be revoked.
  const lost = (title) => () => {
    list.reload();
    setSecret({ title, message: t("withheldMessage") });
  };
  const confirm = async () => {
    const { action, apiKey } = asking;
    setBusy(true);
    try {
      if (action === "revoke") list.upsert(await api.apiKeys.revoke({ id: apiKey.id }));
      else if (action === "delete") {
        await api.apiKeys.delete({ id: apiKey.id });
        list.drop(apiKey.id);
      } else {
        const reply = await withheld(() => api.apiKeys.rotate({ id: apiKey.id }),
          lost(t("rotateWithheldTitle", { name: apiKey.name })));
        if (reply) {
          list.upsert({ id: reply.revokedKeyId, status: "revoked" });
          list.upsert(reply.apiKey);
          setSecret({ title: t("rotatedKeyTitle", { name: apiKey.name }), value: reply.key });
        }
      }
      notify(t(DONE[action], { name: apiKey.name }));
      setAsking(null);
    } catch (error) {
      notify(error.message, "error");
      setAsking(null);
    } finally {
      setBusy(false);
    }
  };
  return html`<h2>${t("title")}</h2>
    <p class="settings__intro">${t("intro")}</p>
    ${secret?.message && html`<${SecretWithheld} title=${secret.title} message=${secret.message}
      onDone=${() => setSecret(null)} />`}
    ${secret?.value && html`<${NewSecret} title=${secret.title} label=${t("newKeyLabel")} value=${secret.value}
      onDone=${() => setSecret(null)} />`}
    ${planNotice ?? html`<${CreateForm} onCreated=${created} onWithheld=${(name) => lost(t("withheldTitle", { name }))()} />`}
    <h3 tabindex="-1" ref=${listHeading}>${t("listTitle")}</h3>
    <${Loaded} state=${list}>${(keys) => (keys.length === 0 ? html`<p class="empty">${t("empty")}</p>`
      : html`<div class="table-scroll"><table class="table">
        <caption class="visually-hidden">${t("listTitle")}</caption>
        <thead><tr><th scope="col">${t("name")}</th><th scope="col">${t("access")}</th><th scope="col">${t("status")}</th>
          <th scope="col">${t("dates")}</th><th scope="col">${t("actions")}</th></tr></thead>
        <tbody>${keys.map((apiKey) => html`<${KeyRow} key=${apiKey.id} apiKey=${apiKey} mayRotate=${!planNotice}
          onAsk=${(action, item) => setAsking({ action, apiKey: item })} />`)}</tbody>
      </table></div>`)}<//>
    <${ConfirmDialog} open=${asking !== null} title=${asking ? t(`${asking.action}Title`) : ""}
      message=${asking ? t(`${asking.action}Message`, { name: asking.apiKey.name }) : ""}
      confirmLabel=${asking ? t(asking.action) : ""} cancelLabel=${t("cancel")} busy=${busy} onConfirm=${confirm}
      onClose=${() => setAsking(null)} focusAfter=${listHeading} />`;
}
