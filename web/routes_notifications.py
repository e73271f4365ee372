"""REST paths of the notification procedures."""

from __future__ import annotations

from typing import Any

from protocol.pagination import Page
from web.rest import RestRoute


def notifications_page(page: Page) -> dict[str, Any]:
    """The spec names the list's fields: `notifications[]` and `nextCursor` (absent at the end)."""
    body: dict[str, Any] = {"notifications": page.items}
    if page.next_cursor is not None:
        body["nextCursor"] = page.next_cursor
    return body


NOTIFICATION_ROUTES = [
    RestRoute("GET", "/api/v1/notifications", "notifications.list", view=notifications_page),
    RestRoute("GET", "/api/v1/notifications/unread-count", "notifications.unreadCount"),
    RestRoute("PATCH", "/api/v1/notifications/{id}/read", "notifications.markAsRead"),
    RestRoute("POST", "/api/v1/notifications/mark-all-read", "notifications.markAllAsRead"),
    RestRoute("POST", "/api/v1/notifications/device-token", "notifications.registerDeviceToken"),
]
