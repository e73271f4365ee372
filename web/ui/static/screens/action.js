// One action ("/actions/<id>", where notifications and e-mails about it lead): title, description, owner, due
// date (overdue said in words), status, priority, escalation and the board it belongs to. Changes status,
// owner and due date with the version it was read at (a 409 shows what is saved now and lets the person
// choose), escalates and de-escalates, and verifies a completed action. Follows its board's room, where
// actions announce their changes, so a change made elsewhere shows at once.
import { html, useState, useEffect, useRef } from "../lib.js";
import { query, queryAll, mutate } from "../api.js";
import { follow } from "../live.js";
import { role } from "../session.js";
import { boardPath } from "../links.js";
import { day, dateTime } from "../format.js";
import { catalogue } from "../i18n.js";
import { Page, Loading, LoadError } from "../components/page.js";
import { Field, ErrorSummary, Submit, useForm } from "../components/forms.js";
import { ConflictNotice } from "../components/conflict.js";
import { notify } from "../components/notices.js";
import { EscalateDialog, DeescalateDialog, VerifyDialog } from "./action/dialogs.js";
import strings from "./action.strings.js";

const t = catalogue(strings);
const STATUSES = ["open", "in_progress", "completed", "verified", "closed"];
const EDITORS = new Set(["owner", "admin", "member"]);
const MEMBERS = 200;
const ACTION_EVENTS = new Set(["action.updated", "action.completed", "action.escalated"]);

async function read(id, boardId) {
  const [action, { members }, board] = await queryAll([["actions.getById", { id }],
    ["organizations.members.list", { limit: MEMBERS }], ["boards.get", { id: boardId }]]);
  return { action, members, board: { id: board.id, name: board.name }, deleted: false };
}

/** The editable part of an action, as the form holds it. */
const editable = (action) => ({ status: action.status, assigneeId: action.assigneeId ?? "", dueDate: action.dueDate ?? "" });

function Facts({ action, board }) {
  const escalation = action.escalationLevel > 0
    ? t("escalatedTo", { level: action.escalationLevel, name: action.escalatedTo?.name ?? t("nobody") }) : t("notEscalated");
  return html`<dl class="action-facts">
    <div><dt>${t("status")}</dt><dd><span class="chip">${t(`status_${action.status}`)}</span></dd></div>
    <div><dt>${t("owner")}</dt><dd>${action.assignee?.name ?? t("nobody")}</dd></div>
    <div><dt>${t("due")}</dt><dd>${action.dueDate ? (action.isOverdue
      ? html`<strong class="action-overdue">${t("overdueSince", { date: day(action.dueDate) })}</strong>` : day(action.dueDate))
      : t("noDue")}</dd></div>
    <div><dt>${t("priority")}</dt><dd>${t(`priority_${action.priority}`)}</dd></div>
    <div><dt>${t("escalation")}</dt><dd>${escalation}</dd></div>
    <div><dt>${t("board")}</dt><dd><a href=${boardPath(board.id)}>${board.name}</a></dd></div>
    ${action.sourceType && action.sourceType !== "manual"
      && html`<div><dt>${t("source")}</dt><dd>${t(`source_${action.sourceType}`)}</dd></div>`}
    ${action.verifiedAt && html`<div><dt>${t("verification")}</dt><dd>${t("verifiedOn", { when: dateTime(action.verifiedAt) })}
      ${action.verificationNote && html`<br />${action.verificationNote}`}</dd></div>`}
  </dl>`;
}

function ChangeForm({ action, members, onSaved }) {
  const form = useForm(editable(action));
  const [conflict, setConflict] = useState(null);   // {theirs: action, changed: the person's edits}
  const person = (id) => members.find((member) => member.id === id)?.name ?? t("nobody");
  const line = (values) => t("conflictLine", { status: t(`status_${values.status}`), owner: person(values.assigneeId),
    due: values.dueDate ? day(values.dueDate) : t("noDue") });
  // The action as the form was filled from: its version goes with the save, so a change made elsewhere while
  // the person edits is a conflict they see, not one they overwrite. An untouched form follows live changes.
  const base = useRef(action);
  useEffect(() => {
    const shown = editable(base.current);
    if (Object.entries(shown).every(([name, value]) => form.values[name] === value)) {
      base.current = action;
      form.reset();
    }
  }, [action.version]);

  // What the person changed: the fields that differ from the action the form was filled from. Only these are
  // sent, so a save (or "save mine over it") never writes back a field someone else changed meanwhile.
  const edits = (values) => {
    const before = editable(base.current);
    return Object.fromEntries(Object.entries(values).filter(([name, value]) => value !== before[name] && value !== ""));
  };
  const show = (values) => Object.entries(values).forEach(([name, value]) => form.set(name)(value));
  const save = async (changed, version) => {
    if (!Object.keys(changed).length) {
      notify(t("nothingChanged"));
      return;
    }
    try {
      const saved = await mutate("actions.update", { id: action.id, ...changed, expectedVersion: version });
      base.current = saved;
      onSaved(saved);
      show(editable(saved));
      setConflict(null);
      notify(t("saved"));
    } catch (failure) {
      if (failure.status !== 409 || failure.code !== "CONFLICT") throw failure;
      const theirs = await query("actions.getById", { id: action.id });
      base.current = theirs;
      onSaved(theirs);
      show({ ...editable(theirs), ...changed });
      setConflict({ theirs, changed });
    }
  };
  const check = (values) => ({ dueDate: values.dueDate && !/^\d{4}-\d{2}-\d{2}$/.test(values.dueDate) ? t("dueInvalid") : null });
  const submit = (event) => {
    event.preventDefault();
    form.submit((values) => save(edits(values), base.current.version), check);
  };
  return html`<form class="card action-change" onSubmit=${submit} novalidate aria-labelledby="action-change-title">
    <h2 id="action-change-title">${t("changeTitle")}</h2>
    ${conflict && html`<${ConflictNotice} title=${t("conflictTitle")} theirsLabel=${t("theirs")} yoursLabel=${t("yours")}
      theirs=${line(editable(conflict.theirs))} yours=${line({ ...editable(conflict.theirs), ...conflict.changed })}
      keepTheirsLabel=${t("keepTheirs")} overwriteLabel=${t("overwrite")}
      onKeepTheirs=${() => { setConflict(null); show(editable(conflict.theirs)); }}
      onOverwrite=${() => form.submit(() => save(conflict.changed, conflict.theirs.version), () => ({}))} />`}
    <${ErrorSummary} title=${t("errorTitle")} errors=${form.errors} />
    <${Field} name="status" as="select" label=${t("status")} value=${form.values.status} onInput=${form.set("status")}
      error=${form.errors.status}>
      ${STATUSES.map((status) => html`<option key=${status} value=${status}>${t(`status_${status}`)}</option>`)}
    <//>
    <${Field} name="assigneeId" as="select" label=${t("owner")} value=${form.values.assigneeId}
      onInput=${form.set("assigneeId")} error=${form.errors.assigneeId}>
      ${!form.values.assigneeId && html`<option value="">${t("nobody")}</option>`}
      ${members.map((member) => html`<option key=${member.id} value=${member.id}>${member.name}</option>`)}
    <//>
    <${Field} name="dueDate" type="date" label=${t("due")} value=${form.values.dueDate}
      onInput=${form.set("dueDate")} error=${form.errors.dueDate} />
    <${Submit} busy=${form.busy} busyLabel=${t("saving")}>${t("save")}<//>
  </form>`;
}

export default function Action({ params }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [attempt, setAttempt] = useState(0);
  const [dialog, setDialog] = useState(null);   // "escalate" | "deescalate" | "verify" | "sendBack"
  const id = params.id;

  useEffect(() => {
    setError(null);
    let following = null;
    let stopped = false;
    // The board's room is known once the action is read.
    query("actions.getById", { id }).then((first) => {
      if (stopped) return;
      following = follow(`board:${first.boardId}`, (name, payload) => {
        const changed = payload.data?.action;
        if (!changed || changed.id !== id) return;
        if (name === "action.deleted") setData((old) => old && { ...old, deleted: true });
        else if (name === "action.escalated") query("actions.getById", { id }).then(
          (fresh) => setData((old) => old && { ...old, action: fresh }), () => {});
        else if (ACTION_EVENTS.has(name)) {
          setData((old) => old && old.action.version < changed.version
            ? { ...old, action: { ...changed, escalations: old.action.escalations } } : old);
        }
      }, async () => setData(await read(id, first.boardId)));
      following.ready.catch(setError);
    }, setError);
    return () => { stopped = true; following?.stop(); };
  }, [id, attempt]);

  if (error) return html`<${Page} title=${t("title")}><${LoadError} title=${t("loadFailed")} error=${error}
    retryLabel=${t("retry")} onRetry=${() => setAttempt(attempt + 1)} /><//>`;
  if (!data) return html`<${Page} title=${t("title")}><${Loading} label=${t("loading")} /><//>`;

  const { action, members, board } = data;
  const canEdit = EDITORS.has(role.value) && !data.deleted;
  const replace = (fresh) => setData((old) => ({ ...old,
    action: old.action.version > fresh.version ? old.action : { ...fresh, escalations: fresh.escalations ?? old.action.escalations } }));
  const close = () => setDialog(null);
  const run = (procedure, input, done, reread = false) => async (values) => {
    const reply = await mutate(procedure, { id, ...input, ...values });
    replace(reread ? await query("actions.getById", { id }) : reply);
    notify(done);
  };

  return html`<${Page} title=${action.title} breadcrumbs=${[[t("home"), "/"], [board.name, boardPath(board.id)], [action.title]]}
    actions=${canEdit && html`
      <button type="button" class="button button--secondary" onClick=${() => setDialog("escalate")}>${t("escalate")}</button>
      ${action.escalationLevel > 0 && html`<button type="button" class="button button--secondary"
        onClick=${() => setDialog("deescalate")}>${t("deescalate")}</button>`}
      ${action.status === "completed" && html`
        <button type="button" class="button button--primary" onClick=${() => setDialog("verify")}>${t("verify")}</button>
        <button type="button" class="button button--secondary" onClick=${() => setDialog("sendBack")}>${t("sendBack")}</button>`}`}>
    ${data.deleted && html`<p class="notice notice--warning" role="alert">${t("deleted")}</p>`}
    ${action.isOverdue && html`<p class="notice notice--warning"><strong>${t("overdue")}</strong>: ${t("overdueSince", { date: day(action.dueDate) })}</p>`}
    <div class="action-layout">
      <div>
        <${Facts} action=${action} board=${board} />
        <section aria-labelledby="action-description">
          <h2 id="action-description">${t("description")}</h2>
          <p class="action-description">${action.description || t("noDescription")}</p>
        </section>
        ${action.escalations?.length > 0 && html`<section aria-labelledby="action-history">
          <h2 id="action-history">${t("history")}</h2>
          <ol class="action-history">${action.escalations.map((entry) => html`<li key=${entry.id}>
            <time datetime=${entry.createdAt}>${dateTime(entry.createdAt)}</time>:
            ${" "}${t("historyLine", { from: entry.fromLevel, to: entry.toLevel, reason: entry.reason })}
          </li>`)}</ol>
        </section>`}
      </div>
      ${canEdit && html`<${ChangeForm} action=${action} members=${members} onSaved=${replace} />`}
    </div>
    <${EscalateDialog} t=${t} open=${dialog === "escalate"} members=${members} onClose=${close}
      onSubmit=${run("actions.escalate", {}, t("escalated"), true)} />
    <${DeescalateDialog} t=${t} open=${dialog === "deescalate"} onClose=${close}
      onSubmit=${run("actions.deescalate", {}, t("deescalated"), true)} />
    <${VerifyDialog} t=${t} open=${dialog === "verify" || dialog === "sendBack"} verified=${dialog === "verify"}
      onClose=${close} onSubmit=${run("actions.verify", { verified: dialog === "verify" },
        dialog === "verify" ? t("verifiedDone") : t("sentBack"))} />
  <//>`;
}
