// The board screen, /boards/<id> (?view=kanban): reads the board (groups, columns) and the organization's
// members in one batch and its items page by page (the first page drawn at once), follows the board's room
// so every change anyone makes appears here without a reload, and shows the table or the kanban view with the
// bulk bar, the dialogs and one polite live region for what just happened. Breadcrumbs: workspace › project ›
// board.
import { html, useState, useEffect, useMemo, useSignal } from "../lib.js";
import { queryAll, queryPages, query } from "../api.js";
import { follow } from "../live.js";
import { setQuery } from "../router.js";
import { catalogue } from "../i18n.js";
import { entityPath } from "../links.js";
import { Page, Loading, LoadError } from "../components/page.js";
import { createStore } from "./board/store.js";
import { boardWrites } from "./board/writes.js";
import { TableView } from "./board/table.js";
import { KanbanView } from "./board/kanban.js";
import { BulkBar } from "./board/bulk.js";
import { MeetingControl, meetingWatch } from "./board/meetings.js";
import { EditDialog, ItemActionsDialog, GroupActionsDialog, AddGroupDialog } from "./board/dialogs.js";
import strings from "./board.strings.js";

const t = catalogue(strings);

function ViewSwitch({ view }) {
  const pick = (name) => setQuery("view", name === "table" ? null : name);
  return html`<div class="view-switch" role="group" aria-label=${t("viewSwitch")}>
    ${[["table", t("viewTable")], ["kanban", t("viewKanban")]].map(([name, label]) => html`<button key=${name}
      type="button" class="view-switch__option" aria-pressed=${view === name ? "true" : "false"}
      onClick=${() => pick(name)}>${label}</button>`)}
  </div>`;
}

/** The board's data: store filled by the loader and live events (the board's meetings in progress too); answers
 * {store, writes, meetings, members, status}. */
function useBoard(boardId) {
  const store = useMemo(() => createStore(boardId), [boardId]);
  const writes = useMemo(() => boardWrites(store, boardId), [store]);
  const meetings = useMemo(() => meetingWatch(boardId), [boardId]);
  const [status, setStatus] = useState({ state: "loading", error: null, loaded: 0, done: false });
  const [members, setMembers] = useState([]);
  const [crumbs, setCrumbs] = useState([]);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let gone = false;
    const load = async () => {
      /** @type {any[] | null} */
      let latest = null;
      let drawn = false;
      const pages = queryPages("items.list", { boardId }, "items", (soFar) => {
        latest = soFar;
        if (drawn && !gone) {
          store.replaceItems(soFar);
          setStatus((old) => ({ ...old, loaded: soFar.length }));
        }
      });
      // Read before the room's held events apply; on a refusal the control offers to start one.
      const watching = meetings.load().catch(() => {});
      const [board, people] = await queryAll([["boards.get", { id: boardId }],
        ["organizations.members.list", { limit: 200 }]]);
      if (gone) return;
      store.load(board, latest);
      drawn = true;
      setMembers(people.members ?? []);
      setStatus({ state: "ready", error: null, loaded: latest?.length ?? 0, done: false });
      breadcrumbs(board).then((trail) => !gone && setCrumbs(trail));
      await watching;
      const all = await pages;
      if (gone) return;
      store.replaceItems(all);
      setStatus({ state: "ready", error: null, loaded: all.length, done: true });
    };
    const onEvent = (name, payload) => {
      meetings.apply(name, payload);
      const missing = store.apply(name, payload);
      if (missing) query("items.get", { id: missing }).then(store.upsert, () => {});
    };
    const room = follow(`board:${boardId}`, onEvent, load);
    room.ready.catch((error) => !gone && setStatus({ state: "error", error, loaded: 0, done: false }));
    return () => { gone = true; room.stop(); };
  }, [store, attempt]);

  return { store, writes, meetings, members, crumbs, status, retry: () => setAttempt(attempt + 1) };
}

async function breadcrumbs(board) {
  try {
    const project = await query("projects.get", { id: board.projectId });
    const [workspace] = await queryAll([["workspaces.get", { id: project.workspaceId }]]);
    return [[workspace.name, entityPath("workspace", workspace.id)], [project.name, entityPath("project", project.id)]];
  } catch {
    return []; // the trail is a convenience: the board is shown without it
  }
}

export default function BoardScreen({ params, query: search }) {
  const view = search.get("view") === "kanban" ? "kanban" : "table";
  const { store, writes, meetings, members, crumbs, status, retry } = useBoard(params.id);
  const selection = useSignal(new Set());
  const message = useSignal("");
  const [editing, setEditing] = useState(null);
  const [itemActions, setItemActions] = useState(null);
  const [groupActions, setGroupActions] = useState(null);
  const [addingGroup, setAddingGroup] = useState(false);
  const announce = (text) => {
    // The same words twice in a row are still announced: clear first, then say.
    message.value = "";
    requestAnimationFrame(() => { message.value = text; });
  };

  if (status.state === "error") {
    return html`<${LoadError} title=${t("loadFailed")} error=${status.error} retryLabel=${t("retry")} onRetry=${retry} />`;
  }
  const board = store.board.value;
  if (!board) return html`<${Loading} label=${t("loading")} />`;
  const liveItem = itemActions && store.items.get(itemActions.id);
  const liveGroup = groupActions && store.groups.value.find((group) => group.id === groupActions.id);

  return html`<${Page} title=${board.name} wide breadcrumbs=${[...crumbs, [board.name]]}
      actions=${html`<${MeetingControl} watch=${meetings} boardId=${params.id} members=${members} />
        <${ViewSwitch} view=${view} />
        <button type="button" class="button button--secondary" onClick=${() => setAddingGroup(true)}>${t("addGroup")}</button>`}>
    ${store.deleted.value && html`<p class="notice notice--warning" role="alert">${t("boardDeleted")}</p>`}
    ${!status.done && html`<p class="loading" role="status">${t("loadingMore", { count: status.loaded })}</p>`}
    <p class="visually-hidden" role="status" aria-live="polite">${message.value}</p>
    <${BulkBar} store=${store} writes=${writes} selection=${selection} announce=${announce} />
    ${view === "kanban"
      ? html`<${KanbanView} store=${store} writes=${writes} members=${members} announce=${announce} />`
      : html`<${TableView} store=${store} writes=${writes} members=${members} selection=${selection} announce=${announce}
          onEdit=${(item, column) => setEditing({ item, column, base: item.values?.[column.id] ?? null })}
          onItemActions=${(item) => setItemActions(item)} onGroupActions=${(group) => setGroupActions(group)} />`}
    <${EditDialog} editing=${editing} store=${store} writes=${writes} members=${members} onClose=${() => setEditing(null)} />
    <${ItemActionsDialog} item=${liveItem} store=${store} writes=${writes} announce=${announce}
      onClose=${() => setItemActions(null)} />
    <${GroupActionsDialog} group=${liveGroup} store=${store} writes=${writes} onClose=${() => setGroupActions(null)} />
    <${AddGroupDialog} open=${addingGroup} writes=${writes} onClose=${() => setAddingGroup(false)} />
  <//>`;
}
