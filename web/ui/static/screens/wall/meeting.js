// The wall screen's meeting panel. With a meeting in progress: its tier, when it started, and its agenda (KPIs,
// actions due, escalations) with the entry under discussion highlighted and its timer running from
// `current.since`, the discussed entries ticked, and a button to complete it (pressed twice: a wall has no
// dialog a passer-by should meet). Without one: the tier to hold and a big button to start it. A display may
// start and complete meetings and nothing else; leading one (focus, discussed) is done from a person's screen.
import { html, useState, useEffect, useRef } from "../../lib.js";
import { mutate } from "../../api.js";
import { duration } from "../../format.js";
import { hourMinute } from "./panels.js";

const TIERS = [1, 2, 3, 4, 5];

function Entry({ t, entry, label, detail, meeting, now }) {
  const current = meeting.current?.entry === entry;
  const row = useRef(null);
  // The entry under discussion is brought into the panel's view (a long agenda is cut at the panel's foot).
  useEffect(() => { if (current) row.current?.scrollIntoView({ block: "nearest" }); }, [current]);
  const discussed = (meeting.discussed ?? []).includes(entry);
  const since = current ? duration(now - new Date(meeting.current.since).getTime()) : "";
  return html`<li class=${`wall-agenda__entry${current ? " wall-agenda__entry--current" : ""}${discussed
    ? " wall-agenda__entry--discussed" : ""}`} aria-current=${current ? "step" : undefined} ref=${row}>
    <span class="wall-agenda__tick" aria-hidden="true">${discussed ? "✓" : ""}</span>
    <span class="wall-agenda__label">${label}${detail && html` <span class="wall-agenda__detail">${detail}</span>`}</span>
    ${discussed && html`<span class="visually-hidden">${t("discussed")}</span>`}
    ${current && html`<span class="wall-agenda__timer"><span class="wall-agenda__now">${t("current")}</span>
      <span role="timer" aria-label=${t("elapsed", { time: since })}>${since}</span></span>`}
  </li>`;
}

function Agenda({ t, meeting, now }) {
  const agenda = meeting.agenda ?? {};
  const parts = [
    ["kpis", t("agendaKpis"), (kpi) => [kpi.name, kpi.status ? t(`status_${kpi.status}`) : ""]],
    ["actions", t("agendaActions"), (action) => [action.title, action.assignee?.name ?? t("unassigned")]],
    ["escalations", t("agendaEscalations"), (action) => [action.title,
      t("escalation", { level: action.escalationLevel })]],
  ].filter(([key]) => (agenda[key] ?? []).length > 0);
  if (parts.length === 0) return html`<p class="wall-empty">${t("agendaEmpty")}</p>`;
  return html`<div class="wall-agenda">${parts.map(([key, title, describe]) => html`<section key=${key}
    aria-labelledby=${`wall-agenda-${key}`}>
    <h3 id=${`wall-agenda-${key}`} class="wall-agenda__title">${title}</h3>
    <ol class="wall-agenda__list">${agenda[key].map((entry) => {
      const [label, detail] = describe(entry);
      return html`<${Entry} key=${entry.id} t=${t} entry=${`${key}/${entry.id}`} label=${label} detail=${detail}
        meeting=${meeting} now=${now} />`;
    })}</ol>
  </section>`)}</div>`;
}

/** A write of the panel (start, complete): busy while it runs, its refusal shown in the panel. */
function useWrite(t, onDone) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState(null);
  const run = async (procedure, input) => {
    setBusy(true);
    setProblem(null);
    try {
      onDone(await mutate(procedure, input));
    } catch (error) {
      if (error.status !== 401) setProblem(t("meetingFailed", { message: error.message }));
    } finally {
      setBusy(false);
    }
  };
  return { busy, problem, run };
}

function Start({ t, boardId, lastTier, onDone }) {
  const [tier, setTier] = useState(lastTier);
  const write = useWrite(t, onDone);
  return html`<div class="wall-start">
    <fieldset class="wall-tiers">
      <legend class="visually-hidden">${t("tier")}</legend>
      ${TIERS.map((value) => html`<label key=${value} class="wall-tiers__choice">
        <input type="radio" name="wall-tier" value=${value} checked=${tier === value}
          onChange=${() => setTier(value)} />
        <span>${t("tierN", { tier: value })}</span>
      </label>`)}
    </fieldset>
    <button type="button" class="wall-button wall-button--start" disabled=${write.busy}
      onClick=${() => write.run("meetings.start", { boardId, tier })}>
      ${write.busy ? t("starting") : t("startMeeting", { tier })}</button>
    ${write.problem && html`<p class="wall-problem" role="alert">${write.problem}</p>`}
  </div>`;
}

function InProgress({ t, meeting, now, onDone }) {
  const [confirming, setConfirming] = useState(false);
  const write = useWrite(t, onDone);
  const complete = () => {
    if (!confirming) return setConfirming(true);
    setConfirming(false);
    return write.run("meetings.complete", { id: meeting.id });
  };
  return html`<div class="wall-meeting__body">
    <p class="wall-meeting__started">${t("startedAt", { time: hourMinute(meeting.startedAt) })}</p>
    <${Agenda} t=${t} meeting=${meeting} now=${now.value} />
    <button type="button" class=${`wall-button wall-button--complete${confirming ? " wall-button--confirm" : ""}`}
      disabled=${write.busy} onClick=${complete} onBlur=${() => setConfirming(false)}>
      ${write.busy ? t("completing") : confirming ? t("completeConfirm", { tier: meeting.tier }) : t("completeMeeting")}
    </button>
    ${write.problem && html`<p class="wall-problem" role="alert">${write.problem}</p>`}
  </div>`;
}

/** `meeting`: the meeting in progress shown, or null; `now`: the page's clock (a signal, read only by the agenda
 * that shows the timer); `onChanged(meeting)` with a write's reply. */
export function Meeting({ t, boardId, meeting, lastTier, now, onChanged }) {
  return html`<section class=${`wall-panel wall-meeting${meeting ? " wall-meeting--live" : ""}`}
    aria-labelledby="wall-meeting-title">
    <h2 id="wall-meeting-title" class="wall-panel__title">${meeting ? t("meetingOf", { tier: meeting.tier })
      : t("meeting")}</h2>
    ${meeting ? html`<${InProgress} key=${meeting.id} t=${t} meeting=${meeting} now=${now} onDone=${onChanged} />`
      : html`<${Start} t=${t} boardId=${boardId} lastTier=${lastTier} onDone=${onChanged} />`}
  </section>`;
}
