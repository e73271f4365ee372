// The page's one live connection (Socket.IO, same origin, the session cookie as credential) and the one
// dispatcher of server events (Zulip's server_events, Home Assistant's connection). A screen follows a room;
// live.js subscribes, tracks the room's last seq, drops what it already applied, and after a reconnect
// resumes with `since` so the events missed while away are applied exactly once and in order. When the
// server answers TOO_FAR_BEHIND the screen reloads its data instead. `connection` says whether the page hears
// the server and when it last did: the shell shows it, so stale data is never shown as current. A page whose
// socket has not connected shortly after it asked for a room (a proxy that refuses websockets, a server that is
// down) loads its data anyway, without live events (the banner says so); once the socket connects, the room
// subscribes and loads once more, so nothing that happened meanwhile is missed.
//
// Rooms: the private `user` room (notifications; joined by the server at connect) and at most one content
// room per page (`board:<id>`, `org`, `kpi:<id>` ...). Events carry their seq but not their room, so an
// event is the user room's when its name starts with "notification." and the content room's otherwise.
//
// A page with a bearer credential (api.js useCredential: a wall screen's display link) connects with it as
// `auth: {token}` instead of the cookie. Events without a seq (`display.revoked`) reach whoever `listen`s; a
// connection the server refuses as UNAUTHORIZED sets `refused`, and `close()` ends the connection for good.
import { io } from "./vendor/socket.io.mjs";
import { signal } from "./lib.js";
import { currentCredential } from "./api.js";

/** {status: "connecting" | "live" | "offline", lastHeard: number | null} (lastHeard: Date.now() ms). */
export const connection = signal({ status: "connecting", lastHeard: null });

/** The server's refusal of the connection ({code, message}) when it refused the credential, else null. */
export const refused = signal(null);

const USER_ROOM = "user";
// How long a room waits for the socket before its screen loads without it (the shell's banner shows at 2 s).
const UNCONNECTED_LOAD_MS = 2000;
/** @type {Map<string, Room>} */
const rooms = new Map();
let socket = null;
/** @type {Map<string, Set<(payload: any) => void>>} */
const listeners = new Map();

class Room {
  constructor(name, onEvent, load) {
    this.name = name;
    this.onEvent = onEvent;
    this.load = load;
    this.seq = null;          // the last seq applied; null until subscribed
    this.held = null;         // events kept while the screen loads its data, or null
    this.stopped = false;
    this.turn = Promise.resolve();  // the room's work (loads, subscribes), one after another
    this.unconnectedLoad = false;   // whether the screen loaded once without the socket
    this.ready = new Promise((resolve, reject) => { this.settle = { resolve, reject }; });
    this.ready.catch(() => {});  // a screen that does not await `ready` must not see an unhandled rejection
  }

  /** Run `work` once the room's earlier work is done: loads never overlap, so an older read never lands
   * after a newer one (two connects in a row, or a load without the socket still running when it connects). */
  queue(work) {
    this.turn = this.turn.then(work);
  }

  /** On every connect: the first time, subscribe and load; after a reconnect, resume from the last seq (or
   * reload when the server says the page is too far behind). A connection lost meanwhile is not an error:
   * the next connect starts again. */
  start() {
    this.queue(async () => {
      if (this.stopped || !socket?.connected) return;
      try {
        if (this.seq === null) await this.reload();
        else if (!(await this.subscribe(this.seq))) await this.reload();
        this.settle.resolve();
      } catch (error) {
        if (!socket?.connected || this.stopped) return;
        this.settle.reject(error);
        console.warn(`live: ${this.name}: ${error.message}`);
      }
    });
  }

  /** The socket has not connected in time: load the screen's data without live events, once. The connect
   * that follows finds `seq` null and reloads with the room subscribed. */
  startUnconnected() {
    if (this.unconnectedLoad || this.seq !== null) return;
    this.unconnectedLoad = true;
    this.queue(async () => {
      if (this.stopped || socket?.connected || this.seq !== null) return;
      try {
        await this.load();
        this.settle.resolve();
      } catch (error) {
        this.settle.reject(error);
        console.warn(`live: ${this.name}: ${error.message}`);
      }
    });
  }

  /** Subscribe from `since` (null: live from now); false when the server says we are too far behind. */
  async subscribe(since) {
    const answer = await socket.timeout(10_000).emitWithAck("subscribe",
      since === null ? { room: this.name } : { room: this.name, since });
    if (answer.ok) {
      if (since === null) this.seq = answer.seq;
      return true;
    }
    if (answer.error?.code === "TOO_FAR_BEHIND") {
      this.seq = null;
      return false;
    }
    throw Object.assign(new Error(answer.error?.message ?? "subscribe refused"), { code: answer.error?.code });
  }

  /** Subscribe live from now and run the screen's loader with live events held, then apply the held ones
   * (appliers are idempotent: an event may also be in what the loader read). */
  async reload() {
    this.held = [];
    try {
      this.seq = null;
      await this.subscribe(null);
      await this.load();
    } catch (error) {
      this.seq = null;  // the data was not read: the next connect loads again instead of resuming
      throw error;
    } finally {
      const held = this.held;
      this.held = null;
      for (const [name, payload] of held) this.onEvent(name, payload);
    }
  }

  deliver(name, payload) {
    if (this.seq === null || payload.seq <= this.seq) return;
    this.seq = payload.seq;
    if (this.held) this.held.push([name, payload]);
    else this.onEvent(name, payload);
  }
}

function heard() {
  connection.value = { ...connection.value, lastHeard: Date.now() };
}

function ensureSocket() {
  if (socket) return socket;
  // `timeout`: an attempt not through its handshake in 10 s is abandoned and retried. Socket.IO retries at once
  // only after an error; a websocket a proxy accepts and then closes before the handshake raises none, and
  // would otherwise wait out the default 20 s each time.
  const token = currentCredential();
  socket = io({ transports: ["websocket"], reconnectionDelay: 500, reconnectionDelayMax: 5000, timeout: 10_000,
    ...(token === null ? {} : { auth: { token } }) });
  socket.on("connect", () => {
    connection.value = { status: "live", lastHeard: Date.now() };
    // The user room is joined live at connect: resume it (and every content room) from the last seq seen.
    for (const room of rooms.values()) room.start();
  });
  socket.on("disconnect", () => { connection.value = { ...connection.value, status: "offline" }; });
  socket.on("connect_error", (error) => {
    connection.value = { ...connection.value, status: "offline" };
    if (error?.data?.code === "UNAUTHORIZED") refused.value = error.data;
    for (const room of rooms.values()) room.startUnconnected();
  });
  socket.io.on("ping", heard);
  socket.onAny((name, payload) => {
    heard();
    listeners.get(name)?.forEach((listener) => listener(payload));
    if (!payload || typeof payload.seq !== "number") return;
    const room = name.startsWith("notification.") ? rooms.get(USER_ROOM) : contentRoom();
    room?.deliver(name, payload);
  });
  return socket;
}

function contentRoom() {
  for (const room of rooms.values()) if (room.name !== USER_ROOM) return room;
  return undefined;
}

/**
 * Follow a room: `load()` reads the screen's data (it runs once the room is subscribed, with events held
 * meanwhile; again if the page falls too far behind; and, when the socket has not connected within 2 s, once
 * before that without live events); `onEvent(name, payload)` applies one event and must be idempotent.
 * Answers `{ready, stop}`: `ready` settles once the data is first loaded (live, or without the socket).
 * @param {string} name
 * @param {(name: string, payload: any) => void} onEvent
 * @param {() => Promise<void>} load
 */
export function follow(name, onEvent, load = async () => {}) {
  const previous = rooms.get(name);
  if (previous) stopFollowing(previous);
  const room = new Room(name, onEvent, load);
  rooms.set(name, room);
  ensureSocket();
  if (socket.connected) room.start();  // otherwise the connect handler starts it, or the wait runs out first
  else setTimeout(() => { if (!room.stopped && !socket?.connected) room.startUnconnected(); }, UNCONNECTED_LOAD_MS);
  return { ready: room.ready, stop: () => stopFollowing(room) };
}

function stopFollowing(room) {
  room.stopped = true;
  if (rooms.get(room.name) !== room) return;
  rooms.delete(room.name);
  if (socket?.connected && room.name !== USER_ROOM) socket.emit("unsubscribe", { room: room.name });
}

/**
 * Call `listener(payload)` for every server event named `name` (one without a seq, such as `display.revoked`,
 * reaches no room); answers the function that stops it.
 * @param {string} name
 * @param {(payload: any) => void} listener
 */
export function listen(name, listener) {
  if (!listeners.has(name)) listeners.set(name, new Set());
  listeners.get(name).add(listener);
  return () => listeners.get(name)?.delete(listener);
}

/** End the page's connection for good (no reconnecting): every room stops, the socket closes. */
export function close() {
  for (const room of [...rooms.values()]) stopFollowing(room);
  socket?.disconnect();
  socket = null;
  connection.value = { ...connection.value, status: "offline" };
}
