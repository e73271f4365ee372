// Choosing a board in the settings sections that work on one (automations, exports): a workspace, then one
// of its projects, then one of that project's boards, each a labelled select filled from the list procedures.
// The first of each is chosen until the person picks another, so a one-board organization needs no clicks.
import { html, useState, useEffect } from "../../lib.js";
import { queryPages } from "../../api.js";
import { catalogue } from "../../i18n.js";
import { Field } from "../../components/forms.js";
import strings from "./common.strings.js";

const t = catalogue(strings);

function useList(procedure, input, listField, onFirst) {
  const [list, setList] = useState(null);
  const key = input && JSON.stringify(input);
  useEffect(() => {
    setList(null);
    if (!input) return undefined;
    let current = true;
    queryPages(procedure, input, listField).then((rows) => {
      if (!current) return;
      setList(rows);
      onFirst(rows[0]?.id ?? "");
    }, () => current && setList([]));
    return () => { current = false; };
  }, [key]);
  return list;
}

function Choice({ name, label, list, value, onInput, emptyText }) {
  if (list === null) return null;
  if (list.length === 0) return html`<p class="notice">${emptyText}</p>`;
  return html`<${Field} as="select" name=${name} label=${label} value=${value} onInput=${onInput}>
    <option value="">${t("choose")}</option>
    ${list.map((entry) => html`<option key=${entry.id} value=${entry.id}>${entry.name}</option>`)}
  <//>`;
}

/** `onChange(boardId, board)` with the chosen board's id and list entry ("" and null while none is chosen). */
export function BoardPicker({ onChange }) {
  const [workspaceId, setWorkspaceId] = useState("");
  const [projectId, setProjectId] = useState("");
  const [boardId, setBoardId] = useState("");
  const workspaces = useList("workspaces.list", {}, "workspaces", setWorkspaceId);
  const projects = useList("projects.list", workspaceId ? { workspaceId } : null, "projects", setProjectId);
  const boards = useList("boards.list", projectId ? { projectId } : null, "boards", setBoardId);
  useEffect(() => {
    const board = boards?.find((entry) => entry.id === boardId) ?? null;
    onChange(board ? boardId : "", board);
  }, [boardId, boards]);
  const pick = (set, ...clear) => (value) => { clear.forEach((reset) => reset("")); set(value); };
  return html`<div class="board-picker">
    <${Choice} name="workspace" label=${t("workspace")} list=${workspaces} value=${workspaceId}
      onInput=${pick(setWorkspaceId, setProjectId, setBoardId)} emptyText=${t("noWorkspaces")} />
    ${workspaceId && html`<${Choice} name="project" label=${t("project")} list=${projects} value=${projectId}
      onInput=${pick(setProjectId, setBoardId)} emptyText=${t("noProjects")} />`}
    ${projectId && html`<${Choice} name="board" label=${t("board")} list=${boards} value=${boardId}
      onInput=${setBoardId} emptyText=${t("noBoards")} />`}
  </div>`;
}
