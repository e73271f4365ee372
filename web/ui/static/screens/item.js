// The item page, /items/<id>: the item's header (breadcrumbs workspace › project › board, its name edited in
// place, group, dates, archive and delete), its fields, sub-items, comments and activity. It reads the item
// first (to know its board), then follows the board's room: the loader reads the item, the board, the members
// (every page of them) and the comments (with their replies) in batches, and every change anyone makes to this item's name, values,
// sub-items or comments arrives through the store's one dispatcher without a reload.
import { html, useState, useEffect, useMemo } from "../lib.js";
import { query, queryAll, queryPages } from "../api.js";
import { follow } from "../live.js";
import { catalogue } from "../i18n.js";
import { entityPath, boardPath } from "../links.js";
import { Page, Loading, LoadError } from "../components/page.js";
import { notify } from "../components/notices.js";
import { createItemStore } from "./item/store.js";
import { itemWrites } from "./item/writes.js";
import { RenameForm, ItemMeta, ItemActions } from "./item/header.js";
import { Fields } from "./item/fields.js";
import { SubItems } from "./item/subitems.js";
import { Comments } from "./item/comments.js";
import { Activity } from "./item/activity.js";
import strings from "./item.strings.js";

const t = catalogue(strings);
const COMMENT_PAGE = 50;
const ACTIVITY_PAGE = 20;

/** Every reply of the comments that have some, in one batched request. */
async function repliesOf(comments) {
  const threads = comments.filter((comment) => comment.replyCount > 0);
  const pages = await queryAll(threads.map((comment) => ["comments.replies", { commentId: comment.id, limit: 200 }]));
  return pages.flatMap((page) => page.replies);
}

async function breadcrumbs(board) {
  try {
    const project = await query("projects.get", { id: board.projectId });
    const [workspace] = await queryAll([["workspaces.get", { id: project.workspaceId }]]);
    return [[workspace.name, entityPath("workspace", workspace.id)], [project.name, entityPath("project", project.id)]];
  } catch {
    return []; // the trail is a convenience: the item is shown without it
  }
}

function useItem(itemId) {
  const store = useMemo(() => createItemStore(itemId), [itemId]);
  const [state, setState] = useState({ status: "loading", error: null, boardId: null });
  const [crumbs, setCrumbs] = useState([]);
  const [activity, setActivity] = useState(null);
  const [commentCursor, setCommentCursor] = useState(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let gone = false;
    let room = null;
    const load = async (boardId) => {
      // Every member, page by page (mentions and people cells name anyone in the organization).
      const [[view, boardView, page], people] = await Promise.all([queryAll([["items.get", { id: itemId }],
        ["boards.get", { id: boardId }], ["comments.list", { itemId, limit: COMMENT_PAGE }]]),
      queryPages("organizations.members.list", {}, "members")]);
      const replies = await repliesOf(page.comments);
      const trail = await query("activity.listByEntity", { entityType: "item", entityId: itemId, limit: ACTIVITY_PAGE })
        .catch(() => null); // guests may not read the trail: the page shows the rest
      if (gone) return;
      store.load({ view, boardView, people, commentPages: [...page.comments, ...replies] });
      setCommentCursor(page.nextCursor ?? null);
      setActivity(trail);
      breadcrumbs(boardView).then((trailCrumbs) => !gone && setCrumbs(trailCrumbs));
    };
    query("items.get", { id: itemId }).then((first) => {
      if (gone) return;
      room = follow(`board:${first.boardId}`, store.apply, () => load(first.boardId));
      room.ready.then(() => !gone && setState({ status: "ready", error: null, boardId: first.boardId }),
        (error) => !gone && setState({ status: "error", error, boardId: null }));
    }, (error) => !gone && setState({ status: "error", error, boardId: null }));
    return () => { gone = true; room?.stop(); };
  }, [store, attempt]);

  const earlierComments = async () => {
    try {
      const page = await query("comments.list", { itemId, limit: COMMENT_PAGE, cursor: commentCursor });
      const replies = await repliesOf(page.comments);
      for (const comment of [...page.comments, ...replies]) store.putComment(comment);
      setCommentCursor(page.nextCursor ?? null);
    } catch (error) {
      notify(t("actionFailed", { message: error.message }), "error");
    }
  };

  return { store, state, crumbs, activity, commentCursor, earlierComments, retry: () => setAttempt(attempt + 1) };
}

export default function ItemScreen({ params }) {
  const { store, state, crumbs, activity, commentCursor, earlierComments, retry } = useItem(params.id);
  const [renaming, setRenaming] = useState(null); // the item as it was when renaming began
  const writes = useMemo(() => state.boardId && itemWrites(store, params.id, state.boardId), [store, state.boardId]);

  if (state.status === "error") {
    return html`<${LoadError} title=${t("loadFailed")} error=${state.error} retryLabel=${t("retry")} onRetry=${retry} />`;
  }
  const item = store.item.value;
  if (state.status === "loading" || !item) return html`<${Loading} label=${t("loading")} />`;
  const board = store.board.value;
  const gone = store.gone.value;

  return html`<${Page} title=${item.name} breadcrumbs=${[...crumbs, [board.name, boardPath(board.id)]]}
      actions=${!gone && html`<${ItemActions} store=${store} writes=${writes} renaming=${!!renaming}
        onRename=${() => setRenaming(renaming ? null : item)} />`}>
    ${gone && html`<div class="notice notice--warning" role="alert">
      <p>${t(`gone.${gone}`)}</p><a href=${boardPath(board.id)}>${t("backToBoard", { board: board.name })}</a></div>`}
    ${renaming && html`<${RenameForm} base=${renaming} writes=${writes} store=${store} onDone=${() => setRenaming(null)} />`}
    <${ItemMeta} store=${store} />
    <div class="item-layout">
      <div class="item-layout__main">
        <${Fields} store=${store} writes=${writes} />
        <${SubItems} store=${store} writes=${writes} />
        <${Comments} store=${store} writes=${writes} more=${!!commentCursor} onMore=${earlierComments} />
      </div>
      <div class="item-layout__side">
        ${activity ? html`<${Activity} store=${store} itemId=${params.id} first=${activity} />`
          : html`<section class="item-section"><h2>${t("activityTitle")}</h2><p class="hint">${t("activityHidden")}</p></section>`}
      </div>
    </div>
  <//>`;
}
