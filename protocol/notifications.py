"""In-app notifications: user-scoped, except device-token registration."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.fields import Cursor, Id
from protocol.registry import Access, EmptyInput, declare

# Notifications page sizes: default 20, max 50.
DEFAULT_PAGE = 20
MAX_PAGE = 50


class ListNotificationsInput(msgspec.Struct):
    limit: int | None = None
    cursor: Cursor | None = None


class NotificationIdInput(msgspec.Struct):
    id: Id


class DeviceTokenInput(msgspec.Struct):
    token: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
    platform: Literal["ios", "android"]


LIST = declare("notifications.list", "query", ListNotificationsInput, access=Access.USER,
               summary="The caller's notifications, newest first")
UNREAD_COUNT = declare("notifications.unreadCount", "query", EmptyInput, access=Access.USER,
                       summary="How many of the caller's notifications are unread")
MARK_AS_READ = declare("notifications.markAsRead", "mutation", NotificationIdInput, access=Access.USER,
                       summary="Mark one of the caller's notifications read")
MARK_ALL_AS_READ = declare("notifications.markAllAsRead", "mutation", EmptyInput, access=Access.USER,
                           summary="Mark all of the caller's unread notifications read")
REGISTER_DEVICE_TOKEN = declare("notifications.registerDeviceToken", "mutation", DeviceTokenInput,
                                access=Access.ORG, summary="Upsert the caller's push token for a platform")
