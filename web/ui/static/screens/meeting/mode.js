// A meeting in progress: its header (board, tier, who started it and when, the time it has run), the agenda
// with the entry under discussion highlighted and its timer running from `current.since`, a "Mark discussed"
// toggle per entry, actions created and escalated on the spot, and "Complete meeting". Whoever leads clicks an
// entry (or "Next") to move the discussion; everyone on the page, and the wall screen, follows.
import { html, useState, useEffect, useRef } from "../../lib.js";
import { mutate } from "../../api.js";
import { role } from "../../session.js";
import { entityPath } from "../../links.js";
import { dateTime, day, duration } from "../../format.js";
import { Page } from "../../components/page.js";
import { notify } from "../../components/notices.js";
import { Status, withUnit } from "../kpi/view.js";
import { agendaApplied, entryName, entryNames } from "./agenda.js";
import { CreateActionDialog, CompleteDialog, EscalateDialog } from "./dialogs.js";

const EDITORS = new Set(["owner", "admin", "member"]);

/** The current time, again every second while the page shows it. */
export function useNow() {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export const personName = (t, members, id) => members.find((member) => member.id === id)?.name ?? t("someone");

function Header({ t, meeting, members, board, now }) {
  return html`<dl class="meeting-facts">
    <div><dt>${t("board")}</dt><dd><a href=${entityPath("board", board.id)}>${board.name}</a></dd></div>
    <div><dt>${t("tier")}</dt><dd>${meeting.tier}</dd></div>
    <div><dt>${t("startedBy")}</dt><dd>${personName(t, members, meeting.startedBy)}</dd></div>
    <div><dt>${t("startedAt")}</dt><dd>${dateTime(meeting.startedAt)}</dd></div>
    <div><dt>${t("elapsed")}</dt><dd><span role="timer" class="meeting-facts__clock">
      ${duration(now - new Date(meeting.startedAt).getTime())}</span></dd></div>
    ${meeting.attendeeIds?.length > 0 && html`<div class="meeting-facts__wide"><dt>${t("attendees")}</dt>
      <dd>${meeting.attendeeIds.map((id) => personName(t, members, id)).join(", ")}</dd></div>`}
  </dl>`;
}

/** What the agenda says about an action: owner, due date (overdue in words), status, priority, escalation. */
export function ActionFacts({ t, action }) {
  const due = action.isOverdue
    ? html`<strong class="action-overdue">${t("overdueSince", { date: day(action.dueDate) })}</strong>` : day(action.dueDate);
  const escalation = action.escalationLevel > 0
    ? t("escalatedTo", { level: action.escalationLevel, name: action.escalatedTo?.name ?? t("nobody") }) : t("notEscalated");
  return html`<dl class="meeting-entry__facts">
    <div><dt>${t("owner")}</dt><dd>${action.assignee?.name ?? t("nobody")}</dd></div>
    <div><dt>${t("due")}</dt><dd>${due}</dd></div>
    <div><dt>${t("status")}</dt><dd>${t(`actionStatus_${action.status}`)}</dd></div>
    <div><dt>${t("priority")}</dt><dd>${t(`priority_${action.priority}`)}</dd></div>
    <div><dt>${t("escalation")}</dt><dd>${escalation}</dd></div>
  </dl>`;
}

export function KpiFacts({ t, kpi }) {
  return html`<dl class="meeting-entry__facts">
    <div><dt>${t("status")}</dt><dd><${Status} t=${t} status=${kpi.latestValue?.status ?? kpi.status} /></dd></div>
    <div><dt>${t("latest")}</dt><dd>${kpi.latestValue ? withUnit(kpi.latestValue.value, kpi.unit) : t("noValue")}</dd></div>
    <div><dt>${t("target")}</dt><dd>${kpi.target ? withUnit(kpi.target.value, kpi.unit) : t("noTarget")}</dd></div>
  </dl>`;
}

/** The tools of an entry for whoever leads: its discussed mark, escalating an action, and its own page. */
function Tools({ t, list, entry, name, label, discussed, canLead, onDiscussed, onEscalate }) {
  const named = (what) => t("of", { what, name: label });
  return html`<div class="meeting-entry__tools">
    ${canLead && html`<button type="button" class="button button--secondary meeting-entry__mark"
      aria-pressed=${discussed ? "true" : "false"} aria-label=${named(t("markDiscussed"))}
      onClick=${() => onDiscussed(name, !discussed)}>
      <span class="meeting-entry__box" aria-hidden="true">${discussed ? "✓" : ""}</span>${t("markDiscussed")}</button>`}
    ${canLead && list !== "kpis" && !entry.deleted && html`<button type="button" class="button button--secondary"
      aria-label=${named(t("escalate"))} onClick=${() => onEscalate(entry)}>${t("escalate")}</button>`}
    <a class="button button--quiet" href=${entityPath(list === "kpis" ? "kpi" : "action", entry.id)}
      aria-label=${named(t("open"))}>${t("open")}</a>
  </div>`;
}

/**
 * One agenda entry (`list` "kpis", "actions" or "escalations"), highlighted while under discussion and marked
 * once discussed. `readOnly` (the replay) draws it without its tools and its timer.
 */
export function Entry({ t, list, entry, meeting, now = 0, canLead = false, readOnly = false,
  onFocus = null, onDiscussed = null, onEscalate = null }) {
  const name = entryName(list, entry.id);
  const current = meeting.current?.entry === name;
  const discussed = (meeting.discussed ?? []).includes(name);
  const label = list === "kpis" ? entry.name : entry.title;
  const lead = canLead && !readOnly;
  const classes = ["meeting-entry", current && "meeting-entry--current", discussed && "meeting-entry--discussed"];
  return html`<li class=${classes.filter(Boolean).join(" ")} aria-current=${current ? "true" : undefined}>
    <div class="meeting-entry__head">
      ${lead ? html`<button type="button" class="meeting-entry__title"
          onClick=${() => onFocus(current ? null : name)}>
          <span class="visually-hidden">${current ? t("stopDiscussing") : t("discuss")} </span>${label}</button>`
        : html`<span class="meeting-entry__title">${label}</span>`}
      ${current && html`<span class="meeting-entry__now">${t("underDiscussion")}${!readOnly && html`<span role="timer"
        class="meeting-entry__clock">${duration(now - new Date(meeting.current.since).getTime())}</span>`}</span>`}
      ${discussed && html`<span class="chip meeting-entry__done"><span aria-hidden="true">✓ </span>${t("discussed")}</span>`}
    </div>
    ${list === "kpis" ? html`<${KpiFacts} t=${t} kpi=${entry} />` : html`<${ActionFacts} t=${t} action=${entry} />`}
    ${entry.deleted && html`<p class="hint">${t("actionGone")}</p>`}
    ${!readOnly && html`<${Tools} t=${t} list=${list} entry=${entry} name=${name} label=${label} discussed=${discussed}
      canLead=${lead} onDiscussed=${onDiscussed} onEscalate=${onEscalate} />`}
  </li>`;
}

function Section({ t, list, title, entries, empty, total, ...rest }) {
  return html`<section class="meeting-section" aria-labelledby=${`meeting-${list}`}>
    <h2 id=${`meeting-${list}`}>${title} <span class="meeting-section__count">${entries.length}</span></h2>
    ${total > entries.length && html`<p class="hint">${t("moreOnBoard", { count: total - entries.length })}</p>`}
    ${entries.length ? html`<ol class="meeting-entries">${entries.map((entry) => html`<${Entry} key=${entry.id} t=${t}
        list=${list} entry=${entry} ...${rest} />`)}</ol>` : html`<p class="empty">${empty}</p>`}
  </section>`;
}

function Created({ t, actions, canLead, onEscalate }) {
  if (!actions.length) return null;
  return html`<section class="meeting-section meeting-section--wide" aria-labelledby="meeting-created">
    <h2 id="meeting-created">${t("createdHere")} <span class="meeting-section__count">${actions.length}</span></h2>
    <ol class="meeting-entries">${actions.map((action) => html`<li key=${action.id} class="meeting-entry meeting-entry--new">
      <div class="meeting-entry__head"><span class="meeting-entry__title">${action.title}</span>
        <span class="chip">${t("new")}</span></div>
      <${ActionFacts} t=${t} action=${action} />
      <div class="meeting-entry__tools">
        ${canLead && html`<button type="button" class="button button--secondary"
          aria-label=${t("of", { what: t("escalate"), name: action.title })}
          onClick=${() => onEscalate(action)}>${t("escalate")}</button>`}
        <a class="button button--quiet" href=${entityPath("action", action.id)}
          aria-label=${t("of", { what: t("open"), name: action.title })}>${t("open")}</a>
      </div>
    </li>`)}</ol>
  </section>`;
}

/**
 * `data`: {meeting, members, board, agenda, heard (the meeting's events applied)}; `onChange(old => new)` lays a
 * write's reply over the page's state.
 */
export function MeetingMode({ t, title, crumbs, data, onChange }) {
  const { meeting, members, board, agenda } = data;
  const now = useNow();
  // One meeting write at a time; its buttons stay enabled (a disabled button would drop the keyboard focus).
  const busy = useRef(false);
  const [dialog, setDialog] = useState(null);   // {kind: "create" | "complete" | "escalate", action?}
  const canLead = EDITORS.has(role.value);
  const close = () => setDialog(null);
  // A reply is laid over the page only when no event of the meeting arrived while it was on its way: events come
  // in the server's order, so such an event is this write's own or a later one, and the reply would undo it.
  const withMeeting = (reply, heard) => onChange((old) => (old.heard !== heard ? old
    : { ...old, meeting: { ...old.meeting, ...reply } }));
  const write = async (procedure, input) => {
    if (busy.current) return;
    busy.current = true;
    const heard = data.heard;
    try {
      withMeeting(await mutate(procedure, { id: meeting.id, ...input }), heard);
    } catch (failure) {
      notify(t("writeFailed", { message: failure.message }), "error");
    } finally {
      busy.current = false;
    }
  };
  const names = entryNames(agenda);
  const at = names.indexOf(meeting.current?.entry ?? "");
  const next = at + 1 < names.length ? names[at + 1] : null;
  const created = async (values) => {
    const action = await mutate("actions.create", { boardId: board.id, title: values.title.trim(),
      assigneeId: values.assigneeId, dueDate: values.dueDate, priority: values.priority });
    onChange((old) => ({ ...old, agenda: agendaApplied(old.agenda, "action.created", { action }, old.meeting.startedAt) }));
    notify(t("actionCreatedNotice", { title: action.title }));
  };
  const escalated = async (values) => {
    const action = await mutate("actions.escalate", { id: dialog.action.id, ...values });
    onChange((old) => ({ ...old, agenda: agendaApplied(old.agenda, "action.escalated", { action }, old.meeting.startedAt) }));
    notify(t("escalatedNotice", { title: action.title, level: action.escalationLevel }));
  };
  const completed = async (values) => {
    const heard = data.heard;
    withMeeting(await mutate("meetings.complete", { id: meeting.id, notes: values.notes.trim() || null }), heard);
    notify(t("completedNotice"));
  };
  const shared = { t, meeting, now, canLead, onFocus: (entry) => write("meetings.focus", { entry }),
    onDiscussed: (entry, discussed) => write("meetings.markDiscussed", { entry, discussed }),
    onEscalate: (action) => setDialog({ kind: "escalate", action }) };
  const totals = meeting.agenda?.totals ?? {};

  return html`<${Page} title=${title} breadcrumbs=${crumbs} actions=${canLead && html`
      <button type="button" class="button button--secondary" disabled=${next === null}
        onClick=${() => write("meetings.focus", { entry: next })}>${t("next")}</button>
      <button type="button" class="button button--secondary"
        onClick=${() => setDialog({ kind: "create" })}>${t("createAction")}</button>
      <button type="button" class="button button--primary"
        onClick=${() => setDialog({ kind: "complete" })}>${t("complete")}</button>`}>
    <${Header} t=${t} meeting=${meeting} members=${members} board=${board} now=${now} />
    <p class="meeting-progress">${t("progress", { done: (meeting.discussed ?? []).length, count: names.length })}</p>
    <div class="meeting-agenda">
      <${Section} list="kpis" title=${t("kpis")} entries=${agenda.kpis} empty=${t("no_kpis")} total=${totals.kpis ?? 0} ...${shared} />
      <${Section} list="actions" title=${t("actions")} entries=${agenda.actions} empty=${t("no_actions")}
        total=${totals.actions ?? 0} ...${shared} />
      <${Section} list="escalations" title=${t("escalations")} entries=${agenda.escalations} empty=${t("no_escalations")}
        total=${totals.escalations ?? 0} ...${shared} />
      <${Created} t=${t} actions=${agenda.created} canLead=${canLead} onEscalate=${shared.onEscalate} />
    </div>
    <${CreateActionDialog} t=${t} open=${dialog?.kind === "create"} members=${members} onSubmit=${created} onClose=${close} />
    <${EscalateDialog} t=${t} open=${dialog?.kind === "escalate"} members=${members} onSubmit=${escalated} onClose=${close} />
    <${CompleteDialog} t=${t} open=${dialog?.kind === "complete"} onSubmit=${completed} onClose=${close} />
  <//>`;
}
