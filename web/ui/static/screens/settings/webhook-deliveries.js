// One webhook's delivery log (webhooks.deliveries, newest first, "Show more" for older pages): when, which
// event, the outcome in words, the receiver's status code, the attempts so far and the next retry; and
// "Re-send failed deliveries" (webhooks.redeliver), whose outcome (how many were queued again, whether the
// webhook is active again) stays on screen. No live event tells of a delivery attempt, so the person checks
// the log again by a button.
import { html, useState } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { dateTime, number } from "../../format.js";
import { notify } from "../../components/notices.js";
import { useLoad, Loaded } from "./load.js";
import strings from "./webhooks.strings.js";

const t = catalogue(strings);
const PAGE = 25;

function DeliveryRows({ deliveries }) {
  return deliveries.map((delivery) => html`<tr key=${delivery.id}>
    <td>${dateTime(delivery.createdAt)}</td>
    <td><code>${delivery.event}</code></td>
    <td><span class=${`chip chip--delivery-${delivery.status}`}>${t(`delivery.${delivery.status}`)}</span></td>
    <td>${delivery.responseCode ?? t("noCode")}</td>
    <td>${number(delivery.attempts)}</td>
    <td>${delivery.nextAttemptAt ? dateTime(delivery.nextAttemptAt) : t("noRetry")}</td>
    <td class="webhook-log__error">${delivery.error ?? ""}</td>
  </tr>`);
}

export function DeliveryLog({ webhook, onChanged, onClose }) {
  const [older, setOlder] = useState({ rows: [], cursor: undefined, busy: false });
  const [outcome, setOutcome] = useState(null);
  const [busy, setBusy] = useState(false);
  const log = useLoad(async (signal) => {
    setOlder({ rows: [], cursor: undefined, busy: false });
    return api.webhooks.deliveries({ id: webhook.id, limit: PAGE }, { signal });
  }, [webhook.id]);
  const cursor = older.cursor === undefined ? log.data?.nextCursor : older.cursor;
  const more = async () => {
    setOlder((old) => ({ ...old, busy: true }));
    try {
      const page = await api.webhooks.deliveries({ id: webhook.id, limit: PAGE, cursor });
      setOlder((old) => ({ rows: [...old.rows, ...page.deliveries], cursor: page.nextCursor, busy: false }));
    } catch (error) {
      notify(error.message, "error");
      setOlder((old) => ({ ...old, busy: false }));
    }
  };
  const redeliver = async () => {
    setBusy(true);
    try {
      const reply = await api.webhooks.redeliver({ id: webhook.id });
      const text = [reply.requeued ? t("requeued", { count: reply.requeued }) : t("requeuedNone"),
        webhook.status === "failed" && reply.status === "active" ? t("reactivated") : ""].filter(Boolean).join(" ");
      setOutcome(text);
      notify(text);
      onChanged(reply);
      log.reload();
    } catch (error) {
      notify(error.message, "error");
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="card webhook-log" aria-labelledby="webhook-log-title">
    <h3 id="webhook-log-title">${t("logTitle", { url: webhook.url })}</h3>
    <p class="hint">${t("logIntro")}</p>
    <div class="button-row webhook-log__actions">
      <button type="button" class="button button--primary" disabled=${busy} onClick=${redeliver}>
        ${busy ? t("redelivering") : t("redeliver")}</button>
      <button type="button" class="button button--secondary" onClick=${log.reload}>${t("refreshLog")}</button>
      <button type="button" class="button button--quiet" onClick=${onClose}>${t("closeLog")}</button>
    </div>
    <p role="status" class=${outcome ? "notice notice--success" : ""}>${outcome ?? ""}</p>
    <${Loaded} state=${log}>${(page) => page.deliveries.length === 0 ? html`<p class="empty">${t("logEmpty")}</p>`
      : html`<div class="table-scroll"><table class="table">
        <caption class="visually-hidden">${t("logTitle", { url: webhook.url })}</caption>
        <thead><tr><th scope="col">${t("logTime")}</th><th scope="col">${t("logEvent")}</th>
          <th scope="col">${t("logStatus")}</th><th scope="col">${t("logCode")}</th>
          <th scope="col">${t("logAttempt")}</th><th scope="col">${t("logNextRetry")}</th>
          <th scope="col">${t("logError")}</th></tr></thead>
        <tbody><${DeliveryRows} deliveries=${[...page.deliveries, ...older.rows]} /></tbody>
      </table></div>
      ${cursor && html`<button type="button" class="button button--secondary" disabled=${older.busy}
        onClick=${more}>${t("showMore")}</button>`}`}<//>
  </section>`;
}
