// Settings section "Assistant (MCP) keys" (every member, their own; docs/assistants.md): the person's keys with
// the tools and resources they allow, status and dates; creating one whose secret is shown once; revoking one
// after a confirmation.
import { html, useState } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { organizationUrl, organizationSlug } from "../../session.js";
import { useForm, Field } from "../../components/forms.js";
import { ConfirmDialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import { useList, CreateCard, Status, Dates, ExpiryDay, expiryInstant, expiryProblem, NewSecret, SecretWithheld }
  from "./parts.js";
import { Loaded } from "./load.js";
import strings from "./mcp-keys.strings.js";

const t = catalogue(strings);

const RESOURCE = /^obeya:\/\/(board|kpi)\/[A-Za-z0-9_-]{1,64}$/;
const lines = (text) => text.split("\n").map((line) => line.trim()).filter(Boolean);

function CreateForm({ onCreated, onWithheld }) {
  const form = useForm({ name: "", allowedTools: "", allowedResources: "", expiresAt: "" });
  const check = (values) => ({ name: values.name.trim() ? null : t("nameMissing"),
    allowedResources: lines(values.allowedResources).every((line) => RESOURCE.test(line)) ? null : t("resourceBad"),
    expiresAt: expiryProblem(values.expiresAt) });
  return html`<${CreateCard} id="mcp-key-create" form=${form} t=${t} check=${check} onCreated=${onCreated}
      onWithheld=${onWithheld} create=${(name, values) => api.mcpKeys.create({ name, allowedTools: lines(values.allowedTools),
        allowedResources: lines(values.allowedResources), expiresAt: expiryInstant(values.expiresAt) })}>
      <${Field} name="allowedTools" as="textarea" label=${t("tools")} hint=${t("toolsHint")} rows="3"
        value=${form.values.allowedTools} onInput=${form.set("allowedTools")} error=${form.errors.allowedTools}
        spellcheck="false" />
      <${Field} name="allowedResources" as="textarea" label=${t("resources")} hint=${t("resourcesHint")} rows="3"
        value=${form.values.allowedResources} onInput=${form.set("allowedResources")}
        error=${form.errors.allowedResources} spellcheck="false" />
      <${ExpiryDay} value=${form.values.expiresAt} onInput=${form.set("expiresAt")} error=${form.errors.expiresAt} />
    <//>`;
}

const codes = (values) => html`<ul class="scope-chips">${values.map((value) => html`<li key=${value}><code>${value}</code></li>`)}</ul>`;

function KeyRow({ mcpKey, onRevoke }) {
  const tools = mcpKey.allowedTools.length ? codes(mcpKey.allowedTools)
    : t(mcpKey.allowedResources.length ? "noTools" : "everyRead");
  return html`<tr>
    <th scope="row" class="credential__name">${mcpKey.name}<br /><code class="hint">svc_mcp_live_${mcpKey.prefix}…</code></th>
    <td>${tools}</td>
    <td>${mcpKey.allowedResources.length ? codes(mcpKey.allowedResources) : t("everyResource")}</td>
    <td><${Status} status=${mcpKey.status} /></td>
    <td><${Dates} credential=${mcpKey} /></td>
    <td>${mcpKey.status === "active" && html`<button type="button" class="button button--secondary button--small"
      aria-label=${t("revokeOf", { name: mcpKey.name })} onClick=${onRevoke}>${t("revoke")}</button>`}</td>
  </tr>`;
}

/** `planNotice`: the plan has no API access; shown instead of the form (listing and revoking still work). */
export default function Section({ planNotice = null }) {
  const list = useList((signal) => api.mcpKeys.list({}, { signal }));
  const [secret, setSecret] = useState(null);
  const [revoking, setRevoking] = useState(null);
  const [busy, setBusy] = useState(false);
  const created = ({ key, mcpKey }) => {
    list.upsert(mcpKey);
    setSecret({ title: t("newKeyTitle", { name: mcpKey.name }), value: key });
    notify(t("created", { name: mcpKey.name }));
  };
  // The key was made but its secret is withheld: it is in the list, to be revoked.
  const lost = (name) => {
    list.reload();
    setSecret({ title: t("withheldTitle", { name }), message: t("withheldMessage") });
  };
  const revoke = async () => {
    setBusy(true);
    try {
      list.upsert(await api.mcpKeys.revoke({ id: revoking.id }));
      notify(t("revoked", { name: revoking.name }));
    } catch (error) {
      notify(error.message, "error");
    } finally {
      setBusy(false);
      setRevoking(null);
    }
  };
  return html`<h2>${t("title")}</h2>
    <p class="settings__intro">${t("intro", { url: organizationUrl(organizationSlug, "/mcp") })}</p>
    ${secret?.message && html`<${SecretWithheld} title=${secret.title} message=${secret.message}
      onDone=${() => setSecret(null)} />`}
    ${secret?.value && html`<${NewSecret} title=${secret.title} label=${t("newKeyLabel")} value=${secret.value}
      onDone=${() => setSecret(null)} />`}
    ${planNotice ?? html`<${CreateForm} onCreated=${created} onWithheld=${lost} />`}
    <h3>${t("listTitle")}</h3>
    <${Loaded} state=${list}>${(keys) => (keys.length === 0 ? html`<p class="empty">${t("empty")}</p>`
      : html`<div class="table-scroll"><table class="table">
        <caption class="visually-hidden">${t("listTitle")}</caption>
        <thead><tr><th scope="col">${t("name")}</th><th scope="col">${t("allowedTools")}</th>
          <th scope="col">${t("allowedResources")}</th><th scope="col">${t("status")}</th><th scope="col">${t("dates")}</th>
          <th scope="col">${t("actions")}</th></tr></thead>
        <tbody>${keys.map((mcpKey) => html`<${KeyRow} key=${mcpKey.id} mcpKey=${mcpKey}
          onRevoke=${() => setRevoking(mcpKey)} />`)}</tbody>
      </table></div>`)}<//>
    <${ConfirmDialog} open=${revoking !== null} title=${t("revokeTitle")}
      message=${revoking ? t("revokeMessage", { name: revoking.name }) : ""} confirmLabel=${t("revoke")}
      cancelLabel=${t("cancel")} busy=${busy} onConfirm=${revoke} onClose=${() => setRevoking(null)} />`;
}
