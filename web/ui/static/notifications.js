// The signed-in person's notifications as the shell and the notifications screen see them: the unread count
// and the notifications that arrived live since the page opened (newest first). Fed by the private `user`
// room; each notification counted once, by id, however often it is delivered.
import { signal } from "./lib.js";
import { query } from "./api.js";
import { follow } from "./live.js";

export const unread = signal(0);
export const arrived = signal([]);
const seen = new Set();

// The count is read, never incremented: a notification made while the first read was on its way is both in
// that count and in the events held meanwhile, so adding one per event could count it twice. One read at a time
// (a read asked for meanwhile runs once after it), so an older answer never overwrites a newer one.
let reading = null;
let again = false;

function load() {
  if (reading) {
    again = true;
    return reading;
  }
  reading = (async () => {
    try {
      do {
        again = false;
        unread.value = (await query("notifications.unreadCount", {})).count;
      } while (again);
    } finally {
      reading = null;
    }
  })();
  return reading;
}

function apply(name, payload) {
  if (name !== "notification.created") return;
  const notification = payload.data;
  if (seen.has(notification.id)) return;
  seen.add(notification.id);
  arrived.value = [notification, ...arrived.value];
  // A failed read leaves the count as it was until the next notification or mark-as-read reads it again.
  if (!notification.read) load().catch(() => {});
}

/** Start following the person's notifications (once per page). */
export function followNotifications() {
  return follow("user", apply, load);
}

/** Read the count again (after marking notifications read). */
export const refreshUnread = load;
