// The one store of a board on screen: its summary, groups, columns and items (signals the views read), filled
// by the loader and kept current by `apply(event)`, the one dispatcher of the board room's live events, and by
// the replies of this page's own writes (`upsert`). Every change is idempotent: an event may also be in what the
// loader read, and a reply may arrive before or after its own event. An item event carries no version, so
// the rule is "newer than the item's updatedAt": the event's timestamp is the change's moment, the same
// instant the server stamps as the item's updatedAt (so a change already read is recognised and skipped).
//
// Top-level items only: items.list lists no sub-items; a parent's sub-items are read on demand (items.get) and
// kept in `subItems` by parent.
import { signal, computed, batch } from "../../lib.js";
import { byPosition, columnsAfter, itemChanged, reordered, upsertIn } from "./changes.js";

export function createStore(boardId) {
  const board = signal(null);
  const groups = signal([]);
  const columns = signal([]);
  const deleted = signal(false);
  /** id -> item (top-level items); mutated in place, `revision` says when. */
  const items = new Map();
  const revision = signal(0);
  /** parent id -> its sub-items, for the parents whose sub-items were read. */
  const subItems = signal(new Map());

  const touch = () => { revision.value++; };

  /** Group id -> its items in order. Recomputed once per change, never per row drawn. */
  const itemsByGroup = computed(() => {
    revision.value; // eslint-disable-line no-unused-expressions -- the dependency
    const grouped = new Map(groups.value.map((group) => [group.id, []]));
    for (const item of items.values()) grouped.get(item.groupId)?.push(item);
    for (const list of grouped.values()) list.sort(byPosition);
    return grouped;
  });

  function load(view, firstItems) {
    batch(() => {
      board.value = { id: view.id, name: view.name, projectId: view.projectId, defaultView: view.defaultView,
        updatedAt: view.updatedAt };
      groups.value = [...view.groups].sort(byPosition);
      columns.value = [...view.columns].sort(byPosition);
      if (firstItems) replaceItems(firstItems);
    });
  }

  function replaceItems(list) {
    items.clear();
    for (const item of list) items.set(item.id, item);
    touch();
  }

  /** Add the items of a further page (already known ones keep whichever is newer). */
  function addItems(list) {
    for (const item of list) keepNewer(item);
    touch();
  }

  function keepNewer(view) {
    const known = items.get(view.id);
    if (!known || view.version >= known.version) items.set(view.id, view);
  }

  function setSubItems(parentId, list) {
    const next = new Map(subItems.value);
    next.set(parentId, [...list].sort(byPosition));
    subItems.value = next;
  }

  function upsertSub(view) {
    const siblings = subItems.value.get(view.parentId);
    if (!siblings) return;
    const known = siblings.find((sub) => sub.id === view.id);
    if (known && (known.version ?? 0) > (view.version ?? 0)) return;
    setSubItems(view.parentId, [...siblings.filter((sub) => sub.id !== view.id), { ...known, ...view }]);
  }

  /** An item as a reply or event shows it in full (items.create, setValue, update, move...). */
  function upsert(view) {
    if (view.boardId && view.boardId !== boardId) return remove(view.id);
    if (view.deletedAt || view.archivedAt) return remove(view.id);
    if (view.parentId) return upsertSub(view);
    keepNewer(view);
    touch();
  }

  function remove(id) {
    if (items.delete(id)) touch();
    if (subItems.value.has(id)) {
      const next = new Map(subItems.value);
      next.delete(id);
      subItems.value = next;
    }
    for (const [parent, list] of subItems.value) {
      if (list.some((sub) => sub.id === id)) setSubItems(parent, list.filter((sub) => sub.id !== id));
    }
  }

  const changed = (item, changes, moment) => itemChanged(item, changes, moment, columns.value);

  function endOf(groupId) {
    const list = itemsByGroup.value.get(groupId) ?? [];
    return list.length ? list[list.length - 1].position + 1 : 1;
  }

  function itemUpdated(data, moment) {
    const ref = data.item;
    if (ref.parentId) {
      const sub = subItems.value.get(ref.parentId)?.find((entry) => entry.id === ref.id);
      const next = changed(sub, data.changes, moment);
      if (next) upsertSub(next);
      return "";
    }
    const next = changed(items.get(ref.id), data.changes, moment);
    if (!next) return items.has(ref.id) ? "" : (data.restored ? ref.id : "");
    if (next.archivedAt || next.deletedAt) return remove(ref.id);
    items.set(ref.id, next);
    touch();
    return "";
  }

  function itemMoved(data, moment) {
    if (data.reordered) {
      data.itemIds.forEach((id, index) => {
        const item = items.get(id);
        if (item && item.position !== index + 1 && !(item.updatedAt && moment <= item.updatedAt)) {
          items.set(id, { ...item, position: index + 1, version: item.version + 1, updatedAt: moment });
        }
      });
      touch();
      return "";
    }
    const ref = data.item;
    if (data.to?.boardId && data.to.boardId !== boardId) return remove(ref.id);
    const item = items.get(ref.id);
    if (!item) return ref.id; // arrived from another board: read it
    if (item.updatedAt && moment <= item.updatedAt) return "";
    items.set(ref.id, { ...item, groupId: data.to.groupId, position: endOf(data.to.groupId),
      version: item.version + 1, updatedAt: moment });
    touch();
    return "";
  }

  function configured(data, moment) {
    if (data.board) board.value = { ...board.value, ...data.board };
    const nextColumns = columnsAfter(columns.value, data);
    if (nextColumns) columns.value = nextColumns;
    switch (data.change) {
      case "group.created":
      case "group.updated":
        groups.value = upsertIn(groups.value, data.group);
        break;
      case "group.deleted":
        groups.value = groups.value.filter((group) => group.id !== data.group.id);
        for (const item of [...items.values()]) {
          if (item.groupId !== data.group.id) continue;
          if (data.moveItemsTo) {
            items.set(item.id, { ...item, groupId: data.moveItemsTo, position: endOf(data.moveItemsTo) + item.position,
              version: item.version + 1, updatedAt: moment });
          } else items.delete(item.id);
        }
        touch();
        break;
      case "group.reordered":
        groups.value = reordered(groups.value, data.groupIds);
        touch();
        break;
      default:
    }
  }

  /**
   * Apply one live event of the board room. Answers the id of an item the store cannot complete from the
   * event alone (one restored from the trash, one moved in from another board), for the screen to read.
   */
  function apply(name, payload) {
    const data = payload?.data ?? {};
    const moment = payload?.timestamp ?? "";
    let missing = "";
    batch(() => {
      switch (name) {
        case "item.created":
          upsert(data.item);
          break;
        case "item.updated":
          missing = itemUpdated(data, moment) || "";
          break;
        case "item.moved":
          missing = itemMoved(data, moment) || "";
          break;
        case "item.deleted":
          remove(data.item.id);
          break;
        case "board.updated":
          configured(data, moment);
          break;
        case "board.deleted":
          deleted.value = true;
          break;
        default:
      }
    });
    return missing;
  }

  /** Put `ids` of a group in this order at once (this page's own reorder, before the server answers). */
  function reorder(groupId, ids) {
    ids.forEach((id, index) => {
      const item = items.get(id);
      if (item && item.groupId === groupId) items.set(id, { ...item, position: index + 1 });
    });
    touch();
  }

  /** This page's own group write, from its reply (the live event then changes nothing). */
  function putGroup(group) {
    groups.value = upsertIn(groups.value, group);
  }

  return { board, groups, columns, deleted, items, revision, subItems, itemsByGroup,
    load, replaceItems, addItems, upsert, remove, apply, reorder, setSubItems, endOf, putGroup };
}
