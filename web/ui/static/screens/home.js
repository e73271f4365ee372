// The organization's home ("/", "/workspaces/<id>", "/projects/<id>"): the way to a board in three panes,
// workspaces | the chosen workspace's projects | the chosen project's boards, the choice in the URL so it can
// be bookmarked. Creates, renames and deletes workspaces, projects and boards (a delete asks first, naming
// what goes with it), builds a board from a template, and follows the `org` room, which carries projects
// created and deleted by others (workspaces and boards are not announced there; guests may not follow it).
import { html, useState, useEffect, useRef } from "../lib.js";
import { query, queryAll, mutate } from "../api.js";
import { follow } from "../live.js";
import { location, navigate } from "../router.js";
import { role, isAdmin } from "../session.js";
import { boardPath } from "../links.js";
import { catalogue } from "../i18n.js";
import { Page, Loading, LoadError } from "../components/page.js";
import { ConfirmDialog } from "../components/dialog.js";
import { notify } from "../components/notices.js";
import { Pane, RowButton } from "./home/panes.js";
import { NameDialog, TemplateDialog } from "./home/dialogs.js";
import strings from "./home.strings.js";

const t = catalogue(strings);
const PAGE = 200;
const EDITORS = new Set(["owner", "admin", "member"]);

const workspacePath = (id) => `/workspaces/${encodeURIComponent(id)}`;
const projectPath = (id) => `/projects/${encodeURIComponent(id)}`;

/** What the path chooses: a workspace, a project (whose workspace is read with it), or nothing. */
function chosenBy(path, params) {
  if (path.startsWith("/projects/")) return { projectId: params.id };
  if (path.startsWith("/workspaces/")) return { workspaceId: params.id };
  return {};
}

/**
 * Every workspace, the chosen workspace with its projects, the chosen project with its boards.
 * @param {{workspaceId?: string, projectId?: string}} chosen
 */
async function read({ workspaceId, projectId }) {
  /** @type {[string, object][]} */
  const calls = [["workspaces.list", { limit: PAGE }]];
  if (workspaceId) calls.push(["workspaces.get", { id: workspaceId }]);
  if (projectId) calls.push(["projects.get", { id: projectId }]);
  const [first, chosen] = await queryAll(calls);
  const workspaces = [...first.workspaces];
  for (let cursor = first.nextCursor; cursor;) {
    const page = await query("workspaces.list", { limit: PAGE, cursor });
    workspaces.push(...page.workspaces);
    cursor = page.nextCursor;
  }
  const project = projectId ? chosen : null;
  const workspace = project ? await query("workspaces.get", { id: project.workspaceId }) : (chosen ?? null);
  return { workspaces, workspace, project };
}

const upsert = (list, entry) => [entry, ...list.filter((other) => other.id !== entry.id)];
const without = (list, id) => list.filter((other) => other.id !== id);
const renamed = (list, id, name) => list.map((other) => (other.id === id ? { ...other, name } : other));

/** A live event applied to the home's data (idempotent: upsert or remove by id). */
function applied(data, name, payload) {
  const project = payload.data?.project;
  if (!data.workspace || !project || project.workspaceId !== data.workspace.id) return data;
  const projects = data.workspace.projects;
  if (name === "project.created") {
    return { ...data, workspace: { ...data.workspace, projects: upsert(projects, { id: project.id, name: project.name }) } };
  }
  if (name === "project.deleted") return { ...data, workspace: { ...data.workspace, projects: without(projects, project.id) } };
  return data;
}

function FirstStep({ onCreate }) {
  return html`<section class="card home-first" aria-labelledby="home-first-title">
    <h2 id="home-first-title">${t("firstTitle")}</h2>
    <p>${t("firstBody")}</p>
    ${isAdmin.value ? html`<button type="button" class="button button--primary" onClick=${onCreate}>${t("firstAction")}</button>`
      : html`<p>${t("firstAskAdmin")}</p>`}
  </section>`;
}

export default function Home({ params }) {
  const chosen = chosenBy(location.value.path, params);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [attempt, setAttempt] = useState(0);
  const [dialog, setDialog] = useState(null);   // {kind, entity}
  const [busy, setBusy] = useState(false);
  const current = useRef(null);
  current.current = data;

  useEffect(() => {
    setError(null);
    // The server refuses guests the `org` room: a guest's home is read once, without live updates.
    if (role.value === "guest") {
      read(chosen).then(setData, setError);
      return undefined;
    }
    const following = follow("org", (name, payload) => {
      const before = current.current;
      if (!before) return;
      if (name === "project.deleted" && before.project?.id === payload.data?.project?.id) {
        notify(t("projectGone", { name: before.project.name }));
        navigate(workspacePath(before.workspace.id), { replace: true });
        return;
      }
      setData((old) => old && applied(old, name, payload));
    }, async () => setData(await read(chosen)));
    following.ready.catch(setError);
    return following.stop;
  }, [attempt]);

  if (error) {
    return html`<${Page} title=${t("title")}>
      <${LoadError} title=${error.status === 404 ? t("notFound") : t("loadFailed")} error=${error}
        retryLabel=${t("retry")} onRetry=${() => setAttempt(attempt + 1)} />
      ${error.status === 404 && html`<p><a href="/">${t("backHome")}</a></p>`}
    <//>`;
  }
  if (!data) return html`<${Page} title=${t("title")}><${Loading} label=${t("loading")} /><//>`;

  const { workspaces, workspace, project } = data;
  const canEdit = EDITORS.has(role.value);
  const open = (kind, entity = null) => setDialog({ kind, entity });
  const close = () => setDialog(null);
  const kind = dialog?.kind;
  const entity = dialog?.entity;

  const write = async (procedure, input) => mutate(procedure, input);
  const remove = async (procedure, id, after) => {
    setBusy(true);
    try {
      await write(procedure, { id });
      close();
      after();
    } catch (failure) {
      notify(t("deleteFailed", { message: failure.message }), "error");
    } finally {
      setBusy(false);
    }
  };

  const create = {
    workspace: async (name) => {
      const made = await write("workspaces.create", { name });
      notify(t("workspaceCreated", { name }));
      navigate(workspacePath(made.id));
    },
    project: async (name) => {
      const made = await write("projects.create", { workspaceId: workspace.id, name });
      notify(t("projectCreated", { name }));
      navigate(projectPath(made.id));
    },
    board: async (name) => {
      const made = await write("boards.create", { projectId: project.id, name });
      notify(t("boardCreated", { name }));
      navigate(boardPath(made.id));
    },
  };
  const fromTemplate = async (templateId, boardName) => {
    const made = await write("templates.apply", { templateId, projectId: project.id, boardName });
    notify(t("boardCreated", { name: boardName }));
    navigate(boardPath(made.id));
  };
  const rename = {
    workspace: async (name) => {
      await write("workspaces.update", { id: entity.id, name });
      setData((old) => ({ ...old, workspaces: renamed(old.workspaces, entity.id, name),
        workspace: old.workspace?.id === entity.id ? { ...old.workspace, name } : old.workspace }));
      notify(t("renamed", { name }));
    },
    project: async (name) => {
      await write("projects.update", { id: entity.id, name });
      setData((old) => ({ ...old, workspace: { ...old.workspace, projects: renamed(old.workspace.projects, entity.id, name) },
        project: old.project?.id === entity.id ? { ...old.project, name } : old.project }));
      notify(t("renamed", { name }));
    },
    board: async (name) => {
      await write("boards.update", { id: entity.id, name });
      setData((old) => ({ ...old, project: { ...old.project, boards: renamed(old.project.boards, entity.id, name) } }));
      notify(t("renamed", { name }));
    },
  };
  const deletion = {
    workspace: () => remove("workspaces.delete", entity.id, () => {
      notify(t("deleted", { name: entity.name }));
      navigate("/");
    }),
    project: () => remove("projects.delete", entity.id, () => {
      notify(t("deleted", { name: entity.name }));
      navigate(workspacePath(workspace.id));
    }),
    board: () => remove("boards.delete", entity.id, () => {
      notify(t("deleted", { name: entity.name }));
      setData((old) => ({ ...old, project: { ...old.project, boards: without(old.project.boards, entity.id) } }));
      document.getElementById("home-boards")?.focus();
    }),
  };
  const deleteMessage = {
    workspace: () => t("deleteWorkspaceMessage", { name: entity.name, count: workspace?.projects.length ?? 0 }),
    project: () => t("deleteProjectMessage", { name: entity.name, count: project?.boards.length ?? 0 }),
    board: () => t("deleteBoardMessage", { name: entity.name }),
  };

  const title = project?.name ?? workspace?.name ?? t("title");
  const breadcrumbs = workspace ? [[t("home"), "/"], ...(project
    ? [[workspace.name, workspacePath(workspace.id)], [project.name]] : [[workspace.name]])] : [];
  const rowActions = (type) => (entry) => html`
    <${RowButton} label=${t("rename")} target=${entry.name} onClick=${() => open(`rename-${type}`, entry)} />
    <${RowButton} label=${t("delete")} target=${entry.name} danger onClick=${() => open(`delete-${type}`, entry)} />`;
  const nameDialog = (type, mode) => html`<${NameDialog} t=${t} open=${kind === `${mode}-${type}`}
    title=${mode === "create" ? t(`new_${type}_title`) : t("renameTitle", { name: entity?.name ?? "" })}
    label=${t(`${type}Name`)} hint=${mode === "create" ? t(`${type}NameHint`) : undefined}
    initial=${mode === "rename" ? entity?.name ?? "" : ""}
    submitLabel=${mode === "create" ? t(`create_${type}`) : t("saveName")}
    onSubmit=${mode === "create" ? create[type] : rename[type]} onClose=${close} />`;

  const panes = workspaces.length === 0 ? html`<${FirstStep} onCreate=${() => open("create-workspace")} />`
    : html`<div class="home">
      <${Pane} title=${t("workspaces")} listLabel=${t("workspaces")} chosen=${workspace?.id}
        entries=${workspaces.map((entry) => ({ id: entry.id, name: entry.name, href: workspacePath(entry.id) }))}
        actions=${isAdmin.value && html`<button type="button" class="button button--secondary"
          onClick=${() => open("create-workspace")}>${t("create_workspace")}</button>`}
        rowActions=${isAdmin.value ? rowActions("workspace") : null} empty=${t("noWorkspaces")} />
      <${Pane} title=${workspace ? t("projectsOf", { name: workspace.name }) : t("projects")} listLabel=${t("projects")}
        chosen=${project?.id}
        entries=${(workspace?.projects ?? []).map((entry) => ({ id: entry.id, name: entry.name, href: projectPath(entry.id) }))}
        actions=${workspace && canEdit && html`<button type="button" class="button button--secondary"
          onClick=${() => open("create-project")}>${t("create_project")}</button>`}
        rowActions=${canEdit ? rowActions("project") : null}
        empty=${workspace ? t("noProjects") : t("chooseWorkspace")} />
      <${Pane} title=${project ? t("boardsOf", { name: project.name }) : t("boards")} listLabel=${t("boards")}
        headingId="home-boards"
        entries=${(project?.boards ?? []).map((entry) => ({ id: entry.id, name: entry.name, href: boardPath(entry.id) }))}
        actions=${project && canEdit && html`
          <button type="button" class="button button--primary" onClick=${() => open("template")}>${t("fromTemplate")}</button>
          <button type="button" class="button button--secondary" onClick=${() => open("create-board")}>${t("create_board")}</button>`}
        rowActions=${canEdit ? rowActions("board") : null} actionsOnEvery
        empty=${project ? t("noBoards") : t("chooseProject")} />
    </div>`;

  return html`<${Page} title=${title} breadcrumbs=${breadcrumbs} wide>
    ${panes}
    ${["workspace", "project", "board"].map((type) => html`
      ${nameDialog(type, "create")}
      ${nameDialog(type, "rename")}
      <${ConfirmDialog} open=${kind === `delete-${type}`} title=${t("deleteTitle", { name: entity?.name ?? "" })}
        message=${kind === `delete-${type}` ? deleteMessage[type]() : ""} confirmLabel=${t(`delete_${type}`)}
        cancelLabel=${t("cancel")} busy=${busy} onConfirm=${deletion[type]} onClose=${close} />`)}
    <${TemplateDialog} t=${t} open=${kind === "template"} projectName=${project?.name ?? ""}
      onCreate=${fromTemplate} onClose=${close} />
  <//>`;
}
