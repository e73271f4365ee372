// Choosing a board in the settings sections that work on one (automations, exports): a workspace, then one
// of its projects, then one of that project's boards, each a labelled select filled from the list procedures.
// The first of each is chosen until the person picks another, so a one-board organization needs no clicks. A
// list that cannot be read says so, with a retry (never "there are none").
import { html, useState, useEffect } from "../../lib.js";
import { queryPages } from "../../api.js";
import { catalogue } from "../../i18n.js";
import { Field } from "../../components/forms.js";
import { useLoad, Loaded } from "./load.js";
import strings from "./common.strings.js";

const t = catalogue(strings);

/** All of `procedure`'s rows for `input` (null: nothing to read yet); the first one is chosen once read. */
function useChoices(procedure, input, listField, onFirst) {
  return useLoad(async (signal) => {
    if (!input) return null;
    const rows = await queryPages(procedure, input, listField);
    if (!signal.aborted) onFirst(rows[0]?.id ?? "");
    return rows;
  }, [input && JSON.stringify(input)]);
}

function Choice({ name, label, list, value, onInput, emptyText }) {
  return html`<${Loaded} state=${list}>${(rows) => (rows.length === 0 ? html`<p class="notice">${emptyText}</p>`
    : html`<${Options} name=${name} label=${label} list=${rows} value=${value} onInput=${onInput} />`)}<//>`;
}

function Options({ name, label, list, value, onInput }) {
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
  const workspaces = useChoices("workspaces.list", {}, "workspaces", setWorkspaceId);
  const projects = useChoices("projects.list", workspaceId ? { workspaceId } : null, "projects", setProjectId);
  const boards = useChoices("boards.list", projectId ? { projectId } : null, "boards", setBoardId);
  useEffect(() => {
    const board = boards.data?.find((entry) => entry.id === boardId) ?? null;
    onChange(board ? boardId : "", board);
  }, [boardId, boards.data]);
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
