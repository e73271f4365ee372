// Settings section "Webhooks": the organization's webhooks (URL, events, status in words, last delivery),
// adding and editing one in a dialog, deleting one after a confirmation, and the delivery log of the one the
// person opens, with re-sending its failed deliveries. (The settings frame shows plans without webhooks the
// plan message instead.)
import { html, useState, useRef } from "../../lib.js";
import { api } from "../../api/client.js";
import { queryAll } from "../../api.js";
import { catalogue } from "../../i18n.js";
import { dateTime } from "../../format.js";
import { Dialog, ConfirmDialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import { useLoad, Loaded } from "./load.js";
import { WebhookForm } from "./webhook-form.js";
import { DeliveryLog } from "./webhook-deliveries.js";
import strings from "./webhooks.strings.js";

const t = catalogue(strings);

/** The webhooks, each with its newest delivery (one batched request for all of them). */
async function readWebhooks(signal) {
  const webhooks = await api.webhooks.list({}, { signal });
  const newest = await queryAll(webhooks.map((hook) => ["webhooks.deliveries", { id: hook.id, limit: 1 }]), { signal });
  return webhooks.map((hook, index) => ({ ...hook, lastDelivery: newest[index].deliveries[0] ?? null }));
}

function LastDelivery({ delivery }) {
  if (!delivery) return t("never");
  return html`${t(`delivery.${delivery.status}`)}<br /><span class="hint">${dateTime(delivery.createdAt)}</span>`;
}

function WebhookRow({ hook, onLog, onEdit, onDelete }) {
  return html`<tr>
    <td class="webhook-url"><code>${hook.url}</code>${hook.description && html`<br /><span class="hint">${hook.description}</span>`}</td>
    <td><details><summary>${t("eventCount", { count: hook.events.length })}</summary>
      <ul class="webhook-event-list">${hook.events.map((name) => html`<li key=${name}><code>${name}</code></li>`)}</ul>
    </details></td>
    <td><span class=${`chip chip--webhook-${hook.status}`}>${t(`status.${hook.status}`)}</span></td>
    <td><${LastDelivery} delivery=${hook.lastDelivery} /></td>
    <td><div class="row-actions">
      <button type="button" class="button button--secondary button--small" aria-label=${t("showDeliveriesOf", { url: hook.url })}
        onClick=${onLog}>${t("showDeliveries")}</button>
      <button type="button" class="button button--secondary button--small" aria-label=${t("editOf", { url: hook.url })}
        onClick=${onEdit}>${t("edit")}</button>
      <button type="button" class="button button--quiet button--small" aria-label=${t("deleteOf", { url: hook.url })}
        onClick=${onDelete}>${t("delete")}</button>
    </div></td>
  </tr>`;
}

export default function Section() {
  const state = useLoad(readWebhooks, []);
  const [editing, setEditing] = useState(null); // null: closed, {}: adding, a webhook: editing it
  const [deleting, setDeleting] = useState(null);
  const [busy, setBusy] = useState(false);
  const [logOf, setLogOf] = useState(null);
  const heading = useRef(null); // where focus goes when the deleted webhook's row took its button away
  const remove = async () => {
    setBusy(true);
    try {
      await api.webhooks.delete({ id: deleting.id });
      notify(t("deleted"));
      if (logOf === deleting.id) setLogOf(null);
      // Dropped at once (not read again), so the row is gone when the dialog closes and focus moves on.
      state.update((hooks) => hooks.filter((hook) => hook.id !== deleting.id));
      setDeleting(null);
    } catch (error) {
      notify(error.message, "error");
    } finally {
      setBusy(false);
    }
  };
  return html`<h2 tabindex="-1" ref=${heading}>${t("title")}</h2>
    <${Loaded} state=${state}>${(data) => {
      const opened = data.find((hook) => hook.id === logOf);
      return html`<p>${t("intro")}</p>
        <div class="button-row"><button type="button" class="button button--primary" onClick=${() => setEditing({})}>
          ${t("add")}</button></div>
        ${data.length === 0 ? html`<p class="empty">${t("empty")}</p>` : html`<div class="table-scroll"><table class="table">
          <caption class="visually-hidden">${t("title")}</caption>
          <thead><tr><th scope="col">${t("url")}</th><th scope="col">${t("events")}</th><th scope="col">${t("status")}</th>
            <th scope="col">${t("lastDelivery")}</th><th scope="col">${t("actions")}</th></tr></thead>
          <tbody>${data.map((hook) => html`<${WebhookRow} key=${hook.id} hook=${hook} onLog=${() => setLogOf(hook.id)}
            onEdit=${() => setEditing(hook)} onDelete=${() => setDeleting(hook)} />`)}</tbody>
        </table></div>`}
        ${opened && html`<${DeliveryLog} key=${opened.id} webhook=${opened} onChanged=${state.reload}
          onClose=${() => setLogOf(null)} />`}`;
    }}<//>
    <${Dialog} open=${editing !== null} wide title=${editing?.id ? t("editTitle") : t("createTitle")}
        onClose=${() => setEditing(null)}>
      ${editing !== null && html`<${WebhookForm} webhook=${editing.id ? editing : null} onCancel=${() => setEditing(null)}
        onDone=${() => { notify(editing.id ? t("saved") : t("created")); setEditing(null); state.reload(); }} />`}
    <//>
    <${ConfirmDialog} open=${deleting !== null} title=${t("deleteTitle")}
      message=${deleting ? t("deleteMessage", { url: deleting.url }) : ""} confirmLabel=${t("deleteConfirm")}
      cancelLabel=${t("cancel")} busy=${busy} onConfirm=${remove} onClose=${() => setDeleting(null)}
      focusAfter=${heading} />`;
}
