// The signed-in person's notifications as the shell and the notifications screen see them: the unread count
// and the notifications that arrived live since the page opened (newest first). Fed by the private `user`
// room; each notification counted once, by id, however often it is delivered.
import { signal } from "./lib.js";
import { queryAll } from "./api.js";
import { follow } from "./live.js";

export const unread = signal(0);
export const arrived = signal([]);
const seen = new Set();

// The newest notifications read with the count: a `notification.created` held while they were read may be
// one of them, already in the count.
const NEWEST = 50;

async function load() {
  const [reply, page] = await queryAll([["notifications.unreadCount", {}], ["notifications.list", { limit: NEWEST }]]);
  for (const notification of page.notifications ?? []) seen.add(notification.id);
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
