// The item page's writes. Item writes (rename, set a value, add a sub-item, delete) are the board's own
// (screens/board/writes.js: expectedVersion, and a 409 read again and turned into a `Conflict` when someone
// changed the very thing being edited), given this page's store; comment writes call the comments.*
// procedures and put each reply into the store at once, so the page never waits for its own live event.
import { mutate } from "../../api.js";
import { boardWrites } from "../board/writes.js";

export function itemWrites(store, itemId, boardId) {
  const adapter = {
    upsert(view) {
      if (view.id === itemId) store.putItem(view);
      else if (view.parentId === itemId) store.putSub(view);
    },
    remove() {},
  };
  const items = boardWrites(adapter, boardId);
  const put = (view) => { store.putComment(view); return view; };

  return {
    rename: items.rename,
    setValue: items.setValue,
    addSubItem: (groupId, name) => items.create(groupId, name, { parentId: itemId }),
    remove: items.remove,
    archive: (item) => mutate("items.archive", { id: item.id }),
    comment: async (body, attachmentIds, parentId) =>
      put(await mutate("comments.create", { itemId, body, parentId, attachmentIds })),
    editComment: async (id, body) => put(await mutate("comments.update", { id, body })),
    deleteComment: async (id) => {
      await mutate("comments.delete", { id });
      store.removeComments([id, ...(store.replies.value.get(id) ?? []).map((reply) => reply.id)]);
    },
    pin: async (id, pinned) => put(await mutate("comments.pin", { id, pinned })),
    react: async (commentId, emoji) => put(await mutate("comments.react", { commentId, emoji })),
  };
}
