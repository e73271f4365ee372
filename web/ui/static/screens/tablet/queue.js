// The write queue: every write the tablet makes is an entry in IndexedDB before the screen says it is queued,
// sent later in the order it was made (sync.js). An entry is a procedure call or a photo upload:
//   {seq, key, kind: "call" | "upload", procedure?, input?, blob?, fileName?, createdAt, userId, state, problem?}
// `key` is its Idempotency-Key, made once here, so every attempt to send it is the same write to the server.
// `state` is "waiting", or "stopped" once the server refused it (a conflict, a refusal): a stopped entry waits
// for the person to discard it or send it again, and nothing after it is sent meanwhile (later writes may
// build on it). An input may refer to what an earlier entry's answer holds, `{$ref: key, path}` (the id of an
// audit started offline, the address of a photo uploaded before its score); it is filled in just before
// sending, from the answers kept in `results`.
import { signal } from "../../lib.js";
import { newKey } from "../../api.js";
import { transact, result, all, QUEUE, RESULTS, KEPT, LAST_SYNC } from "./store.js";

// Who is signed in: each entry records who made it, and is sent only with that person's session (a tablet at
// the line is shared between shifts). Offline, the tablet takes the person it kept; it sends nothing until the
// server has confirmed who is signed in (auth.me), as the session may have changed since.
let person = null;
let confirmed = false;

/** The person whose writes are queued from now on (auth.me's id), `sure` once the server said so. */
export function setPerson(id, sure = false) {
  if (id !== person) confirmed = false;
  person = id;
  if (sure) confirmed = true;
}

export const currentPerson = () => person;
export const personConfirmed = () => confirmed;

/** The queue, oldest first: read from IndexedDB by load(), then kept in step by each change made here. */
export const entries = signal(/** @type {any[]} */ ([]));
/** Whether the queue was read yet (until then the screen cannot say what waits). */
export const loaded = signal(false);

// How long the answer of a sent write is kept for later writes that refer to it: a tap made just after the
// write it builds on went through still finds its answer (the screen learns it a moment later).
const ANSWER_KEPT_MS = 60 * 60 * 1000;

/** Read the queue into `entries` (at start, and before each drain: another tab may have queued writes), and
 * forget the answers no queued write refers to any more once they are an hour old. */
export async function load() {
  entries.value = await all(QUEUE);
  loaded.value = true;
  const needed = new Set(entries.value.flatMap((entry) => [...refsIn(entry.input)]));
  const before = Date.now() - ANSWER_KEPT_MS;
  await transact([RESULTS], "readwrite", (stores) => {
    const request = stores[RESULTS].openCursor();
    request.onsuccess = () => {
      const cursor = request.result;
      if (!cursor) return;
      if (!needed.has(cursor.key) && cursor.value.at < before) cursor.delete();
      cursor.continue();
    };
  });
  return entries.value;
}

/** A value taken from an earlier entry's answer when the write is sent. */
export function ref(key, path) {
  return { $ref: key, path };
}

const isRef = (value) => value !== null && typeof value === "object" && typeof value.$ref === "string";

/** The keys of the entries `value` refers to. */
function refsIn(value, found = new Set()) {
  if (isRef(value)) found.add(value.$ref);
  else if (Array.isArray(value)) value.forEach((entry) => refsIn(entry, found));
  else if (value !== null && typeof value === "object") Object.values(value).forEach((entry) => refsIn(entry, found));
  return found;
}

/** `value` with every reference replaced by the answer it names; throws when an answer is missing. */
export function resolve(value, answers) {
  if (isRef(value)) {
    const answer = answers.get(value.$ref);
    if (answer === undefined) throw new Error(`no answer kept for ${value.$ref}`);
    return answer[value.path];
  }
  if (Array.isArray(value)) return value.map((entry) => resolve(entry, answers));
  if (value !== null && typeof value === "object" && !(value instanceof Blob)) {
    return Object.fromEntries(Object.entries(value).map(([name, entry]) => [name, resolve(entry, answers)]));
  }
  return value;
}

/** A procedure call to queue. */
export function call(procedure, input) {
  return { kind: "call", key: newKey(), procedure, input };
}

/** A photo upload to queue (its answer is the file: {id, url, ...}). */
export function upload(blob, fileName) {
  return { kind: "upload", key: newKey(), blob, fileName };
}

/**
 * Put `writes` (from call() and upload()) at the end of the queue in one transaction; resolves once they are on
 * disk. `apply(stores)` may change other records of the same transaction (a draft), so both land or neither.
 * @param {any[]} writes
 * @param {(stores: Record<string, IDBObjectStore>) => void} [apply]
 * @param {string[]} [also] the other stores `apply` writes
 */
export async function enqueue(writes, apply, also = []) {
  const createdAt = new Date().toISOString();
  const added = writes.map((write) => ({ ...write, createdAt, state: "waiting", userId: person }));
  await transact([QUEUE, ...also], "readwrite", (stores) => {
    for (const entry of added) result(stores[QUEUE].add(entry)).then((seq) => { entry.seq = seq; });
    apply?.(stores);
  });
  entries.value = [...entries.value, ...added];
}

/** The answers kept for the keys `entry` refers to. */
export async function answersFor(entry) {
  const keys = [...refsIn(entry.input)];
  const answers = new Map();
  if (keys.length === 0) return answers;
  await transact([RESULTS], "readonly", (stores) => {
    for (const key of keys) {
      result(stores[RESULTS].get(key)).then((kept) => { if (kept) answers.set(key, kept.answer); });
    }
  });
  return answers;
}

/** `entry` was applied at `at` (ISO): drop it, keep its answer for later entries that refer to it and note the
 * time of the last sync, all in one transaction. */
export async function done(entry, answer, at) {
  await transact([QUEUE, RESULTS, KEPT], "readwrite", (stores) => {
    stores[QUEUE].delete(entry.seq);
    stores[RESULTS].put({ answer: answer ?? null, at: Date.parse(at) }, entry.key);
    stores[KEPT].put(at, LAST_SYNC);
  });
  entries.value = entries.value.filter((other) => other.seq !== entry.seq);
}

const replace = (entry) => { entries.value = entries.value.map((other) => (other.seq === entry.seq ? entry : other)); };

/** The server refused `entry` for good: it waits for the person, with what the server said. */
export async function stop(entry, problem) {
  const stopped = { ...entry, state: "stopped", problem };
  await transact([QUEUE], "readwrite", (stores) => { stores[QUEUE].put(stopped); });
  replace(stopped);
}

/** Send a stopped entry again as it is, with its key: the server keeps no answer of a refused write, so the
 * key runs the write again, and later entries still find its answer under it. */
export async function sendAgain(entry) {
  const { problem, ...rest } = entry;
  const waiting = { ...rest, state: "waiting" };
  await transact([QUEUE], "readwrite", (stores) => { stores[QUEUE].put(waiting); });
  replace(waiting);
}

/** Discard `entry` and every later entry that builds on its answer (they cannot be sent without it). */
export async function discard(entry) {
  const gone = new Set([entry.key]);
  const dropped = [];
  for (const other of entries.value) {
    if (other.seq === entry.seq || [...refsIn(other.input)].some((key) => gone.has(key))) {
      gone.add(other.key);
      dropped.push(other.seq);
    }
  }
  await transact([QUEUE], "readwrite", (stores) => { dropped.forEach((seq) => stores[QUEUE].delete(seq)); });
  entries.value = entries.value.filter((other) => !dropped.includes(other.seq));
  return dropped.length;
}
