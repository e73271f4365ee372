// Sending the queue (queue.js): oldest entry first, one at a time, each with its own Idempotency-Key, so a
// write whose answer was lost and is sent again runs once. It drains when the network comes back (the
// `online` event), when something is queued, after a write that went through, and on a retry timer that
// backs off (2 s doubling to a minute) while the server cannot be reached. A refusal stops the entry (queue.js
// stop) and the queue waits for the person; a 401 stops everything until they sign in again, and so does a
// write made by another person than the one signed in now (it waits for them). One page drains
// at a time (a Web Lock), so two tabs never send the same entry at once.
import { signal } from "../../lib.js";
import { ApiError, mutate, upload } from "../../api.js";
import { read, keep, LAST_SYNC } from "./store.js";
import { entries, load, answersFor, resolve, done, stop, currentPerson, personConfirmed } from "./queue.js";

/** {lastSync: ISO | null, sending, online, signedOut, heldForOther, retryAt: ms | null}; `heldForOther`: the
 * next write was made by someone else than the person signed in now, and waits for them. */
export const sync = signal({ lastSync: null, sending: false, online: navigator.onLine, signedOut: false,
  heldForOther: false, retryAt: null });

const FIRST_RETRY_MS = 2000;
const LONGEST_RETRY_MS = 60_000;
let failures = 0;
let timer = null;
let running = null;
let again = false;
/** @type {Set<(entry: any, answer: any) => void>} */
const sentListeners = new Set();
/** @type {Set<() => void>} */
const drainedListeners = new Set();

const update = (change) => { sync.value = { ...sync.value, ...change }; };

/** Call `listener(entry, answer)` after each entry the server applied. */
export function onSent(listener) {
  sentListeners.add(listener);
  return () => sentListeners.delete(listener);
}

/** Call `listener()` when a drain emptied the queue. */
export function onDrained(listener) {
  drainedListeners.add(listener);
  return () => drainedListeners.delete(listener);
}

// Worth another try later: the server out of reach, busy or failing. Anything else is its answer.
const transient = (error) => error instanceof ApiError
  && (error.status === 0 || error.status === 429 || error.status >= 500);

async function send(entry) {
  const answers = await answersFor(entry);
  if (entry.kind === "upload") {
    const file = new File([entry.blob], entry.fileName, { type: entry.blob.type });
    return upload(file, {}, { idempotencyKey: entry.key });
  }
  return mutate(entry.procedure, resolve(entry.input, answers), { idempotencyKey: entry.key });
}

function retryLater() {
  clearTimeout(timer);
  const wait = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures);
  failures += 1;
  update({ retryAt: Date.now() + wait });
  timer = setTimeout(() => { drain(); }, wait);
}

async function drainHere() {
  update({ sending: true });
  let sentAny = false;
  try {
    await load();
    for (;;) {
      const [head] = entries.value;
      if (!head) {
        update({ heldForOther: false });
        if (sentAny) drainedListeners.forEach((listener) => listener());
        return;
      }
      // Not known yet who is signed in (the page started offline): nothing is sent in anyone's name.
      if (head.state === "stopped" || !currentPerson() || !personConfirmed()) return;
      const heldForOther = Boolean(head.userId && head.userId !== currentPerson());
      update({ heldForOther });
      if (heldForOther) return;
      let answer;
      try {
        answer = await send(head);
      } catch (error) {
        if (error?.status === 401) {
          update({ signedOut: true });
        } else if (transient(error)) {
          retryLater();
        } else {
          // A refusal; or an answer it builds on that is gone (nothing to send it with): the person decides.
          await stop(head, { status: error.status ?? 0, code: error.code ?? "LOCAL", message: error.message,
            details: error.details ?? [] });
        }
        return;
      }
      const at = new Date().toISOString();
      await done(head, answer, at);
      sentAny = true;
      heardAt(at);
      sentListeners.forEach((listener) => listener(head, answer));
    }
  } finally {
    update({ sending: false });
  }
}

/** The server answered (a write went through, the data was read): note the time, stop backing off. */
export async function heard() {
  const at = new Date().toISOString();
  await keep(LAST_SYNC, at);
  heardAt(at);
}

function heardAt(lastSync) {
  failures = 0;
  clearTimeout(timer);
  update({ lastSync, retryAt: null, signedOut: false });
}

/** Send what is queued, unless offline; resolves when this drain stopped. A call while a drain runs makes it run
 * once more after (the running one may already have found the queue empty). */
export function drain() {
  if (!navigator.onLine) return Promise.resolve();
  if (running) {
    again = true;
    return running;
  }
  again = false;
  const locks = navigator.locks;
  running = (locks ? locks.request("obeya-tablet-sync", drainHere) : drainHere())
    .finally(() => {
      running = null;
      if (again) drain();
    });
  return running;
}

/** Follow the network (the page drains once it knows who is signed in); answers a stop function. */
export async function startSync() {
  update({ lastSync: (await read(LAST_SYNC)) ?? null });
  const online = () => { update({ online: true }); failures = 0; drain(); };
  const offline = () => update({ online: false });
  window.addEventListener("online", online);
  window.addEventListener("offline", offline);
  return () => {
    window.removeEventListener("online", online);
    window.removeEventListener("offline", offline);
    clearTimeout(timer);
  };
}
