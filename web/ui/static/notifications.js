// The signed-in person's notifications as the shell and the notifications screen see them: the unread count
// and the notifications that arrived live since the page opened (newest first). Fed by the private `user`
// room; each notification counted once, by id, however often it is delivered.
import { signal } from "./lib.js";
import { query } from "./api.js";
import { follow } from "./live.js";

export const unread = signal(0);
export const arrived = signal([]);
const seen = new Set();

async function load() {
  const reply = await query("notifications.unreadCount", {});
  unread.value = reply.count;
}

function apply(name, payload) {
  if (name !== "notification.created") return;
  const notification = payload.data;
  if (seen.has(notification.id)) return;
  seen.add(notification.id);
  arrived.value = [notification, ...arrived.value];
  if (!notification.read) unread.value += 1;
}

/** Start following the person's notifications (once per page). */
export function followNotifications() {
  return follow("user", apply, load);
}

/** Read the count again (after marking notifications read). */
export const refreshUnread = load;
