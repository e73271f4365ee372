// A meeting's agenda as the meeting screen keeps it: the entries recorded at the start (KPIs with status,
// actions due or overdue, open escalations) kept current by the board room's KPI and action events, plus the
// actions created on the board since the meeting started. The same applier serves the meeting in progress (live
// events) and its replay (the recorded changes, one after another), so both read a change alike. Idempotent:
// an action keeps the newest version seen, a KPI the newest value.

/** The agenda entry name of a KPI, action or escalation ("kpis/<id>"), as meetings.focus takes it. */
export const entryName = (list, id) => `${list}/${id}`;

/** The lists of the agenda, in the order the meeting goes through them. */
export const LISTS = ["kpis", "actions", "escalations"];

/** The state drawn from a meeting's recorded agenda: its lists and no action created yet. */
export function agendaState(agenda) {
  return { kpis: agenda?.kpis ?? [], actions: agenda?.actions ?? [], escalations: agenda?.escalations ?? [],
    created: [] };
}

/** Every agenda entry name in the meeting's order (what "Next" walks through). */
export function entryNames(state) {
  return LISTS.flatMap((list) => state[list].map((entry) => entryName(list, entry.id)));
}

/** The entry an agenda entry name names, with its list, or null. */
export function findEntry(state, name) {
  const [list, id] = String(name ?? "").split("/");
  const entry = LISTS.includes(list) ? state[list].find((candidate) => candidate.id === id) : undefined;
  return entry ? { list, entry } : null;
}

/** An action entry with `view` (an action as events and replies show it) laid over it, when `view` is newer. */
function newerAction(entry, view) {
  if (entry.id !== view.id || (entry.version ?? 0) >= (view.version ?? 1)) return entry;
  return { ...entry, ...view };
}

function withAction(state, view, created, startedAt) {
  const lay = (list) => list.map((entry) => newerAction(entry, view));
  const known = [...state.actions, ...state.escalations].some((entry) => entry.id === view.id);
  const next = { ...state, actions: lay(state.actions), escalations: lay(state.escalations), created: lay(state.created) };
  const isNew = !known && (created || (view.createdAt && startedAt && view.createdAt >= startedAt));
  if (isNew && !next.created.some((entry) => entry.id === view.id)) next.created = [...next.created, view];
  return next;
}

function withoutAction(state, id) {
  const mark = (list) => list.map((entry) => (entry.id === id ? { ...entry, deleted: true } : entry));
  return { ...state, actions: mark(state.actions), escalations: mark(state.escalations),
    created: state.created.filter((entry) => entry.id !== id) };
}

function withValue(state, kpiId, value) {
  if (!value) return state;
  const kpis = state.kpis.map((entry) => {
    if (entry.id !== kpiId || (entry.latestValue && entry.latestValue.recordedAt > value.recordedAt)) return entry;
    return { ...entry, status: value.status, latestValue: { value: value.value, status: value.status,
      recordedAt: value.recordedAt } };
  });
  return { ...state, kpis };
}

/**
 * The agenda state after one board room event (`name`, its `data`). `startedAt` tells an action created since
 * the meeting started (one that reached the page through a reload) from an older one.
 */
export function agendaApplied(state, name, data, startedAt = null) {
  switch (name) {
    case "action.created":
      return data?.action ? withAction(state, data.action, true, startedAt) : state;
    case "action.updated":
    case "action.completed":
    case "action.escalated":
      return data?.action ? withAction(state, data.action, false, startedAt) : state;
    case "action.deleted":
      return data?.action ? withoutAction(state, data.action.id) : state;
    case "kpi.value_entered":
    case "kpi.target_breached":
      return data?.kpi ? withValue(state, data.kpi.id, data.value) : state;
    default:
      return state;
  }
}

/** The agenda state with the board's actions and KPIs as they are now (a page that joins mid-meeting). */
export function agendaRefreshed(state, actions, kpis, startedAt) {
  let next = state;
  for (const action of actions) next = withAction(next, action, false, startedAt);
  for (const kpi of kpis) if (kpi.latestValue) next = withValue(next, kpi.id, kpi.latestValue);
  return next;
}
