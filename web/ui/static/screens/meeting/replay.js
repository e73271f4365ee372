// A completed meeting's replay: the board as it was when the meeting started (its items by group with their main
// values, and the agenda's KPIs and actions) and a stepper through every change made to the board while the
// meeting ran. A step applies the change's payload, the same payload the live event carried, with the board
// screen's own store (screens/board/store.js) and the agenda's applier; a step back replays from the start, so
// no change needs an inverse. A meeting started before the board was recorded (`board` null) replays its
// agenda and its changes only, and says so.
import { html, useState, useEffect, useMemo } from "../../lib.js";
import { query } from "../../api.js";
import { dateTime, duration, time } from "../../format.js";
import { Page, Loading, LoadError } from "../../components/page.js";
import { createStore } from "../board/store.js";
import { CellValue } from "../board/cell_values.js";
import { agendaState, agendaApplied } from "./agenda.js";
import { describe } from "./describe.js";
import { ActionFacts, Entry, personName } from "./mode.js";

const PAGE = 500;
// The columns a replayed row shows beside the item's name: the board's first few, as its table starts.
const SHOWN_COLUMNS = 4;

async function readReplay(id) {
  let page = await query("meetings.replay", { id, limit: PAGE });
  const first = page;
  const changes = [...page.changes];
  while (page.nextCursor) {
    page = await query("meetings.replay", { id, cursor: page.nextCursor, limit: PAGE });
    changes.push(...page.changes);
  }
  return { meeting: first.meeting, board: first.board, changes };
}

/** The board, agenda and meeting marks after the first `step` changes, and the last change in words. */
function stateAt(t, replay, step) {
  const board = replay.board ? createStore(replay.board.id) : null;
  board?.load(replay.board, replay.board.items);
  let agenda = agendaState(replay.meeting.agenda);
  let marks = { current: null, discussed: [] };
  const lines = [];
  replay.changes.slice(0, step).forEach((change) => {
    lines.push(describe(t, change.name, change.payload, { board, agenda, meeting: marks }));
    board?.apply(change.name, change.payload);
    agenda = agendaApplied(agenda, change.name, change.payload?.data ?? {}, replay.meeting.startedAt);
    if (change.name === "meeting.updated" && change.payload?.data?.meeting) marks = change.payload.data.meeting;
  });
  return { board, agenda, marks, line: lines[lines.length - 1] ?? null };
}

function ReplayBoard({ t, board, changedItem, members }) {
  const columns = board.columns.value.slice(0, SHOWN_COLUMNS);
  const grouped = board.itemsByGroup.value;
  return html`<section class="replay-board" aria-labelledby="replay-board-title">
    <h2 id="replay-board-title">${t("boardThen", { name: board.board.value.name })}</h2>
    ${board.groups.value.map((group) => {
      const items = grouped.get(group.id) ?? [];
      return html`<div key=${group.id} class="replay-group">
        <table class="table replay-table">
          <caption>${group.name} <span class="meeting-section__count">${items.length}</span></caption>
          <thead><tr><th scope="col">${t("item")}</th>
            ${columns.map((column) => html`<th key=${column.id} scope="col">${column.name}</th>`)}</tr></thead>
          <tbody>${items.length ? items.map((item) => html`<tr key=${item.id}
              class=${item.id === changedItem ? "replay-row replay-row--changed" : "replay-row"}>
            <th scope="row">${item.name}${item.id === changedItem
              && html` <span class="chip replay-row__mark">${t("changedHere")}</span>`}</th>
            ${columns.map((column) => html`<td key=${column.id}><${CellValue} column=${column} value=${item.values?.[column.id]}
              members=${members} /></td>`)}
          </tr>`) : html`<tr><td colspan=${columns.length + 1} class="empty">${t("noItems")}</td></tr>`}</tbody>
        </table>
      </div>`;
    })}
  </section>`;
}

function ReplayAgenda({ t, agenda, marks }) {
  const entry = (list, value) => html`<${Entry} key=${value.id} t=${t} list=${list} entry=${value} meeting=${marks} readOnly />`;
  const lists = [["kpis", t("kpis"), agenda.kpis], ["actions", t("actions"), agenda.actions],
    ["escalations", t("escalations"), agenda.escalations]];
  return html`<section class="replay-agenda" aria-labelledby="replay-agenda-title">
    <h2 id="replay-agenda-title">${t("agendaThen")}</h2>
    ${lists.map(([list, title, entries]) => html`<div key=${list} class="meeting-section">
      <h3>${title} <span class="meeting-section__count">${entries.length}</span></h3>
      ${entries.length ? html`<ol class="meeting-entries">${entries.map((value) => entry(list, value))}</ol>`
        : html`<p class="empty">${t(`no_${list}`)}</p>`}
    </div>`)}
    ${agenda.created.length > 0 && html`<div class="meeting-section"><h3>${t("createdHere")}</h3>
      <ol class="meeting-entries">${agenda.created.map((action) => html`<li key=${action.id} class="meeting-entry meeting-entry--new">
        <div class="meeting-entry__head"><span class="meeting-entry__title">${action.title}</span></div>
        <${ActionFacts} t=${t} action=${action} /></li>`)}</ol></div>`}
  </section>`;
}

function Stepper({ t, step, count, change, line, startedAt, onStep }) {
  const position = t("stepOf", { step, count });
  return html`<section class="replay-stepper" aria-labelledby="replay-stepper-title">
    <h2 id="replay-stepper-title" class="visually-hidden">${t("stepper")}</h2>
    <div class="replay-stepper__controls">
      <button type="button" class="button button--secondary" disabled=${step === 0} onClick=${() => onStep(step - 1)}>
        <span aria-hidden="true">← </span>${t("previous")}</button>
      <input type="range" class="replay-stepper__range" min="0" max=${count} step="1" value=${step}
        aria-label=${t("stepLabel")} aria-valuetext=${position} disabled=${count === 0}
        onInput=${(event) => onStep(Number(event.currentTarget.value))} />
      <button type="button" class="button button--secondary" disabled=${step === count} onClick=${() => onStep(step + 1)}>
        ${t("next_change")}<span aria-hidden="true"> →</span></button>
    </div>
    <p class="replay-stepper__now" role="status">
      <strong>${position}</strong>
      ${change ? html` · <time datetime=${change.createdAt}>${time(change.createdAt)}</time>${" · "}
          <span class="replay-stepper__line">${line}</span>`
        : html` · ${t("atStart", { when: dateTime(startedAt) })}`}
    </p>
  </section>`;
}

function Facts({ t, meeting, members }) {
  const ran = meeting.completedAt ? new Date(meeting.completedAt).getTime() - new Date(meeting.startedAt).getTime() : 0;
  return html`<dl class="meeting-facts">
    <div><dt>${t("tier")}</dt><dd>${meeting.tier}</dd></div>
    <div><dt>${t("startedBy")}</dt><dd>${personName(t, members, meeting.startedBy)}</dd></div>
    <div><dt>${t("startedAt")}</dt><dd>${dateTime(meeting.startedAt)}</dd></div>
    <div><dt>${t("completedAt")}</dt><dd>${dateTime(meeting.completedAt)}</dd></div>
    <div><dt>${t("duration")}</dt><dd>${duration(ran)}</dd></div>
    ${meeting.notes && html`<div class="meeting-facts__wide"><dt>${t("notes")}</dt>
      <dd class="meeting-facts__notes">${meeting.notes}</dd></div>`}
  </dl>`;
}

export function Replay({ t, title, crumbs, meeting, members }) {
  const [replay, setReplay] = useState(null);
  const [error, setError] = useState(null);
  const [attempt, setAttempt] = useState(0);
  const [step, setStep] = useState(0);
  useEffect(() => {
    let gone = false;
    setError(null);
    readReplay(meeting.id).then((read) => !gone && setReplay(read), (failure) => !gone && setError(failure));
    return () => { gone = true; };
  }, [meeting.id, meeting.status, attempt]);
  const state = useMemo(() => replay && stateAt(t, replay, step), [replay, step]);

  const frame = (body) => html`<${Page} title=${title} breadcrumbs=${crumbs}>
    <${Facts} t=${t} meeting=${replay?.meeting ?? meeting} members=${members} />${body}<//>`;
  if (error) return frame(html`<${LoadError} title=${t("replayFailed")} error=${error} retryLabel=${t("retry")}
    onRetry=${() => setAttempt(attempt + 1)} />`);
  if (!replay || !state) return frame(html`<${Loading} label=${t("loadingReplay")} />`);
  const count = replay.changes.length;
  const change = step > 0 ? replay.changes[step - 1] : null;
  return frame(html`
    <${Stepper} t=${t} step=${step} count=${count} change=${change} line=${state.line} startedAt=${replay.meeting.startedAt}
      onStep=${(value) => setStep(Math.max(0, Math.min(count, value)))} />
    ${count === 0 && html`<p class="empty">${t("noChanges")}</p>`}
    ${!state.board && html`<p class="notice notice--info">${t("noSnapshot")}</p>`}
    ${replay.board?.truncated && html`<p class="notice notice--warning">${t("truncated", { count: replay.board.items.length })}</p>`}
    <div class="replay-layout">
      ${state.board && html`<${ReplayBoard} t=${t} board=${state.board} members=${members}
        changedItem=${change?.payload?.data?.item?.id ?? null} />`}
      <${ReplayAgenda} t=${t} agenda=${state.agenda} marks=${state.marks} />
    </div>`);
}
