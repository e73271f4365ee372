"""The event feed (docs/architecture.md, "The event log and seq"): paging through one stream of the event log, and
the Socket.IO `subscribe` input. A stream is `board:<id>`, `org:<organization id>` (room `org`) or
`kpi:<id>`."""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.fields import Cursor
from protocol.registry import declare

# A stream or room name: `board:<id>`, `kpi:<id>`, `org` or `org:<organization id>`.
StreamName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
Seq = Annotated[int, msgspec.Meta(ge=0)]


class ListEventsInput(msgspec.Struct):
    stream: StreamName
    since: Seq = 0
    # Range checked by protocol.pagination.page_limit: out of range is 400 in both styles.
    limit: int | None = None
    # REST cursor style: the cursor of the previous page (the last seq it returned); wins over `since`.
    cursor: Cursor | None = None


class SubscribeInput(msgspec.Struct):
    room: StreamName
    since: Seq | None = None


class UnsubscribeInput(msgspec.Struct):
    room: StreamName


LIST = declare("events.list", "query", ListEventsInput, key_scope="read:items", token_scope="read",
               summary="Events of one stream with seq above `since`, oldest first")
