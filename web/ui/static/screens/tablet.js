// The shop-floor tablet (/tablet): a standalone page for the person at the line, gloves on, on flaky Wi-Fi.
// It shows their board's work for today (checklists, 5S audits, their KPIs' value entry, the published forms)
// from what it keeps in IndexedDB, reads it again from the server whenever it can, and queues every write
// (tablet/queue.js) to be sent in order when the network allows (tablet/sync.js). A service worker
// (/tablet-sw.js) keeps the page and its modules, so the tablet opens with no network at all.
import { html, render, useEffect, useRef, useState } from "../lib.js";
import { catalogue } from "../i18n.js";
import strings from "./tablet.strings.js";
import { read, keep } from "./tablet/store.js";
import { load as loadQueue, entries, setPerson, currentPerson, personConfirmed } from "./tablet/queue.js";
import { sync, startSync, onSent, onDrained, heard, drain } from "./tablet/sync.js";
import { readMe, chosenBoard, chooseBoard, keptBoard, readBoard } from "./tablet/data.js";
import { Checklists, readDrafts, draftKey } from "./tablet/checklists.js";
import { Audits, readAudits, learnKept } from "./tablet/audits.js";
import { Kpis } from "./tablet/kpis.js";
import { Forms } from "./tablet/forms.js";
import { PickBoard } from "./tablet/pick.js";
import { StatusBar } from "./tablet/status.js";
import { StoppedWrites } from "./tablet/stopped.js";

const t = catalogue(strings);
const EMPTY_DRAFT = { checked: {}, comments: {} };
const TABS = ["checklists", "audits", "kpis", "forms"];
// The cache tablet-sw.js answers from (the same name there).
const SHELL_CACHE = "obeya-tablet-shell-v1";

/** Whether the service worker has the page and its modules (so the tablet opens offline). */
const shellKept = { value: false, listeners: new Set() };

/** Register the service worker and put the page's own files (what it loaded under /ui/) in the cache it
 * answers from when there is no network. The page fills the cache itself: on the first visit it loaded them
 * before the worker existed, and its Cache Storage is the worker's. */
function keepShell() {
  if (!("serviceWorker" in navigator) || !("caches" in window)) return;
  const urls = [window.location.pathname, ...performance.getEntriesByType("resource").map((entry) => entry.name)
    .filter((url) => new URL(url).origin === window.location.origin && new URL(url).pathname.startsWith("/ui/"))];
  navigator.serviceWorker.register("/tablet-sw.js", { scope: "/tablet" })
    .then(() => caches.open(SHELL_CACHE))
    // Only what the cache lacks: the worker refreshes what it has on every load it answers from the network.
    .then((cache) => Promise.all(urls.map(async (url) => (await cache.match(url)) ?? cache.add(url))))
    .then(() => {
      shellKept.value = true;
      shellKept.listeners.forEach((listener) => listener());
    })
    .catch((error) => console.warn("the tablet cannot keep its files for offline use", error));
}

function Tablet() {
  const [state, setState] = useState({ phase: "starting", me: null, boardId: null, data: null });
  const [tab, setTab] = useState("checklists");
  const [message, setMessage] = useState("");
  const [offlineReady, setOfflineReady] = useState(shellKept.value);
  const [, setDrawn] = useState(0);
  const redraw = () => setDrawn((count) => count + 1);
  const current = useRef({ me: null, boardId: null, shown: false });
  const drafts = useRef({});
  const audits = useRef({});

  async function show(boardId, me, data) {
    setPerson(me.id);
    drafts.current = await readDrafts(data.checklists);
    audits.current = await readAudits(data.audits, data.sessions, entries.value);
    current.current = { me, boardId, shown: true };
    setState({ phase: "ready", me, boardId, data });
  }

  /** Read the board again when the network allows; the kept data stays on screen otherwise. */
  async function refresh() {
    let { me, boardId } = current.current;
    if (!navigator.onLine || !me || !boardId) return;
    try {
      // Started offline: learn who is signed in now before anything is sent or read for them.
      if (!personConfirmed()) {
        me = await readMe();
        setPerson(me.id, true);
        current.current = { ...current.current, me };
      }
      const data = await readBoard(boardId, me);
      await heard();
      await show(boardId, me, data);
      drain();
    } catch (error) {
      if (error.status === 401) sync.value = { ...sync.value, signedOut: true };
      // The board is gone or no longer the person's: pick another (the kept data stays until then).
      if (error.status === 403 || error.status === 404) setState((before) => ({ ...before, phase: "pick" }));
    }
  }

  /** After the person discarded writes: the audits in hand are read again (one may have lost its start). */
  async function discarded(count) {
    setMessage(t("discarded", { count }));
    const { me, boardId } = current.current;
    const data = boardId ? await keptBoard(boardId) : undefined;
    if (data) await show(boardId, me, data);
    await refresh();
  }

  async function boot() {
    await loadQueue();
    await startSync();
    let me = await read("me");
    const boardId = await chosenBoard();
    current.current = { me, boardId, shown: false };
    const kept = me && boardId ? await keptBoard(boardId) : undefined;
    if (kept) await show(boardId, me, kept);
    let fresh = false;
    if (navigator.onLine) {
      try {
        me = await readMe();
        fresh = true;
        await heard();
      } catch (error) {
        if (error.status === 401) {
          sync.value = { ...sync.value, signedOut: true };
          if (!kept) setState({ phase: "signedOut", me: null, boardId, data: null });
          return;
        }
      }
    }
    current.current = { ...current.current, me, boardId };
    if (me) {
      setPerson(me.id, fresh);
      if (fresh) drain();
    }
    if (!me) setState({ phase: "neverOnline", me: null, boardId, data: null });
    else if (!boardId) setState({ phase: "pick", me, boardId: null, data: null });
    else {
      await refresh();
      if (!current.current.shown) {
        setState({ phase: "neverOnline", me, boardId, data: null });
      }
    }
  }

  useEffect(() => {
    shellKept.listeners.add(() => setOfflineReady(true));
    boot();
    const stops = [
      onSent(async (entry, answer) => {
        const record = await learnKept(entry, answer);
        if (record && entry.userId === currentPerson()) {
          audits.current = { ...audits.current, [entry.audit]: record };
          redraw();
        }
      }),
      onDrained(() => refresh()),
    ];
    const online = () => refresh();
    window.addEventListener("online", online);
    return () => {
      stops.forEach((stop) => stop());
      window.removeEventListener("online", online);
    };
  }, []);

  const changeDraft = (checklist, patch) => {
    const before = drafts.current[checklist.id] ?? EMPTY_DRAFT;
    const next = patch(before);
    if (next !== before) {
      drafts.current = { ...drafts.current, [checklist.id]: next };
      keep(draftKey(checklist), next);
      redraw();
    }
    return next;
  };
  // The audit in hand of a checklist: answered for `next` null, else replaced; the screen redrawn when `draw`.
  const changeAudit = (checklistId, next, { draw = true } = {}) => {
    if (next !== null) audits.current = { ...audits.current, [checklistId]: next };
    if (draw) redraw();
    return audits.current[checklistId];
  };
  const pick = async (boardId) => {
    await chooseBoard(boardId);
    current.current = { ...current.current, boardId };
    setState({ ...state, phase: "loading", boardId });
    await refresh();
  };

  const { phase, data, me } = state;
  const signedOut = sync.value.signedOut;
  return html`<div class="tablet">
    <${StatusBar} t=${t} boardName=${data?.board.name} readAt=${data?.readAt} offlineReady=${offlineReady}
      onChangeBoard=${phase === "ready" ? () => setState({ ...state, phase: "pick" }) : null} />
    <main id="main" class="tablet-main">
      ${signedOut && html`<p class="notice notice--warning tablet-signed-out" role="alert">${t("signedOut")}
        <a class="button button--primary tablet-big" href="/signin">${t("signIn")}</a></p>`}
      ${sync.value.heldForOther && html`<p class="notice notice--warning" role="alert">${t("heldForOther")}</p>`}
      <p role="status" class="tablet-message">${message}</p>
      <${StoppedWrites} t=${t} me=${me} onResolved=${discarded} />
      ${(phase === "starting" || phase === "loading") && html`<p class="loading">${t("loading")}</p>`}
      ${phase === "neverOnline" && html`<p class="tablet-empty">${t("neverOnline")}</p>`}
      ${phase === "pick" && html`<${PickBoard} t=${t} onPick=${pick}
        onCancel=${data ? () => setState({ ...state, phase: "ready" }) : null} />`}
      ${phase === "ready" && html`<${Work} data=${data} tab=${tab} onTab=${setTab} drafts=${drafts.current}
        audits=${audits.current} onDraft=${changeDraft} onAudit=${changeAudit} />`}
    </main>
  </div>`;
}

function Work({ data, tab, onTab, drafts, audits, onDraft, onAudit }) {
  const counts = { checklists: data.checklists.length, audits: data.audits.length, kpis: data.kpis.length,
    forms: data.forms.length };
  return html`<nav class="tablet-tabs" aria-label=${t("sections")}>
      ${TABS.map((name) => html`<button type="button" class="tablet-tab" aria-pressed=${tab === name ? "true" : "false"}
        onClick=${() => onTab(name)}>${t(`${name}Tab`, { count: counts[name] })}</button>`)}
    </nav>
    <section class="tablet-section" aria-label=${t(`${tab}Tab`, { count: counts[tab] })}>
      ${tab === "checklists" && html`<${Checklists} t=${t} checklists=${data.checklists} drafts=${drafts}
        onDraft=${onDraft} />`}
      ${tab === "audits" && html`<${Audits} t=${t} boardId=${data.board.id} audits=${data.audits} records=${audits}
        onRecord=${onAudit} />`}
      ${tab === "kpis" && html`<${Kpis} t=${t} kpis=${data.kpis} />`}
      ${tab === "forms" && html`<${Forms} t=${t} forms=${data.forms} />`}
    </section>`;
}

/** Draw the tablet into `root` (app.js calls this for /tablet). */
export async function start(root) {
  document.title = t("title");
  keepShell();
  render(html`<${Tablet} />`, root);
}
