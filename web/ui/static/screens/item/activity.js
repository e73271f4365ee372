// The item's activity trail (activity.listByEntity), newest first: who, what changed (each field old → new,
// values shown as the board shows them) and when, a page at a time ("Show more"). The first page is read
// again shortly after a live event about the item, and merged by entry id, so the trail follows the page.
import { html, useState, useEffect, useRef } from "../../lib.js";
import { query } from "../../api.js";
import { catalogue } from "../../i18n.js";
import { dateTime, ago } from "../../format.js";
import { CellValue } from "../board/cells.js";
import strings from "../item.strings.js";

const t = catalogue(strings);
const PAGE = 20;
// Several events close together (a comment and its reaction, a burst of edits) cost one read of the trail.
const SETTLE_MS = 400;

const newestFirst = (a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1);

function merge(entries, page) {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  for (const entry of page) byId.set(entry.id, entry);
  return [...byId.values()].sort(newestFirst);
}

function Change({ field, change, store }) {
  const column = store.columns.value.find((entry) => entry.id === field);
  const label = column?.name ?? (`field.${field}` in strings ? t(`field.${field}`) : field);
  const show = (value) => {
    if (value === null || value === undefined || value === "") return html`<em>${t("nothing")}</em>`;
    if (column) return html`<${CellValue} column=${column} value=${value} members=${store.members.value} />`;
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  };
  return html`<li><span class="change__field">${label}</span>: ${show(change?.old)}${" "}<span aria-hidden="true">→</span>${" "}<span
    class="visually-hidden">${t("changedTo")}${" "}</span>${show(change?.new)}</li>`;
}

function describe(entry) {
  const replied = entry.action === "comment.created" && entry.metadata?.parentId;
  const key = replied ? "action.comment.replied" : `action.${entry.action}`;
  return key in strings ? t(key) : entry.action;
}

function Entry({ entry, store }) {
  const changes = Object.entries(entry.metadata?.changes ?? {})
    .filter(([field]) => entry.action.startsWith("item."));
  return html`<li class="activity__entry">
    <div class="activity__line">
      <strong>${entry.actor?.name ?? t("system")}</strong> ${describe(entry)}${" "}<time datetime=${entry.createdAt} title=${dateTime(entry.createdAt)}>${ago(entry.createdAt)}</time>
    </div>
    ${changes.length > 0 && html`<ul class="activity__changes">
      ${changes.map(([field, change]) => html`<${Change} key=${field} field=${field} change=${change} store=${store} />`)}
    </ul>`}
  </li>`;
}

/** `first` is the trail's first page as the screen's loader read it ({entries, nextCursor}). */
export function Activity({ store, itemId, first }) {
  const [entries, setEntries] = useState(first.entries ?? []);
  const [cursor, setCursor] = useState(first.nextCursor ?? null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const timer = useRef(0);
  const changedAt = store.changedAt.value;

  useEffect(() => { setEntries((old) => merge(old, first.entries ?? [])); }, [first]);
  useEffect(() => () => clearTimeout(timer.current), []);
  useEffect(() => {
    // One read per burst, started after the first event of it: later events of the burst ride along (the read
    // starts after they were committed), and a burst that never pauses still gets its reads.
    if (!changedAt || timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = 0;
      query("activity.listByEntity", { entityType: "item", entityId: itemId, limit: PAGE })
        .then((page) => setEntries((old) => merge(old, page.entries)), () => {});
    }, SETTLE_MS);
  }, [changedAt]);

  const more = async () => {
    setBusy(true);
    setError(null);
    try {
      const page = await query("activity.listByEntity", { entityType: "item", entityId: itemId, limit: PAGE, cursor });
      setEntries((old) => merge(old, page.entries));
      setCursor(page.nextCursor ?? null);
    } catch (failure) {
      setError(failure.message);
    } finally {
      setBusy(false);
    }
  };

  return html`<section class="item-section" aria-labelledby="item-activity-title">
    <h2 id="item-activity-title">${t("activityTitle")}</h2>
    ${entries.length === 0 ? html`<p class="empty">${t("noActivity")}</p>`
      : html`<ol class="activity">${entries.map((entry) => html`<${Entry} key=${entry.id} entry=${entry} store=${store} />`)}</ol>`}
    ${error && html`<p class="field-error" role="alert">${t("activityFailed", { message: error })}</p>`}
    ${cursor && html`<button type="button" class="button button--secondary" disabled=${busy} onClick=${more}>${t("showMore")}</button>`}
  </section>`;
}
