// How a board room's events change what a screen keeps of the board, shared by the board's store and the item
// page's store: rows in position order, a row put in or replaced, a new order by ids, the columns after a column
// event, and an item after its `item.updated` (applied only when the event is newer than the item's updatedAt,
// since an item event carries no version: the server stamps updatedAt with the event's instant).

/** Position order, then id (rows without a position first). */
export const byPosition = (a, b) => (a.position ?? 0) - (b.position ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** `list` with `row` put in (or replacing the row of its id), in position order. */
export const upsertIn = (list, row) => [...list.filter((entry) => entry.id !== row.id), row].sort(byPosition);

/** `rows` in the order of `ids` (1, 2, 3 ...); rows not named keep their position. */
export function reordered(rows, ids) {
  const rank = new Map((ids ?? []).map((id, index) => [id, index + 1]));
  return rows.map((row) => (rank.has(row.id) ? { ...row, position: rank.get(row.id) } : row)).sort(byPosition);
}

/** The columns after a board configuration `change` (data.change), or null when it is not about columns. */
export function columnsAfter(columns, data) {
  switch (data.change) {
    case "column.created":
    case "column.updated":
      return upsertIn(columns, data.column);
    case "column.deleted":
      return columns.filter((column) => column.id !== data.column.id);
    case "column.reordered":
      return reordered(columns, data.columnIds);
    default:
      return null;
  }
}

/**
 * `row` with the `changes` ({field: {old, new}}) of an item.updated at `moment`, its version bumped by one as the
 * server did and its "last updated" columns set; null when there is no row or it already has the change.
 */
export function itemChanged(row, changes, moment, columns) {
  if (!row || (row.updatedAt && moment <= row.updatedAt)) return null;
  const values = { ...row.values };
  const next = { ...row, values, version: (row.version ?? 0) + 1, updatedAt: moment };
  for (const [field, change] of Object.entries(changes ?? {})) {
    if (["name", "description", "archivedAt", "deletedAt"].includes(field)) next[field] = change.new;
    else if (change.new === null || change.new === undefined) delete values[field];
    else values[field] = change.new;
  }
  for (const column of columns) if (column.type === "last_updated") values[column.id] = moment;
  return next;
}
