// The wall screen's panels, drawn from its store: the five SQCDP letters (each in its KPIs' worst status: colour,
// a shape and a word, never colour alone), the KPI cards with their trends, the active alerts, the actions due
// today or overdue with owner and escalation level, and the board's items by group as far as they fit.
import { html } from "../../lib.js";
import { number, localDay } from "../../format.js";
import { CellValue } from "../board/cell_values.js";
import { Trend } from "./trend.js";

export const CATEGORIES = ["safety", "quality", "cost", "delivery", "people"];
const SEVERITY = { red: 3, amber: 2, green: 1 };
// Items drawn per group: the box shows what fits and hides the rest; more would only cost the browser.
const ITEMS_PER_GROUP = 40;
// Columns shown beside an item's name: the first of these types the board has, in this order.
const SHOWN_TYPES = ["status", "number", "date"];

const withUnit = (value, unit) => (unit ? `${number(value)} ${unit}` : number(value));

/** The worst status among `kpis` (red, amber, green), or "none" when none has a status yet. */
export function worstStatus(kpis) {
  let worst = null;
  for (const kpi of kpis) {
    const status = kpi.latestValue?.status;
    if (status && (worst === null || SEVERITY[status] > SEVERITY[worst])) worst = status;
  }
  return worst ?? "none";
}

function Mark({ status }) {
  return html`<span class=${`wall-mark wall-mark--${status}`} aria-hidden="true"></span>`;
}

export function Letters({ t, kpis }) {
  return html`<ul class="wall-letters" aria-label=${t("sqcdp")}>${CATEGORIES.map((category) => {
    const own = kpis.filter((kpi) => kpi.category === category);
    const status = worstStatus(own);
    const label = t("letterLabel", { category: t(`category_${category}`), status: t(`status_${status}`) });
    return html`<li key=${category} class=${`wall-letter wall-letter--${status}`} aria-label=${label}
      data-category=${category} data-status=${status}>
      <span class="wall-letter__char" aria-hidden="true">${t(`letter_${category}`)}</span>
      <span class="wall-letter__name" aria-hidden="true">${t(`category_${category}`)}
        <span class="wall-letter__count">${t("kpiCount", { count: own.length })}</span></span>
      <span class="wall-letter__status" aria-hidden="true"><${Mark} status=${status} />${t(`status_${status}`)}</span>
    </li>`;
  })}</ul>`;
}

function KpiCard({ t, kpi, history }) {
  const status = kpi.latestValue?.status ?? "none";
  const target = kpi.target?.value ?? null;
  return html`<li class=${`wall-kpi wall-kpi--${status}`}>
    <p class="wall-kpi__name"><span class=${`wall-kpi__letter wall-kpi__letter--${kpi.category}`}>
      ${t(`letter_${kpi.category}`)}</span> ${kpi.name}</p>
    <p class="wall-kpi__figures">
      <span class=${`wall-kpi__value${kpi.latestValue ? "" : " wall-kpi__value--none"}`}>${kpi.latestValue
        ? withUnit(kpi.latestValue.value, kpi.unit) : t("noValue")}</span>
      <span class=${`wall-kpi__status wall-kpi__status--${status}`}><${Mark} status=${status} />${t(`status_${status}`)}</span>
    </p>
    <${Trend} history=${history} target=${target}
      label=${history.length ? t("chartLabel", { name: kpi.name, count: history.length })
        : t("chartEmpty", { name: kpi.name })} />
    <p class="wall-kpi__target">${target === null ? t("noTarget") : t("target", { value: withUnit(target, kpi.unit) })}</p>
  </li>`;
}

export function Kpis({ t, kpis, histories }) {
  if (kpis.length === 0) return html`<p class="wall-empty">${t("noKpis")}</p>`;
  const ordered = [...kpis].sort((a, b) => CATEGORIES.indexOf(a.category) - CATEGORIES.indexOf(b.category)
    || a.name.localeCompare(b.name));
  // Small multiples that fill the box: up to five side by side, more in rows of at most six.
  const across = kpis.length <= 5 ? kpis.length : Math.min(6, Math.ceil(kpis.length / Math.ceil(kpis.length / 6)));
  const grid = { gridTemplateColumns: `repeat(${across}, minmax(0, 1fr))` };
  return html`<ul class="wall-kpis" aria-label=${t("kpis")} style=${grid}>${ordered.map((kpi) => html`<${KpiCard} key=${kpi.id}
    t=${t} kpi=${kpi} history=${histories.get(kpi.id) ?? []} />`)}</ul>`;
}

/** The line under a list cut to what its panel holds: how many more there are (nothing when none). */
function More({ t, count }) {
  return count > 0 ? html`<p class="wall-more">${t("more", { count })}</p>` : null;
}

/** The newest `shown` active alerts; the line under them counts the rest. */
export function Alerts({ t, alerts, kpis, shown }) {
  const all = [...alerts].sort((a, b) => (a.triggeredAt < b.triggeredAt ? 1 : -1));
  const list = all.slice(0, shown);
  return html`<section class="wall-panel wall-alerts" aria-labelledby="wall-alerts-title">
    <h2 id="wall-alerts-title" class="wall-panel__title">${t("alerts")} <span class="wall-count">${all.length}</span></h2>
    ${list.length === 0 ? html`<p class="wall-empty">${t("noAlerts")}</p>` : html`<ul class="wall-list">
      ${list.map((alert) => {
        const kpi = kpis.get(alert.kpiId);
        return html`<li key=${alert.id} class=${`wall-alert wall-alert--${alert.threshold}`}>
          <${Mark} status=${alert.threshold} />
          <span class="wall-alert__name">${kpi?.name ?? alert.kpiName}</span>
          <span class="wall-alert__line">${t("alertLine", { value: withUnit(alert.value, kpi?.unit),
            status: t(`status_${alert.threshold}`), time: hourMinute(alert.triggeredAt) })}</span>
        </li>`;
      })}</ul>`}
    <${More} t=${t} count=${all.length - list.length} />
  </section>`;
}

/** Whole days from one calendar day ("2026-11-26") to a later one. */
const daysBetween = (from, to) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);

const hourMinuteFormat = new Intl.DateTimeFormat(navigator.language, { hour: "2-digit", minute: "2-digit" });
/** An instant's hour and minute where the wall is (read from across the room, seconds are noise). */
export const hourMinute = (instant) => hourMinuteFormat.format(new Date(instant));

/** The open actions due today or overdue (judged on the wall's own day), the most overdue first. */
export function dueActions(actions, now) {
  const today = localDay(now);
  return [...actions].filter((action) => action.dueDate <= today)
    .sort((a, b) => (a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : b.escalationLevel - a.escalationLevel));
}

/** `shown`: how many the panel holds (fewer while a meeting's agenda takes the room above it); `now`: the page's
 * clock (a signal), so the list moves on at midnight. */
export function Actions({ t, actions, now, shown }) {
  const today = localDay(now.value);
  const all = dueActions(actions, now.value);
  const due = all.slice(0, shown);
  return html`<section class="wall-panel wall-actions" aria-labelledby="wall-actions-title">
    <h2 id="wall-actions-title" class="wall-panel__title">${t("actions")} <span class="wall-count">${all.length}</span></h2>
    ${due.length === 0 ? html`<p class="wall-empty">${t("noActions")}</p>` : html`<ul class="wall-list">
      ${due.map((action) => {
        const overdue = action.dueDate < today;
        return html`<li key=${action.id} class=${`wall-action${overdue ? " wall-action--overdue" : ""}`}>
          <span class="wall-action__title">${action.title}</span>
          <span class="wall-action__line">
            <span class="wall-action__owner">${action.assignee?.name ?? t("unassigned")}</span>
            <span class="wall-action__due">${overdue ? t("overdue", { count: daysBetween(action.dueDate, today) })
              : t("dueToday")}</span>
            ${action.escalationLevel > 0 && html`<span class="wall-action__escalation">${action.escalatedTo?.name
              ? t("escalationTo", { level: action.escalationLevel, name: action.escalatedTo.name })
              : t("escalation", { level: action.escalationLevel })}</span>`}
          </span>
        </li>`;
      })}</ul>`}
    <${More} t=${t} count=${all.length - due.length} />
  </section>`;
}

/** The board's columns shown beside each item's name: at most two, by SHOWN_TYPES. */
function shownColumns(columns) {
  const shown = [];
  for (const type of SHOWN_TYPES) {
    const column = columns.find((entry) => entry.type === type);
    if (column) shown.push(column);
    if (shown.length === 2) break;
  }
  return shown;
}

export function Items({ t, store }) {
  const groups = store.groups.value;
  const byGroup = store.itemsByGroup.value;
  const columns = shownColumns(store.columns.value);
  return html`<section class="wall-panel wall-items" aria-labelledby="wall-items-title">
    <h2 id="wall-items-title" class="visually-hidden">${t("items")}</h2>
    <div class="wall-groups">${groups.map((group) => {
      const items = byGroup.get(group.id) ?? [];
      const drawn = items.slice(0, ITEMS_PER_GROUP);
      return html`<section key=${group.id} class="wall-group" aria-labelledby=${`wall-group-${group.id}`}>
        <h3 id=${`wall-group-${group.id}`} class="wall-group__title">${group.name}
          <span class="wall-count">${t("groupCount", { count: items.length })}</span></h3>
        ${items.length === 0 ? html`<p class="wall-empty">${t("emptyGroup")}</p>` : html`<ul class="wall-group__items">
          ${drawn.map((item) => html`<li key=${item.id} class="wall-item">
            <span class="wall-item__name">${item.name}</span>
            ${columns.map((column) => {
              const value = item.values?.[column.id];
              return value === undefined || value === null ? null : html`${" "}<span key=${column.id}
                class="wall-item__value"><${CellValue} column=${column} value=${value} /></span>`;
            })}
          </li>`)}
          ${items.length > drawn.length && html`<li class="wall-item wall-item--more">${t("more", {
            count: items.length - drawn.length })}</li>`}
        </ul>`}
      </section>`;
    })}</div>
  </section>`;
}
