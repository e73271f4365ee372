// A board's automation run history (automations.getExecutionHistory, newest first, "Show more" for older
// runs): when, which rule, the result in words and what triggered it; "Details" opens one run
// (automations.getExecutionById) with its conditions' and actions' results and its error.
import { html, useState } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { dateTime, number } from "../../format.js";
import { itemPath } from "../../links.js";
import { Dialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import { useLoad, Loaded } from "./load.js";
import strings from "./automations.strings.js";

const t = catalogue(strings);
const PAGE = 20;

function RunDetail({ id, columns }) {
  const run = useLoad((signal) => api.automations.getExecutionById({ id }, { signal }), [id]);
  return html`<${Loaded} state=${run}>${(detail) => html`<dl class="run-detail">
    <dt>${t("historyStatus")}</dt><dd>${t(`status.${detail.status}`)}</dd>
    <dt>${t("historyTrigger")}</dt><dd>${t(`trigger.${detail.triggerType}`)}</dd>
    ${detail.itemId && html`<dt>${t("runItem")}</dt><dd><a href=${itemPath(detail.itemId)}>${detail.itemId}</a></dd>`}
    <dt>${t("runDuration")}</dt><dd>${t("runDurationMs", { ms: number(detail.duration) })}</dd>
    ${detail.error && html`<dt>${t("runError")}</dt><dd>${detail.error}</dd>`}
    ${detail.conditionResults?.length > 0 && html`<dt>${t("runConditions")}</dt><dd><ul>
      ${detail.conditionResults.map((result, index) => html`<li key=${index}>
        ${columns[result.field] ?? result.field} ${t(`operator.${result.operator}`)}${result.value === null || result.value === undefined ? "" : ` ${result.value}`}: ${result.passed ? t("runHolds") : t("runFails")}</li>`)}
    </ul></dd>`}
    ${detail.actionResults?.length > 0 && html`<dt>${t("runActions")}</dt><dd><ul>
      ${detail.actionResults.map((result, index) => html`<li key=${index}>
        ${t(`action.${result.type}`)}: ${result.success ? t("runActionOk") : t("runActionFailed")}${result.error ? ` (${result.error})` : ""}</li>`)}
    </ul></dd>`}
  </dl>`}<//>`;
}

/** `onRefresh` also reads the rules again (their last run changes with each run). */
export function RunHistory({ boardId, rules, board, history, onRefresh }) {
  const [older, setOlder] = useState({ rows: [], cursor: undefined });
  const [open, setOpen] = useState(null);
  const names = Object.fromEntries(rules.map((rule) => [rule.id, rule.name]));
  const columns = Object.fromEntries(board.columns.map((column) => [column.id, column.name]));
  const cursor = older.cursor === undefined ? history.data?.nextCursor : older.cursor;
  const more = async () => {
    try {
      const page = await api.automations.getExecutionHistory({ boardId, limit: PAGE, cursor });
      setOlder((old) => ({ rows: [...old.rows, ...page.items], cursor: page.nextCursor }));
    } catch (error) {
      notify(error.message, "error");
    }
  };
  const reload = () => { setOlder({ rows: [], cursor: undefined }); history.reload(); onRefresh(); };
  return html`<section aria-labelledby="automation-history-title" class="automation-history">
    <h3 id="automation-history-title">${t("historyTitle")}</h3>
    <p class="hint">${t("historyIntro")}</p>
    <div class="button-row"><button type="button" class="button button--secondary" onClick=${reload}>
      ${t("refreshHistory")}</button></div>
    <${Loaded} state=${history}>${(page) => {
      const runs = [...page.items, ...older.rows];
      if (!runs.length) return html`<p class="empty">${t("historyEmpty")}</p>`;
      return html`<div class="table-scroll"><table class="table">
        <caption class="visually-hidden">${t("historyTitle")}</caption>
        <thead><tr><th scope="col">${t("historyWhen")}</th><th scope="col">${t("historyRule")}</th>
          <th scope="col">${t("historyStatus")}</th><th scope="col">${t("historyTrigger")}</th>
          <th scope="col">${t("historyDetail")}</th></tr></thead>
        <tbody>${runs.map((run) => html`<tr key=${run.id}>
          <td>${dateTime(run.executedAt)}</td>
          <td>${names[run.automationRuleId] ?? t("deletedRule")}</td>
          <td><span class=${`chip chip--run-${run.status}`}>${t(`status.${run.status}`)}</span></td>
          <td>${t(`trigger.${run.triggerType}`)}</td>
          <td><button type="button" class="button button--secondary button--small"
            aria-label=${t("showRunOf", { time: dateTime(run.executedAt) })} onClick=${() => setOpen(run)}>${t("showRun")}</button></td>
        </tr>`)}</tbody>
      </table></div>
      ${cursor && html`<button type="button" class="button button--secondary" onClick=${more}>${t("showMore")}</button>`}`;
    }}<//>
    <${Dialog} open=${open !== null} title=${open ? t("runTitle", { time: dateTime(open.executedAt) }) : ""}
        onClose=${() => setOpen(null)}>
      ${open && html`<${RunDetail} id=${open.id} columns=${columns} />`}
      <div class="button-row"><button type="button" class="button button--secondary" onClick=${() => setOpen(null)}>
        ${t("close")}</button></div>
    <//>
  </section>`;
}
