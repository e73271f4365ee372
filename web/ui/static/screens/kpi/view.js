// How the KPI screen shows a KPI: its SQCDP letter, a traffic-light status (colour, a shape and words, never
// colour alone), its figures with their unit, its alerts and its recent values.
import { html } from "../../lib.js";
import { number, dateTime, day } from "../../format.js";

export function Letter({ t, category }) {
  return html`<span class=${`kpi-letter kpi-letter--${category}`} aria-hidden="true">${t(`letter_${category}`)}</span>`;
}

/** The status as a chip: its colour, a mark whose shape differs per status, and its words. */
export function Status({ t, status, long = false }) {
  const key = status ?? "none";
  return html`<span class=${`kpi-status kpi-status--${key}`}>
    <span class="kpi-status__mark" aria-hidden="true"></span>
    ${long || !status ? t(`status_${key}`) : t(`short_${key}`)}
  </span>`;
}

export const withUnit = (value, unit) => (unit ? `${number(value)} ${unit}` : number(value));

export function Figures({ t, kpi }) {
  const latest = kpi.latestValue;
  return html`<dl class="kpi-figures">
    <div class="kpi-figures__item kpi-figures__item--main">
      <dt>${t("current")}</dt>
      <dd>${latest ? html`<span class="kpi-figures__value">${withUnit(latest.value, kpi.unit)}</span>
        <span class="kpi-figures__note">${t("recordedAt", { when: dateTime(latest.recordedAt) })}</span>`
        : html`<span class="kpi-figures__value">${t("noValue")}</span>`}</dd>
    </div>
    <div class="kpi-figures__item">
      <dt>${t("status")}</dt>
      <dd><${Status} t=${t} status=${latest?.status} long /></dd>
    </div>
    <div class="kpi-figures__item">
      <dt>${t("target")}</dt>
      <dd>${kpi.target ? t("targetBy", { value: withUnit(kpi.target.value, kpi.unit), deadline: day(kpi.target.deadline) })
        : t("noTarget")}
        <span class="kpi-figures__note">${t(`direction_${kpi.direction}`)}</span></dd>
    </div>
    <div class="kpi-figures__item">
      <dt>${t("responsible")}</dt>
      <dd>${kpi.responsibleUser?.name ?? t("nobody")}
        <span class="kpi-figures__note">${t("frequency")}: ${t(`frequency_${kpi.frequency}`)}</span></dd>
    </div>
  </dl>`;
}

export function History({ t, kpi, history }) {
  if (history.length === 0) return html`<p class="empty">${t("noHistory")}</p>`;
  return html`<table class="table kpi-history">
    <caption class="visually-hidden">${t("history")}</caption>
    <thead><tr><th scope="col">${t("when")}</th><th scope="col">${t("value")}</th><th scope="col">${t("status")}</th>
      <th scope="col">${t("comment_column")}</th><th scope="col">${t("by")}</th></tr></thead>
    <tbody>${history.map((entry) => html`<tr key=${entry.id}>
      <td>${dateTime(entry.recordedAt)}</td>
      <td class="kpi-history__value">${withUnit(entry.value, kpi.unit)}</td>
      <td><${Status} t=${t} status=${entry.status} /></td>
      <td>${entry.comment ?? ""}</td>
      <td>${t(`source_${entry.source}`)}</td>
    </tr>`)}</tbody>
  </table>`;
}

export function Alerts({ t, kpi, alerts, busy, canEdit, onMove }) {
  if (alerts.length === 0) return html`<p>${t("noAlerts")}</p>`;
  return html`<ul class="kpi-alerts">${alerts.map((alert) => {
    const threshold = t(`short_${alert.threshold}`);
    const when = dateTime(alert.triggeredAt);
    const button = (action, label) => html`<button type="button" class="button button--secondary" disabled=${busy}
      aria-label=${t("alertOf", { action: label, threshold, when })} onClick=${() => onMove(alert, action)}>${label}</button>`;
    return html`<li key=${alert.id} class=${`kpi-alert kpi-alert--${alert.status}`}>
      <div>
        <p class="kpi-alert__state"><strong>${t(`alert_${alert.status}`)}</strong></p>
        <p class="kpi-alert__text"><${Status} t=${t} status=${alert.threshold} />
          ${" "}${t("alertLine", { value: withUnit(alert.value, kpi.unit), when })}</p>
      </div>
      ${canEdit && alert.status !== "resolved" && html`<div class="button-row kpi-alert__actions">
        ${alert.status === "active" && button("acknowledge", t("acknowledge"))}
        ${button("resolve", t("resolve"))}
      </div>`}
    </li>`;
  })}</ul>`;
}
