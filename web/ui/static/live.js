// The page's one live connection (Socket.IO, same origin, the session cookie as credential) and the one
// dispatcher of server events (Zulip's server_events, Home Assistant's connection). A screen follows a room;
// live.js subscribes, tracks the room's last seq, drops what it already applied, and after a reconnect
// resumes with `since` so the events missed while away are applied exactly once and in order. When the
// server answers TOO_FAR_BEHIND the screen reloads its data instead. `connection` says whether the page hears
// the server and when it last did: the shell shows it, so stale data is never shown as current.
//
// Rooms: the private `user` room (notifications; joined by the server at connect) and at most one content
// room per page (`board:<id>`, `org`, `kpi:<id>` ...). Events carry their seq but not their room, so an
// event is the user room's when its name starts with "notification." and the content room's otherwise.
import { io } from "./vendor/socket.io.mjs";
import { signal } from "./lib.js";

/** {status: "connecting" | "live" | "offline", lastHeard: number | null} (lastHeard: Date.now() ms). */
export const connection = signal({ status: "connecting", lastHeard: null });

const USER_ROOM = "user";
/** @type {Map<string, Room>} */
const rooms = new Map();
let socket = null;

class Room {
  constructor(name, onEvent, load) {
    this.name = name;
    this.onEvent = onEvent;
    this.load = load;
    this.seq = null;          // the last seq applied; null until subscribed
    this.held = null;         // events kept while the screen loads its data, or null
    this.stopped = false;
    this.ready = new Promise((resolve, reject) => { this.settle = { resolve, reject }; });
    this.ready.catch(() => {});  // a screen that does not await `ready` must not see an unhandled rejection
  }

  /** On every connect: the first time, subscribe and load; after a reconnect, resume from the last seq (or
   * reload when the server says the page is too far behind). A connection lost meanwhile is not an error:
   * the next connect starts again. */
  async start() {
    try {
      if (this.seq === null) await this.reload();
      else if (!(await this.subscribe(this.seq))) await this.reload();
      this.settle.resolve();
    } catch (error) {
      if (!socket?.connected || this.stopped) return;
      this.settle.reject(error);
      console.warn(`live: ${this.name}: ${error.message}`);
    }
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
  socket = io({ transports: ["websocket"], reconnectionDelay: 500, reconnectionDelayMax: 5000 });
  socket.on("connect", () => {
    connection.value = { status: "live", lastHeard: Date.now() };
    // The user room is joined live at connect: resume it (and every content room) from the last seq seen.
    for (const room of rooms.values()) room.start();
  });
  socket.on("disconnect", () => { connection.value = { ...connection.value, status: "offline" }; });
  socket.on("connect_error", () => { connection.value = { ...connection.value, status: "offline" }; });
  socket.io.on("ping", heard);
  socket.onAny((name, payload) => {
    heard();
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
 * Follow a room: `load()` reads the screen's data (it runs once now, with events held meanwhile, and again
 * if the page falls too far behind); `onEvent(name, payload)` applies one event and must be idempotent.
 * Answers `{ready, stop}`: `ready` settles once the data is loaded and live.
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
  if (socket.connected) room.start();  // otherwise the connect handler starts it
  return { ready: room.ready, stop: () => stopFollowing(room) };
}

function stopFollowing(room) {
  room.stopped = true;
  if (rooms.get(room.name) !== room) return;
  rooms.delete(room.name);
  if (socket?.connected && room.name !== USER_ROOM) socket.emit("unsubscribe", { room: room.name });
}
