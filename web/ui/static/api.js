// The one way the app talks to the server: the public API, exactly as a third party calls it. Queries are
// tRPC GETs, mutations tRPC POSTs carrying an Idempotency-Key (so a retry after a lost reply, a 429 or a 503
// runs the write once), several queries of one screen go in one batch (one request against the rate
// limit), files are uploaded over REST, and the session routes (sign-in, sign-up, sign-out) are the REST
// routes that set the cookie. Every refusal becomes an ApiError with the server's code, status, message and
// the fields at fault. A 401 tells the shell the session is over (onSignedOut).

/** A refusal from the server, or the server being out of reach (status 0, code "NETWORK"). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {{field: string, message: string}[]} [details]
   * @param {number | null} [retryAfter]
   * @param {boolean} [secretWithheld] a retried write that had succeeded: its reply held a secret, which the
   *   server shows once and never replays (409, `secretWithheld: true`), so what it made exists unshown
   */
  constructor(status, code, message, details = [], retryAfter = null, secretWithheld = false) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
    this.secretWithheld = secretWithheld;
  }

  /** The message for one input field, if the server named it. */
  fieldMessage(field) {
    return this.details.find((detail) => detail.field === field)?.message ?? null;
  }
}

// Retries of a request the server could not take now (429, 503) or that never got an answer: how often,
// and the longest wait between two (a Retry-After above it means "not now": the person is told instead).
const RETRIES = 4;
const LONGEST_WAIT_MS = 10_000;
const signedOutListeners = new Set();

// A bearer credential (a wall screen's display link) used instead of the session cookie, or null.
let credential = null;

/** Send `Authorization: Bearer <token>` with every later call, and no cookie; live.js connects with it too. */
export function useCredential(token) {
  credential = token;
}

/** The bearer credential set by `useCredential`, or null (the session cookie is the credential). */
export function currentCredential() {
  return credential;
}

/** `init` with the bearer credential when one is set: its header, and no cookie (`credentials: "omit"`). */
function withCredential(init) {
  if (credential === null) return init;
  return { ...init, credentials: "omit", headers: { ...init.headers, Authorization: `Bearer ${credential}` } };
}

/** Call `listener` when the server answers 401: the session ended (signed out elsewhere, expired). */
export function onSignedOut(listener) {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** A fresh Idempotency-Key. crypto.randomUUID needs a secure context; plants often serve plain http. */
export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function retryAfter(response) {
  const seconds = Number(response.headers.get("Retry-After"));
  return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

function errorFrom(status, body, response) {
  const error = body?.error;
  const data = error?.data ?? error ?? {};
  const wait = response ? retryAfter(response) : null;
  if (!error) return new ApiError(status, status >= 500 ? "UNAVAILABLE" : "UNEXPECTED", `HTTP ${status}`, [], wait);
  return new ApiError(data.httpStatus ?? status, data.code ?? String(error.code ?? "ERROR"),
    error.message ?? `HTTP ${status}`, data.details ?? error.details ?? [], wait, data.secretWithheld === true);
}

async function parse(response) {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

const pause = (ms, signal) => new Promise((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
});

/**
 * Send `build()`'s request until it is answered for good; answers the parsed body or throws ApiError.
 * @param {() => [string, RequestInit]} build
 * @param {AbortSignal | undefined} signal
 */
async function send(build, signal) {
  for (let attempt = 0; ; attempt++) {
    let response;
    try {
      const [url, init] = build();
      response = await fetch(url, withCredential(init));
    } catch (failure) {
      if (signal?.aborted) throw failure;
      if (attempt >= RETRIES) throw new ApiError(0, "NETWORK", "The server cannot be reached.");
      await pause(500 * 2 ** attempt, signal);
      continue;
    }
    const body = await parse(response);
    if (response.ok && !(Array.isArray(body) ? false : body?.error)) return body;
    const error = errorFrom(response.status, body, response);
    const wait = (error.retryAfter ?? 0.5 * 2 ** attempt) * 1000;
    if ((response.status === 429 || response.status === 503) && attempt < RETRIES && wait <= LONGEST_WAIT_MS) {
      await pause(wait, signal);
      continue;
    }
    if (response.status === 401) signedOutListeners.forEach((listener) => listener(error));
    throw error;
  }
}

const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json" };

/**
 * A query procedure (tRPC GET).
 * @param {string} procedure
 * @param {object} [input]
 * @param {{signal?: AbortSignal}} [options]
 * @returns {Promise<any>}
 */
export async function query(procedure, input = {}, options = {}) {
  const url = `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
  const body = await send(() => [url, { headers: { Accept: "application/json" }, signal: options.signal }],
    options.signal);
  return body.result.data.json;
}

/**
 * A mutation procedure (tRPC POST), once however often it is retried.
 * @param {string} procedure
 * @param {object} [input]
 * @param {{idempotencyKey?: string, signal?: AbortSignal}} [options]
 * @returns {Promise<any>}
 */
export async function mutate(procedure, input = {}, options = {}) {
  const key = options.idempotencyKey ?? newKey();
  const init = { method: "POST", headers: { ...JSON_HEADERS, "Idempotency-Key": key },
    body: JSON.stringify({ json: input }), signal: options.signal };
  const body = await send(() => [`/api/trpc/${procedure}`, init], options.signal);
  return body.result.data.json;
}

/**
 * Several queries in one request (one count against the rate limit); answers their replies in order and
 * throws the first refusal.
 * @param {[string, object][]} calls
 * @param {{signal?: AbortSignal}} [options]
 * @returns {Promise<any[]>}
 */
export async function queryAll(calls, options = {}) {
  if (calls.length === 0) return [];
  const input = Object.fromEntries(calls.map(([, value], index) => [String(index), { json: value ?? {} }]));
  const url = `/api/trpc/${calls.map(([name]) => name).join(",")}?batch=1&input=${
    encodeURIComponent(JSON.stringify(input))}`;
  const body = await send(() => [url, { headers: { Accept: "application/json" }, signal: options.signal }],
    options.signal);
  return body.map((entry) => {
    if (entry.error) throw errorFrom(entry.error.data?.httpStatus ?? 400, entry, null);
    return entry.result.data.json;
  });
}

/**
 * A REST call (`/api/v1/...`): the session routes and the few that are not procedures.
 * @param {string} method
 * @param {string} path
 * @param {object | null} [body]
 * @returns {Promise<any>} the reply's `data`
 */
export async function rest(method, path, body = null) {
  const headers = { ...JSON_HEADERS, ...(method === "GET" ? {} : { "Idempotency-Key": newKey() }) };
  const init = { method, headers, body: body === null ? undefined : JSON.stringify(body) };
  const reply = await send(() => [path, init], undefined);
  return reply?.data ?? reply;
}

/**
 * Upload a file (multipart) for an item's file column or a comment; answers the file's record ({id, ...}).
 * @param {File} file
 * @param {Record<string, string>} [fields] other multipart fields the route takes
 * @param {{idempotencyKey?: string}} [options]
 * @returns {Promise<any>}
 */
export async function upload(file, fields = {}, options = {}) {
  const key = options.idempotencyKey ?? newKey();
  const reply = await send(() => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append("file", file);
    return ["/api/v1/files", { method: "POST", headers: { "Idempotency-Key": key, Accept: "application/json" },
      body: form }];
  }, undefined);
  return reply.data;
}

/**
 * Every page of a paged list, concatenated (a board's items: at most 200 per page).
 * @param {string} procedure
 * @param {object} input
 * @param {string} listField the reply's list (e.g. "items")
 * @param {(soFar: any[]) => void} [onPage] called after each page, to draw early
 * @returns {Promise<any[]>}
 */
export async function queryPages(procedure, input, listField, onPage) {
  const all = [];
  let cursor = null;
  do {
    const page = await query(procedure, { ...input, limit: 200, ...(cursor ? { cursor } : {}) });
    all.push(...page[listField]);
    onPage?.(all);
    cursor = page.nextCursor ?? null;
  } while (cursor);
  return all;
}
