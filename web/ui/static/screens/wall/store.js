// What the wall screen keeps of its board, as signals the panels read: the board's groups and items (the board
// screen's own store), its KPIs with a short history each, the active alerts, the open actions, and the meetings in
// progress. `load()` reads it all (once subscribed to the board room, or again when too far behind) and `apply()`
// applies one event of the board room. Every change is idempotent (an event may also be in what the loader read)
// and everything is bounded, so a screen that runs for months holds no more after a million events than after ten:
// each KPI keeps its last HISTORY values, the alerts and actions are the open ones only.
import { signal, batch } from "../../lib.js";
import { queryAll, queryPages } from "../../api.js";
import { createStore } from "../board/store.js";

/** Values kept per KPI for its trend chart. */
export const HISTORY = 30;
// At most this many active alerts are read and kept (the newest): a wall shows a handful and counts the rest.
const ALERTS = 50;
// The most calls one batched request may hold (the server refuses a larger batch whole: web/rpc.py MAX_BATCH).
const BATCH = 50;
const OPEN = new Set(["open", "in_progress"]);

const byTime = (a, b) => (a.recordedAt < b.recordedAt ? -1 : a.recordedAt > b.recordedAt ? 1 : 0);

/** `map` with `key` set to `value` (or deleted for undefined), as a new Map so the signal notices. */
function withEntry(map, key, value) {
  const next = new Map(map);
  if (value === undefined) next.delete(key);
  else next.set(key, value);
  return next;
}

/** Each KPI's last HISTORY values, in as many batched requests as the KPIs need. */
async function readHistories(kpis) {
  const calls = kpis.map((kpi) => ["kpis.getHistory", { kpiId: kpi.id, limit: HISTORY }]);
  const batches = [];
  for (let start = 0; start < calls.length; start += BATCH) batches.push(queryAll(calls.slice(start, start + BATCH)));
  return (await Promise.all(batches)).flat();
}

export function createWallStore(boardId) {
  const board = createStore(boardId);
  /** id -> KPI (kpis.list's shape: latestValue, target ...) */
  const kpis = signal(new Map());
  /** KPI id -> its last HISTORY values, oldest first ({id, value, status, recordedAt}) */
  const histories = signal(new Map());
  /** id -> active alert */
  const alerts = signal(new Map());
  /** id -> open action */
  const actions = signal(new Map());
  /** id -> meeting in progress */
  const meetings = signal(new Map());
  /** The tier of the board's latest meeting (the one a new meeting most likely has), or 1. */
  const lastTier = signal(1);
  // reloadItems: the read of the items on its way (a promise) or null, whether it was asked for again meanwhile,
  // and the board's events applied since it began (null while none is on its way).
  let reading = null;
  let readAgain = false;
  let missed = null;

  async function load() {
    const [view, kpiList, { alerts: active }, { meetings: recent }] = await queryAll([
      ["boards.get", { id: boardId }], ["kpis.list", { boardId, limit: 100 }],
      ["kpis.getAlerts", { boardId, status: "active", limit: ALERTS }], ["meetings.list", { boardId, limit: 20 }]]);
    const [items, open, started, moreKpis] = await Promise.all([
      queryPages("items.list", { boardId }, "items"),
      queryPages("actions.list", { boardId, status: "open" }, "actions"),
      queryPages("actions.list", { boardId, status: "in_progress" }, "actions"),
      kpiList.nextCursor ? queryPages("kpis.list", { boardId }, "kpis") : Promise.resolve(null)]);
    const allKpis = moreKpis ?? kpiList.kpis;
    const read = await readHistories(allKpis);
    batch(() => {
      board.load(view, items);
      kpis.value = new Map(allKpis.map((kpi) => [kpi.id, kpi]));
      histories.value = new Map(allKpis.map((kpi, index) => [kpi.id,
        [...read[index].history].sort(byTime).slice(-HISTORY)]));
      alerts.value = new Map(active.map((alert) => [alert.id, alert]));
      actions.value = new Map([...open, ...started].map((action) => [action.id, action]));
      meetings.value = new Map(recent.filter((meeting) => meeting.status === "in_progress")
        .map((meeting) => [meeting.id, meeting]));
      if (recent.length) lastTier.value = recent[0].tier;
    });
  }

  function valueEntered(kpi, value) {
    const known = kpis.value.get(kpi.id);
    if (!known) return;
    const list = histories.value.get(kpi.id) ?? [];
    if (!list.some((entry) => entry.id === value.id)) {
      histories.value = withEntry(histories.value, kpi.id, [...list, value].sort(byTime).slice(-HISTORY));
    }
    const latest = known.latestValue;
    if (!latest || latest.recordedAt <= value.recordedAt) {
      kpis.value = withEntry(kpis.value, kpi.id, { ...known,
        latestValue: { value: value.value, status: value.status, recordedAt: value.recordedAt } });
    }
  }

  function alertChanged(alert) {
    let next = withEntry(alerts.value, alert.id, alert.status === "active" ? alert : undefined);
    if (next.size > ALERTS) {
      next = new Map([...next].sort(([, a], [, b]) => (a.triggeredAt < b.triggeredAt ? 1 : -1)).slice(0, ALERTS));
    }
    alerts.value = next;
  }

  function kpiChanged(name, data) {
    switch (name) {
      case "kpi.created":
      case "kpi.updated": {
        const known = kpis.value.get(data.kpi.id);
        if (known && (known.version ?? 0) > (data.kpi.version ?? 0)) return;
        kpis.value = withEntry(kpis.value, data.kpi.id, { ...known, ...data.kpi });
        if (!histories.value.has(data.kpi.id)) histories.value = withEntry(histories.value, data.kpi.id, []);
        return;
      }
      case "kpi.deleted":
        kpis.value = withEntry(kpis.value, data.kpi.id, undefined);
        histories.value = withEntry(histories.value, data.kpi.id, undefined);
        alerts.value = new Map([...alerts.value].filter(([, alert]) => alert.kpiId !== data.kpi.id));
        return;
      case "kpi.value_entered":
        valueEntered(data.kpi, data.value);
        return;
      case "kpi.target_breached":
        valueEntered(data.kpi, data.value);
        alertChanged(data.alert);
        return;
      case "kpi.alert_updated":
        alertChanged(data.alert);
        return;
      default:
    }
  }

  function actionChanged(name, data) {
    const action = data.action;
    const known = actions.value.get(action.id);
    if (name === "action.deleted") {
      if (known) actions.value = withEntry(actions.value, action.id, undefined);
      return;
    }
    if (known && known.version > action.version) return;
    actions.value = withEntry(actions.value, action.id, OPEN.has(action.status) ? action : undefined);
  }

  function meetingChanged(meeting) {
    const open = meeting.status === "in_progress";
    meetings.value = withEntry(meetings.value, meeting.id, open ? meeting : undefined);
    lastTier.value = meeting.tier;
  }

  /**
   * Apply one event of the board room. Answers true when the screen cannot complete it from the event alone (an
   * item restored from the trash or moved in from another board) and should read the board's items again.
   */
  function apply(name, payload) {
    const data = payload?.data ?? {};
    let incomplete = false;
    batch(() => {
      if (name.startsWith("item.") || name.startsWith("board.")) {
        missed?.push([name, payload]);
        incomplete = board.apply(name, payload) !== "";
      }
      else if (name.startsWith("kpi.")) kpiChanged(name, data);
      else if (name.startsWith("action.")) actionChanged(name, data);
      else if (name.startsWith("meeting.")) meetingChanged(data.meeting);
    });
    return incomplete;
  }

  /**
   * Read the board's items again (after an event that named an item the screen does not have). The board's
   * events applied while the read is on its way are applied again over it (the appliers are idempotent), or an
   * item deleted or changed meanwhile would come back as the read found it; and asked again meanwhile, it reads
   * once more when done instead of once per event (a burst of restores is one or two reads, not hundreds).
   */
  function reloadItems() {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      try {
        do {
          readAgain = false;
          missed = [];
          const list = await queryPages("items.list", { boardId }, "items");
          const during = missed;
          missed = null;
          batch(() => {
            board.replaceItems(list);
            for (const [name, payload] of during) board.apply(name, payload);
          });
        } while (readAgain);
      } finally {
        reading = null;
        missed = null;
      }
    })();
    return reading;
  }

  return { board, kpis, histories, alerts, actions, meetings, lastTier, load, apply, reloadItems, meetingChanged };
}
