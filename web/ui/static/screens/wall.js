// The tier-meeting wall screen (/screens/<display id>#<secret>): a page of its own, full screen and without the
// shell's chrome, read from five metres. Its credential is the display link's secret, kept in the URL fragment
// (so a reload works and it never reaches a server's logs) and sent only as the bearer credential of its calls
// and its socket. It asks displays.get which board it shows, reads the board (wall/store.js), follows the board
// room and redraws in place as events arrive. Once it has not heard the server for a few seconds it says since
// when; it reconnects by itself. A revoked link (the display.revoked event, a 401, a socket refused as
// UNAUTHORIZED) turns the screen dark with a plain message and ends the connection for good.
//
// Runs for months: one ticking interval for the whole page, every list bounded (wall/store.js), the charts and
// their observers destroyed with their cards.
import { html, render, signal, useEffect, useState } from "../lib.js";
import { query, useCredential, onSignedOut } from "../api.js";
import { connection, follow, listen, refused, close } from "../live.js";
import { catalogue } from "../i18n.js";
import { time, ago } from "../format.js";
import { createWallStore } from "./wall/store.js";
import { Letters, Kpis, Alerts, Actions, Items, hourMinute } from "./wall/panels.js";
import { Meeting } from "./wall/meeting.js";
import strings from "./wall.strings.js";

const t = catalogue(strings);
// Silence from the server longer than this is shown on screen (pings come every 25 s while connected; a lost
// connection is noticed at once and reported after this grace, so a blink does not flash a banner).
const SILENCE_MS = 3000;
// How long to wait before asking displays.get again after it failed for another reason than a revoked link.
const RETRY_MS = 5000;

/** The page's clock (ms), ticked once a second by the one interval `start` makes. */
const now = signal(Date.now());
/** Why the screen is dark: "revoked", "noSecret", or null while it works. */
const dark = signal(null);

function goDark(reason) {
  if (dark.value) return;
  dark.value = reason;
  close();
}

function Dark({ reason }) {
  useEffect(() => { document.title = t(reason); }, [reason]);
  return html`<main class="wall wall--dark">
    <h1 class="wall-dark__message">${t(reason)}</h1>
    ${reason === "revoked" && html`<p class="wall-dark__hint">${t("revokedHint")}</p>`}
  </main>`;
}

/** When the server was last heard, once that is a while ago. Only the loss is announced (the status region): the
 * line beside it changes every second and stays out of it, or a screen reader would read it every second. */
function LastHeard() {
  const { status, lastHeard } = connection.value;
  const silent = status !== "live" && now.value - (lastHeard ?? 0) > SILENCE_MS;
  return html`<div class="wall-heard">
    <p role="status" class="visually-hidden">${silent ? t("offline") : ""}</p>
    ${silent && html`<section class="wall-heard__text" aria-label=${t("connection")}>${lastHeard
      ? t("lastHeard", { time: time(lastHeard), ago: ago(new Date(lastHeard).toISOString(), now.value) })
      : t("neverHeard")}</section>`}
  </div>`;
}

function Clock() {
  return html`<p class="wall-header__clock"><span class="visually-hidden">${t("clock")}: </span>
    <time>${hourMinute(now.value)}</time></p>`;
}

function Board({ store, boardId, failed }) {
  const board = store.board.board.value;
  const kpis = [...store.kpis.value.values()];
  const meetings = [...store.meetings.value.values()].sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1));
  useEffect(() => { if (board) document.title = t("title", { board: board.name }); }, [board?.name]);
  const meeting = meetings[0] ?? null;
  const alerts = (shown) => html`<${Alerts} t=${t} alerts=${[...store.alerts.value.values()]} kpis=${store.kpis.value}
    shown=${shown} />`;
  // In a meeting the agenda takes the right-hand column and the alerts move beside the items.
  return html`<main class=${`wall${meeting ? " wall--meeting" : ""}`} aria-busy=${board ? "false" : "true"}>
    <header class="wall-header">
      <h1 class="wall-header__board">${board?.name ?? (failed ? t("loadFailed") : t("loading"))}</h1>
      <${LastHeard} />
      <${Clock} />
    </header>
    ${board && html`
      <${Letters} t=${t} kpis=${kpis} />
      <div class="wall-body">
        <section class="wall-panel wall-trends" aria-labelledby="wall-trends-title">
          <h2 id="wall-trends-title" class="visually-hidden">${t("kpis")}</h2>
          <${Kpis} t=${t} kpis=${kpis} histories=${store.histories.value} />
        </section>
        <div class="wall-side">
          <${Meeting} t=${t} boardId=${boardId} meeting=${meeting} lastTier=${store.lastTier.value}
            now=${now} onChanged=${store.meetingChanged} />
          <${Actions} t=${t} actions=${[...store.actions.value.values()]} now=${now} shown=${meeting ? 2 : 3} />
          ${!meeting && alerts(3)}
        </div>
        ${meeting && alerts(3)}
      </div>
      <${Items} t=${t} store=${store.board} />`}
  </main>`;
}

function Wall({ id }) {
  const [target, setTarget] = useState(null); // {boardId, store}
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [lost, setLost] = useState(false); // the server took the board's room away
  // Which board: asked until answered (a wall switched on before the server is up keeps trying).
  useEffect(() => {
    let timer = null;
    let stopped = false;
    const ask = () => query("displays.get", { id }).then((display) => {
      if (!stopped) setTarget({ boardId: display.boardId, store: createWallStore(display.boardId) });
    }, (error) => {
      if (stopped || error.status === 401) return;
      setFailed(true);
      timer = setTimeout(ask, RETRY_MS);
    });
    ask();
    return () => { stopped = true; clearTimeout(timer); };
  }, [id]);
  useEffect(() => {
    if (!target) return undefined;
    const { store, boardId } = target;
    const onEvent = (name, payload) => {
      if (store.apply(name, payload)) store.reloadItems().catch(() => {});
    };
    let timer = null;
    const following = follow(`board:${boardId}`, onEvent, async () => {
      await store.load();
      setFailed(false);
      setLost(false);
    });
    // A first load that failed (the server busy, a board read refused for a moment) is tried again, as a wall
    // has nobody to press "Try again"; a revoked link darkens the page instead (a 401 reaches onSignedOut).
    following.ready.catch(() => {
      setFailed(true);
      timer = setTimeout(() => setAttempt((n) => n + 1), RETRY_MS);
    });
    // The server took the board's room away (the board deleted, or out of its creator's sight now): what is on
    // screen would no longer change, so it goes, and the room is asked for again until it is given back.
    const unlisten = listen("access.revoked", (payload) => {
      if (payload?.room !== `board:${boardId}`) return;
      setLost(true);
      clearTimeout(timer);
      timer = setTimeout(() => setAttempt((n) => n + 1), RETRY_MS);
    });
    return () => { unlisten(); clearTimeout(timer); following.stop(); };
  }, [target, attempt]);
  if (!target || lost) return html`<main class="wall wall--waiting"><p class="wall-waiting">${lost ? t("lostBoard")
    : failed ? t("loadFailed") : t("loading")}</p></main>`;
  return html`<${Board} store=${target.store} boardId=${target.boardId} failed=${failed} />`;
}

function Page({ id }) {
  return dark.value ? html`<${Dark} reason=${dark.value} />` : html`<${Wall} id=${id} />`;
}

function stylesheet(href) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  document.head.append(link);
}

/** The secret in the URL's fragment; "" when there is none or it is not a link's (a copy cut mid-escape). */
function fragmentSecret() {
  try {
    return decodeURIComponent(window.location.hash.slice(1));
  } catch {
    return "";
  }
}

/** Draw the wall screen of display `id` into `root`, the whole page. */
export function start(root, { id }) {
  const secret = fragmentSecret();
  stylesheet("/ui/vendor/uplot.css");
  stylesheet("/ui/screens/wall.css");
  document.body.classList.add("wall-page");
  if (!secret) dark.value = "noSecret";
  else {
    useCredential(secret);
    onSignedOut(() => goDark("revoked"));
    listen("display.revoked", (payload) => { if (!payload || payload.id === id) goDark("revoked"); });
    refused.subscribe((refusal) => { if (refusal) goDark("revoked"); });
    const ticking = setInterval(() => {
      if (dark.value) clearInterval(ticking);
      else now.value = Date.now();
    }, 1000);
  }
  render(html`<${Page} id=${id} />`, root);
}
