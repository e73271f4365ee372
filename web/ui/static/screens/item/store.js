// The one store of the item page: the item, its board's columns and groups, its sub-items, its comments and
// replies (one map by id), the members, filled by the loader and kept current by `apply(name, payload)`, the
// one dispatcher of the board room's live events, and by the replies of this page's own writes (`putItem`,
// `putComment`). Every change is idempotent: an event may also be in what the loader read, a reply may come
// before or after its own event. An item event carries no version, so, as on the board, a change counts when
// its moment is after the item's updatedAt (the server stamps the item's updatedAt with the event's instant),
// and it bumps the version by one, as the server did.
import { signal, computed, batch } from "../../lib.js";
import { byPosition, columnsAfter, itemChanged, upsertIn } from "../board/changes.js";

const byCreated = (a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1);

export function createItemStore(itemId) {
  const item = signal(null);
  const board = signal(null);
  const columns = signal([]);
  const groups = signal([]);
  const subItems = signal([]);
  const members = signal([]);
  /** id -> comment view (top-level and replies alike). */
  const comments = signal(new Map());
  const gone = signal(""); // "deleted" | "archived" | "moved" once the item left this board's page
  const changedAt = signal(0); // bumped by every event about this item (the activity trail re-reads then)

  /** Pinned comments first (newest pinned first), then the thread oldest first, as people read it. */
  const thread = computed(() => {
    const top = [...comments.value.values()].filter((comment) => !comment.parentId);
    const pinned = top.filter((comment) => comment.isPinned).sort(byCreated).reverse();
    const rest = top.filter((comment) => !comment.isPinned).sort(byCreated);
    return { pinned, rest };
  });

  /** Parent id -> its replies, oldest first. */
  const replies = computed(() => {
    const grouped = new Map();
    for (const comment of comments.value.values()) {
      if (!comment.parentId) continue;
      if (!grouped.has(comment.parentId)) grouped.set(comment.parentId, []);
      grouped.get(comment.parentId).push(comment);
    }
    for (const list of grouped.values()) list.sort(byCreated);
    return grouped;
  });

  function load({ view, boardView, people, commentPages }) {
    batch(() => {
      putItem(view, { replace: true });
      board.value = { id: boardView.id, name: boardView.name, projectId: boardView.projectId };
      columns.value = [...boardView.columns].sort(byPosition);
      groups.value = [...boardView.groups].sort(byPosition);
      members.value = people;
      comments.value = new Map(commentPages.map((comment) => [comment.id, comment]));
      gone.value = "";
    });
  }

  /** The item as the server answered it (items.get, items.update, items.setValue). */
  function putItem(view, { replace = false } = {}) {
    const known = item.value;
    if (!replace && known && view.version < known.version) return;
    const next = { ...known, ...view };
    if (view.subItems) {
      subItems.value = view.subItems.map((sub, index) => ({ ...sub, parentId: itemId, position: index + 1 }));
      delete next.subItems;
    }
    item.value = next;
    if (view.deletedAt) gone.value = "deleted";
    else if (view.archivedAt) gone.value = "archived";
  }

  function putSub(view) {
    const known = subItems.value.find((sub) => sub.id === view.id);
    if (known && (known.version ?? 0) > (view.version ?? 0)) return;
    const merged = { ...known, ...view };
    subItems.value = known ? subItems.value.map((sub) => (sub.id === view.id ? merged : sub))
      : [...subItems.value, { ...merged, position: view.position ?? subItems.value.length + 1 }];
  }

  function removeSub(id) {
    if (subItems.value.some((sub) => sub.id === id)) subItems.value = subItems.value.filter((sub) => sub.id !== id);
  }

  /** A comment view from a reply or an event: a newer view replaces an older one. */
  function putComment(view) {
    if (view.itemId !== itemId) return;
    const next = new Map(comments.value);
    const known = next.get(view.id);
    if (known && known.updatedAt > view.updatedAt) return;
    next.set(view.id, view);
    if (!known && view.parentId && next.has(view.parentId)) {
      const parent = next.get(view.parentId);
      next.set(parent.id, { ...parent, replyCount: (parent.replyCount ?? 0) + 1 });
    }
    comments.value = next;
  }

  function removeComments(ids) {
    const next = new Map(comments.value);
    for (const id of ids) {
      const known = next.get(id);
      next.delete(id);
      const parent = known?.parentId && next.get(known.parentId);
      if (parent) next.set(parent.id, { ...parent, replyCount: Math.max(0, (parent.replyCount ?? 1) - 1) });
    }
    comments.value = next;
  }

  const changed = (row, changes, moment) => itemChanged(row, changes, moment, columns.value);

  function itemUpdated(data, moment) {
    const ref = data.item;
    if (ref.id === itemId) {
      const next = changed(item.value, data.changes, moment);
      if (next) putItem({ ...next, version: next.version }, { replace: true });
      changedAt.value++;
    } else if (ref.parentId === itemId) {
      const sub = subItems.value.find((entry) => entry.id === ref.id);
      const next = changed(sub ?? { id: ref.id, name: ref.name, values: {} }, data.changes, moment);
      if (next) putSub(next);
    }
  }

  function configured(data) {
    if (data.board) board.value = { ...board.value, name: data.board.name ?? board.value?.name };
    const nextColumns = columnsAfter(columns.value, data);
    if (nextColumns) columns.value = nextColumns;
    switch (data.change) {
      case "group.created":
      case "group.updated":
        groups.value = upsertIn(groups.value, data.group);
        break;
      default:
    }
  }

  /** Apply one live event of the board room (events about other items are ignored). */
  function apply(name, payload) {
    const data = payload?.data ?? {};
    const moment = payload?.timestamp ?? "";
    batch(() => {
      switch (name) {
        case "item.created":
          if (data.item?.parentId === itemId) putSub(data.item);
          break;
        case "item.updated":
          itemUpdated(data, moment);
          break;
        case "item.moved":
          if (data.item?.id === itemId) {
            if (data.to?.boardId && data.to.boardId !== board.value?.id) gone.value = "moved";
            else if (data.to?.groupId) item.value = { ...item.value, groupId: data.to.groupId };
            changedAt.value++;
          }
          break;
        case "item.deleted":
          if (data.item?.id === itemId) gone.value = "deleted";
          else removeSub(data.item?.id);
          break;
        case "item.commented":
        case "comment.updated":
          putComment(data.comment);
          if (data.item?.id === itemId) changedAt.value++;
          break;
        case "comment.deleted":
          if (data.comment?.itemId === itemId) removeComments(data.deletedIds ?? [data.comment.id]);
          break;
        case "board.updated":
          configured(data);
          break;
        default:
      }
    });
  }

  return { item, board, columns, groups, subItems, members, comments, gone, changedAt, thread, replies,
    load, putItem, putSub, putComment, removeComments, apply };
}
