// The board screen's writes: each calls one procedure (mutate adds the Idempotency-Key), names
// `expectedVersion` where the procedure takes one, and puts the server's reply into the store at once, so this
// page never waits for its own live event. A value write that meets a 409 reads the item again: when someone
// else changed this very value, the caller gets a `Conflict` to show (their value against ours); when they
// changed something else of the item, nothing of theirs is at stake and the write is sent again on the
// version just read.
import { mutate, query, ApiError } from "../../api.js";
import { catalogue } from "../../i18n.js";
import strings from "../board.strings.js";

const t = catalogue(strings);

const BULK_LIMIT = 100; // items.bulkUpdate / bulkDelete take at most 100 ids

/** Someone moved the item to another group first: `item` is the item as just read. */
export class MovedMeanwhile extends Error {
  constructor(item) {
    super(t("movedMeanwhile", { item: item.name }));
    this.item = item;
  }
}

/** Someone changed the value first: `theirs` is what is saved now, `item` the item as just read. */
export class Conflict extends Error {
  constructor(item, theirs, yours) {
    super("conflict");
    this.item = item;
    this.theirs = theirs;
    this.yours = yours;
  }
}

const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function boardWrites(store, boardId) {
  const put = (view) => { store.upsert(view); return view; };

  /** Write `value` to `column` of `item`, from an edit that began when the value was `base`. */
  async function setValue(item, columnId, value, base, { force = false, version = item.version } = {}) {
    try {
      return put(await mutate("items.setValue", { itemId: item.id, columnId, value, expectedVersion: version }));
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 409 || error.code !== "CONFLICT") throw error;
      const now = await query("items.get", { id: item.id });
      const theirs = now.values?.[columnId] ?? null;
      if (!force && !same(theirs, base)) throw new Conflict(now, theirs, value);
      if (now.version === version) throw error; // not a version conflict (an Idempotency-Key in use)
      return setValue(now, columnId, value, theirs, { force: false, version: now.version });
    }
  }

  async function rename(item, name) {
    try {
      return put(await mutate("items.update", { id: item.id, name, expectedVersion: item.version }));
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 409 || error.code !== "CONFLICT") throw error;
      const now = await query("items.get", { id: item.id });
      if (now.name !== item.name) throw new Conflict(now, now.name, name);
      if (now.version === item.version) throw error;
      return rename(now, name);
    }
  }

  const create = async (groupId, name, extra = {}) =>
    put(await mutate("items.create", { boardId, groupId, name, ...extra }));

  async function remove(item) {
    await mutate("items.delete", { id: item.id });
    store.remove(item.id);
  }

  /** Move `item` to `groupId` from the group the person saw it in. If someone moved it meanwhile, it stays
   * where they put it (the store shows that) and the caller gets a MovedMeanwhile to say so; another change to
   * the item is not at stake, and the move is sent again on the version just read. */
  async function move(item, groupId) {
    try {
      return put(await mutate("items.move", { id: item.id, groupId, expectedVersion: item.version }));
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 409 || error.code !== "CONFLICT") throw error;
      const now = put(await query("items.get", { id: item.id }));
      if (now.groupId !== item.groupId) throw new MovedMeanwhile(now);
      if (now.version === item.version) throw error;
      return move(now, groupId);
    }
  }

  /** Put a group's items in this order (the store shows it at once). */
  async function reorder(groupId, ids) {
    store.reorder(groupId, ids);
    await mutate("items.reorder", { groupId, itemIds: ids });
  }

  async function bulkSet(ids, changes) {
    for (let start = 0; start < ids.length; start += BULK_LIMIT) {
      const reply = await mutate("items.bulkUpdate", { itemIds: ids.slice(start, start + BULK_LIMIT), changes });
      for (const view of reply.items ?? []) put(view);
    }
  }

  async function bulkDelete(ids) {
    for (let start = 0; start < ids.length; start += BULK_LIMIT) {
      const chunk = ids.slice(start, start + BULK_LIMIT);
      await mutate("items.bulkDelete", { itemIds: chunk });
      for (const id of chunk) store.remove(id);
    }
  }

  async function loadSubItems(parentId) {
    const parent = await query("items.get", { id: parentId });
    store.setSubItems(parentId, (parent.subItems ?? []).map((sub, index) => ({ ...sub, parentId, position: index + 1 })));
  }

  const group = {
    create: async (name) => store.putGroup(await mutate("boards.groups.create", { boardId, name })),
    rename: async (id, name) => store.putGroup(await mutate("boards.groups.update", { id, name })),
    async collapse(current, collapsed) {
      store.putGroup({ ...current, collapsed });
      store.putGroup(await mutate("boards.groups.update", { id: current.id, collapsed }));
    },
    async remove(id) {
      await mutate("boards.groups.delete", { id });
      store.apply("board.updated", { data: { change: "group.deleted", group: { id } } });
    },
  };

  return { setValue, rename, create, remove, move, reorder, bulkSet, bulkDelete, loadSubItems, group };
}
