// The signed-in person's notifications ("/notifications"), newest first, a page at a time ("Show more"): each
// with its title (a link to what it is about), body and when, unread ones marked in words and weight. Ones
// arriving live (the shell follows the private `user` room) go on top without a reload. Marking one or all
// read updates the unread count in the top bar.
import { html, useState, useEffect } from "../lib.js";
import { query, mutate } from "../api.js";
import { arrived, unread, refreshUnread } from "../notifications.js";
import { entityPath } from "../links.js";
import { ago, dateTime } from "../format.js";
import { catalogue } from "../i18n.js";
import { Page, Loading, LoadError } from "../components/page.js";
import { notify } from "../components/notices.js";
import strings from "./notifications.strings.js";

const t = catalogue(strings);
const PAGE = 20;

function Notification({ notification, onMarkRead, busy }) {
  const path = entityPath(notification.entityType, notification.entityId);
  const read = notification.read;
  return html`<li class=${`notification${read ? "" : " notification--unread"}`}>
    <div class="notification__text">
      <p class="notification__state">${read ? t("readLabel") : html`<strong>${t("unreadLabel")}</strong>`}</p>
      <h2 class="notification__title">${path ? html`<a href=${path}>${notification.title}</a>` : notification.title}</h2>
      ${notification.body && html`<p class="notification__body">${notification.body}</p>`}
      <p class="notification__when"><time datetime=${notification.createdAt} title=${dateTime(notification.createdAt)}>
        ${ago(notification.createdAt)}</time></p>
    </div>
    ${!read && html`<button type="button" class="button button--secondary" disabled=${busy}
      aria-label=${t("markReadOf", { what: notification.body ? `${notification.title}: ${notification.body}` : notification.title })} onClick=${() => onMarkRead(notification)}>${t("markRead")}</button>`}
  </li>`;
}

export default function Notifications() {
  const [loaded, setLoaded] = useState(null);   // {notifications, nextCursor}
  const [error, setError] = useState(null);
  const [more, setMore] = useState(false);
  const [readIds, setReadIds] = useState(() => new Set());
  const [busy, setBusy] = useState(false);

  const load = () => {
    setError(null);
    query("notifications.list", { limit: PAGE }).then(setLoaded, setError);
  };
  useEffect(load, []);

  if (error) return html`<${Page} title=${t("title")}><${LoadError} title=${t("loadFailed")} error=${error}
    retryLabel=${t("retry")} onRetry=${load} /><//>`;
  if (!loaded) return html`<${Page} title=${t("title")}><${Loading} label=${t("loading")} /><//>`;

  const known = new Set(loaded.notifications.map((notification) => notification.id));
  const fresh = arrived.value.filter((notification) => !known.has(notification.id));
  const shown = [...fresh, ...loaded.notifications].map((notification) => (
    readIds.has(notification.id) ? { ...notification, read: true } : notification));

  const showMore = async () => {
    setMore(true);
    try {
      const page = await query("notifications.list", { limit: PAGE, cursor: loaded.nextCursor });
      setLoaded((old) => ({ notifications: [...old.notifications, ...page.notifications.filter(
        (notification) => !old.notifications.some((other) => other.id === notification.id))], nextCursor: page.nextCursor ?? null }));
    } catch (failure) {
      notify(failure.message, "error");
    } finally {
      setMore(false);
    }
  };
  const markRead = async (notification) => {
    setBusy(true);
    try {
      await mutate("notifications.markAsRead", { id: notification.id });
      setReadIds((old) => new Set([...old, notification.id]));
      await refreshUnread();
    } catch (failure) {
      notify(t("markFailed", { message: failure.message }), "error");
    } finally {
      setBusy(false);
    }
  };
  const markAll = async () => {
    setBusy(true);
    try {
      await mutate("notifications.markAllAsRead", {});
      setReadIds(new Set(shown.map((notification) => notification.id)));
      await refreshUnread();
      notify(t("allMarked"));
    } catch (failure) {
      notify(t("markFailed", { message: failure.message }), "error");
    } finally {
      setBusy(false);
    }
  };

  const anyUnread = unread.value > 0 || shown.some((notification) => !notification.read);
  // The count and "Mark all as read" sit right above the list, as wide as it, not at the far edge of the page.
  return html`<${Page} title=${t("title")}>
    ${anyUnread && html`<div class="notifications__bar">
      <p class="notifications__summary">${unread.value > 0 ? t("summary", { count: unread.value }) : ""}</p>
      <button type="button" class="button button--primary" disabled=${busy} onClick=${markAll}>${t("markAllRead")}</button>
    </div>`}
    ${shown.length === 0 ? html`<p class="empty">${t("none")}</p>`
      : html`<ul class="notifications" aria-label=${t("list")}>
        ${shown.map((notification) => html`<${Notification} key=${notification.id} notification=${notification}
          busy=${busy} onMarkRead=${markRead} />`)}
      </ul>`}
    ${loaded.nextCursor && html`<div class="button-row">
      <button type="button" class="button button--secondary" disabled=${more} onClick=${showMore}>
        ${more ? t("loadingMore") : t("showMore")}</button>
    </div>`}
  <//>`;
}
