// A tier meeting ("/meetings/<id>"): while it is in progress, the meeting itself (screens/meeting/mode.js: the
// agenda with the entry under discussion and its timer, discussed marks, actions created and escalated on the
// spot, completing it); once completed, its replay (screens/meeting/replay.js: the board as it was at the start
// and every change made during the meeting, step by step). Follows the board's room while in progress, so what
// anyone changes (another person, the wall screen, a tablet) shows at once; a completion seen live turns the
// page into the replay.
import { html, useState, useEffect } from "../lib.js";
import { query, queryAll } from "../api.js";
import { follow } from "../live.js";
import { boardPath } from "../links.js";
import { catalogue } from "../i18n.js";
import { Page, Loading, LoadError } from "../components/page.js";
import { agendaState, agendaApplied, agendaRefreshed } from "./meeting/agenda.js";
import { MeetingMode } from "./meeting/mode.js";
import { Replay } from "./meeting/replay.js";
import strings from "./meeting.strings.js";

const t = catalogue(strings);
const MEMBERS = 200;
const ACTIONS = 200;

/** KPIs are a plan feature: on a plan without them the agenda lists none and there is nothing to refresh. */
const boardKpis = (boardId) => query("kpis.list", { boardId, limit: 100 }).then((page) => page.kpis ?? [], () => []);

async function read(id, boardId) {
  const [meeting, { members }, board, { actions }] = await queryAll([["meetings.get", { id }],
    ["organizations.members.list", { limit: MEMBERS }], ["boards.get", { id: boardId }],
    ["actions.list", { boardId, limit: ACTIONS }]]);
  const kpis = meeting.status === "in_progress" ? await boardKpis(boardId) : [];
  const agenda = agendaRefreshed(agendaState(meeting.agenda), actions, kpis, meeting.startedAt);
  return { meeting, members, board: { id: board.id, name: board.name }, agenda, heard: 0 };
}

/** The page's state after one event of the board's room (`heard` counts the meeting's own events). */
function applied(data, name, payload) {
  const event = payload?.data ?? {};
  if (name.startsWith("meeting.")) {
    const meeting = event.meeting;
    return meeting?.id === data.meeting.id
      ? { ...data, meeting: { ...data.meeting, ...meeting }, heard: data.heard + 1 } : data;
  }
  const agenda = agendaApplied(data.agenda, name, event, data.meeting.startedAt);
  return agenda === data.agenda ? data : { ...data, agenda };
}

export default function Meeting({ params }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [attempt, setAttempt] = useState(0);
  const id = params.id;

  useEffect(() => {
    setError(null);
    setData(null);
    let following = null;
    let stopped = false;
    query("meetings.get", { id }).then((first) => {
      if (stopped) return;
      following = follow(`board:${first.boardId}`, (name, payload) => setData((old) => old && applied(old, name, payload)),
        async () => setData(await read(id, first.boardId)));
      following.ready.catch(setError);
    }, setError);
    return () => { stopped = true; following?.stop(); };
  }, [id, attempt]);

  if (error) return html`<${Page} title=${t("title")}><${LoadError} title=${t("loadFailed")} error=${error}
    retryLabel=${t("retry")} onRetry=${() => setAttempt(attempt + 1)} /><//>`;
  if (!data) return html`<${Page} title=${t("title")}><${Loading} label=${t("loading")} /><//>`;

  const { meeting, board } = data;
  const title = t(meeting.status === "in_progress" ? "titleTier" : "replayTitle", { tier: meeting.tier });
  const crumbs = [[t("home"), "/"], [board.name, boardPath(board.id)], [title]];
  if (meeting.status !== "in_progress") {
    return html`<${Replay} t=${t} title=${title} crumbs=${crumbs} meeting=${meeting} members=${data.members} />`;
  }
  return html`<${MeetingMode} t=${t} title=${title} crumbs=${crumbs} data=${data}
    onChange=${(change) => setData((old) => old && change(old))} />`;
}
