// What the tablet reads from the server and keeps for the shift (IndexedDB `kept`): the person (auth.me), the
// board of their line (chosen once), and that board's work as last read: checklists due in the current
// period, 5S audit checklists with the person's audits in progress, the KPIs they are responsible for and the
// published forms. Offline, the screen shows these as kept, with the time they were read.
import { query, queryAll } from "../../api.js";
import { read, keep } from "./store.js";

const PAGE = 100;

/** The person signed in here; kept for offline starts. */
export async function readMe() {
  const me = await query("auth.me", {});
  await keep("me", me);
  return me;
}

/** Every board the person can open, with its workspace and project names, for picking their line's board. */
export async function boardsToPick() {
  const { workspaces } = await query("workspaces.list", { limit: PAGE });
  if (workspaces.length === 0) return [];
  const projectPages = await queryAll(workspaces.map((workspace) => ["projects.list",
    { workspaceId: workspace.id, limit: PAGE }]));
  const projects = projectPages.flatMap((page, index) => page.projects.map((project) => ({ ...project,
    workspaceName: workspaces[index].name })));
  if (projects.length === 0) return [];
  const boardPages = await queryAll(projects.map((project) => ["boards.list", { projectId: project.id, limit: PAGE }]));
  return boardPages.flatMap((page, index) => page.boards.map((board) => ({ id: board.id, name: board.name,
    where: `${projects[index].workspaceName} / ${projects[index].name}` })));
}

/** The board the tablet is set to (undefined until chosen). */
export const chosenBoard = () => read("boardId");
export const chooseBoard = (boardId) => keep("boardId", boardId);

/** The board's work as kept (undefined when it was never read here). */
export const keptBoard = (boardId) => read(`board:${boardId}`);

/** Read the board's work for `me` from the server and keep it. */
export async function readBoard(boardId, me) {
  const [board, checklists, audits, sessions, kpis, forms] = await queryAll([
    ["boards.get", { id: boardId }],
    ["checklists.getToday", { boardId }],
    ["audits.listChecklists", { boardId }],
    ["audits.listAudits", { boardId, status: "in_progress", limit: PAGE }],
    ["kpis.list", { boardId, limit: 200 }],
    ["forms.list", { boardId }],
  ]);
  const kept = {
    board: { id: board.id, name: board.name },
    checklists,
    audits,
    sessions: sessions.items.filter((session) => session.auditorId === me.id),
    kpis: kpis.kpis.filter((kpi) => kpi.responsibleUser?.id === me.id),
    forms: forms.forms.filter((form) => form.status === "published"),
    readAt: new Date().toISOString(),
  };
  await keep(`board:${boardId}`, kept);
  return kept;
}
