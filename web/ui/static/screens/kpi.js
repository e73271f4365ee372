// One KPI ("/kpis/<id>", where notifications and e-mails about it lead): its letter, latest value and
// traffic-light status, target, alerts (acknowledge, resolve) and recent values, and a form to record a value.
// Follows the KPI's room, so a value entered elsewhere (a tablet, the API, a wall screen) shows at once.
import { html, useState, useEffect, useRef } from "../lib.js";
import { queryAll, mutate } from "../api.js";
import { follow } from "../live.js";
import { role } from "../session.js";
import { boardPath } from "../links.js";
import { parseNumber } from "../format.js";
import { catalogue } from "../i18n.js";
import { Page, Loading, LoadError } from "../components/page.js";
import { Field, ErrorSummary, Submit, useForm } from "../components/forms.js";
import { notify } from "../components/notices.js";
import { Letter, Figures, History, Alerts, withUnit } from "./kpi/view.js";
import strings from "./kpi.strings.js";

const t = catalogue(strings);
const HISTORY = 20;
const ALERTS = 10;
const EDITORS = new Set(["owner", "admin", "member"]);
const COMMENT_LIMIT = 2000;

async function read(id) {
  const [kpi, { history }] = await queryAll([["kpis.get", { id }], ["kpis.getHistory", { kpiId: id, limit: HISTORY }]]);
  const [{ alerts }, board] = await queryAll([["kpis.getAlerts", { boardId: kpi.boardId, kpiId: id, limit: ALERTS }],
    ["boards.get", { id: kpi.boardId }]]);
  return { kpi, history, alerts, board: { id: board.id, name: board.name }, deleted: false };
}

const newestFirst = (a, b) => (a.recordedAt < b.recordedAt ? 1 : a.recordedAt > b.recordedAt ? -1 : 0);

/** A value (from an event or the form's reply) in the history and, when newest, as the latest. */
function withValue(data, value) {
  const history = [value, ...data.history.filter((entry) => entry.id !== value.id)].sort(newestFirst).slice(0, HISTORY);
  const latest = data.kpi.latestValue;
  const newer = !latest || latest.recordedAt <= value.recordedAt;
  const kpi = newer ? { ...data.kpi, latestValue: { value: value.value, status: value.status, recordedAt: value.recordedAt } }
    : data.kpi;
  return { ...data, history, kpi };
}

function withAlert(data, alert) {
  if (!alert) return data;
  const alerts = [alert, ...data.alerts.filter((other) => other.id !== alert.id)]
    .sort((a, b) => (a.triggeredAt < b.triggeredAt ? 1 : -1)).slice(0, ALERTS);
  return { ...data, alerts };
}

/** A live event of the KPI's room applied (idempotent: by id). */
function applied(data, name, event) {
  switch (name) {
    case "kpi.value_entered": return withValue(data, event.value);
    case "kpi.target_breached": return withAlert(withValue(data, event.value), event.alert);
    case "kpi.alert_updated": return withAlert(data, event.alert);
    case "kpi.updated": {
      const kpi = { ...data.kpi, ...event.kpi };
      if (kpi.responsibleUserId !== data.kpi.responsibleUserId) kpi.responsibleUser = null;
      return { ...data, kpi };
    }
    case "kpi.deleted": return { ...data, deleted: true };
    default: return data;
  }
}

function ValueForm({ kpi, onRecorded }) {
  const form = useForm({ value: "", comment: "" });
  const check = (values) => {
    if (!values.value.trim()) return { value: t("valueMissing") };
    if (parseNumber(values.value) === null) return { value: t("valueNotNumber") };
    if (values.comment.length > COMMENT_LIMIT) return { comment: t("commentTooLong") };
    return {};
  };
  const submit = async (event) => {
    event.preventDefault();
    let reply = null;
    const done = await form.submit(async (values) => {
      reply = await mutate("kpis.setValue", { kpiId: kpi.id, value: parseNumber(values.value),
        comment: values.comment.trim() || null });
    }, check);
    if (done) {
      form.reset();
      onRecorded(reply);
    }
  };
  return html`<form class="card kpi-entry" onSubmit=${submit} novalidate aria-labelledby="kpi-entry-title">
    <h2 id="kpi-entry-title">${t("enterTitle")}</h2>
    <${ErrorSummary} title=${t("errorTitle")} errors=${form.errors} />
    <${Field} name="value" label=${t("value")} inputmode="decimal" autocomplete="off" required
      hint=${kpi.unit ? t("valueHint", { unit: kpi.unit }) : t("valueHintNoUnit")}
      value=${form.values.value} onInput=${form.set("value")} error=${form.errors.value} class="kpi-entry__value" />
    <${Field} name="comment" as="textarea" label=${t("comment")} hint=${t("commentHint")}
      value=${form.values.comment} onInput=${form.set("comment")} error=${form.errors.comment} />
    <${Submit} busy=${form.busy} busyLabel=${t("saving")}>${t("save")}<//>
  </form>`;
}

export default function Kpi({ params }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [attempt, setAttempt] = useState(0);
  const [busy, setBusy] = useState(false);
  const id = params.id;

  useEffect(() => {
    setError(null);
    const following = follow(`kpi:${id}`, (name, payload) => setData((old) => old && applied(old, name, payload.data)),
      async () => setData(await read(id)));
    following.ready.catch(setError);
    return following.stop;
  }, [id, attempt]);

  if (error) return html`<${Page} title=${t("title")}><${LoadError} title=${t("loadFailed")} error=${error}
    retryLabel=${t("retry")} onRetry=${() => setAttempt(attempt + 1)} /><//>`;
  if (!data) return html`<${Page} title=${t("title")}><${Loading} label=${t("loading")} /><//>`;

  const { kpi, history, alerts, board } = data;
  const canEdit = EDITORS.has(role.value) && !data.deleted;
  const recorded = (reply) => {
    setData((old) => withAlert(withValue(old, reply), reply.alert));
    notify(t("recorded", { value: withUnit(reply.value, kpi.unit), status: t(`short_${reply.status}`) }));
  };
  const move = async (alert, action) => {
    setBusy(true);
    try {
      const moved = await mutate(action === "acknowledge" ? "kpis.acknowledgeAlert" : "kpis.resolveAlert",
        { alertId: alert.id });
      setData((old) => withAlert(old, moved));
    } catch (failure) {
      notify(t("alertFailed", { message: failure.message }), "error");
    } finally {
      setBusy(false);
    }
  };

  return html`<${Page} title=${kpi.name} breadcrumbs=${[[t("home"), "/"], [board.name, boardPath(board.id)], [kpi.name]]}>
    <p class="kpi-category"><${Letter} t=${t} category=${kpi.category} /> ${t(`category_${kpi.category}`)}</p>
    ${data.deleted && html`<p class="notice notice--warning" role="alert">${t("deleted")}</p>`}
    <${Figures} t=${t} kpi=${kpi} />
    <div class="kpi-columns">
      ${canEdit && html`<${ValueForm} kpi=${kpi} onRecorded=${recorded} />`}
      <section class="card kpi-alerts-section" aria-labelledby="kpi-alerts-title">
        <h2 id="kpi-alerts-title">${t("alerts")}</h2>
        <${Alerts} t=${t} kpi=${kpi} alerts=${alerts} busy=${busy} canEdit=${canEdit} onMove=${move} />
      </section>
    </div>
    <section aria-labelledby="kpi-history-title">
      <h2 id="kpi-history-title">${t("history")}</h2>
      <${History} t=${t} kpi=${kpi} history=${history} />
    </section>
  <//>`;
}
