"""The codecs of the board, KPI and flow actors: what one node sends is what the owner decides on, equal
field by field (the caller, aware datetimes, frozensets, tuples, the procedure's typed input), and a
procedure no decider declared a type for is refused rather than guessed."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from actors.approvals import commands as flow
from actors.approvals.actor import FlowActor
from actors.board import commands as board
from actors.board.actor import BoardActor
from actors.board.comments import CommentCall, Profile
from actors.board.items import MOVE_COLUMNS, TAKE_ITEM, MoveAcross, MoveTarget, TakeItem
from actors.board.trash import PURGE_TRASH
from actors.kpi import commands as kpi
from actors.kpi.actor import KpiActor
from actors.kpi.deciders import DATA_TYPES as KPI_DATA_TYPES
from actors.kpi.deciders import DECIDERS as KPI_DECIDERS
from actors.runtime.forwarding import ActorCodec
from protocol import comments as comment_spec
from protocol import items as item_spec
from protocol import kpis as kpi_spec
from protocol.caller import AutomationRun, Caller, CredentialKind, Organization
from protocol.errors import InternalError
from protocol.registry import Role

NOW = datetime(2026, 11, 21, 10, 0, 0, 123000, tzinfo=UTC)
CALLER = Caller(request_id="rid_1", organization=Organization("org_1", "acme", "Acme", "business"),
                user_id="usr_1", user_email="ada@example.com", role=Role.ADMIN,
                credential=CredentialKind.API_KEY, credential_id="key_1", scopes=("read:items", "write:items"),
                automation=AutomationRun("aut_1", 2))


def crossed(codec: ActorCodec, message: Any) -> Any:
    return codec.decode_message(codec.encode_message(message))


def test_a_board_comment_read_arrives_as_sent() -> None:
    call = CommentCall(comment_spec.ListCommentsInput(itemId="itm_1", cursor="abc", limit=20),
                       {"usr_1": Profile("Ada", None, True), "usr_2": Profile("Bob", "https://x/a.png", False)},
                       "https://acme.example.com")
    command = board.Command(comment_spec.LIST.name, CALLER, call, NOW, frozenset({"usr_1", "usr_2"}), "brd_1",
                            comments_of_item="itm_1")

    arrived = crossed(BoardActor.codec, command)

    assert arrived == command
    assert isinstance(arrived.data, CommentCall)
    assert isinstance(arrived.data.input, comment_spec.ListCommentsInput)
    assert arrived.caller.role is Role.ADMIN and arrived.caller.credential is CredentialKind.API_KEY
    assert arrived.now.tzinfo is not None and arrived.members == frozenset({"usr_1", "usr_2"})


@pytest.mark.parametrize("procedure, data", [
    (item_spec.MOVE.name, MoveAcross(id="itm_1", groupId="grp_2", boardId="brd_2", expectedVersion=3,
                                     target=MoveTarget("brd_2", "grp_2", {"col_1": "col_9"}))),
    (TAKE_ITEM, TakeItem("itm_1", "brd_1", 2.5)),
    (MOVE_COLUMNS, "grp_2"),
    (MOVE_COLUMNS, None),
    (PURGE_TRASH, None),
    (item_spec.SET_VALUE.name, item_spec.SetValueInput(itemId="itm_1", columnId="col_1",
                                                        value={"label": "Done", "at": [1, 2.5, None]})),
])
def test_board_internal_and_spec_commands_arrive_as_sent(procedure: str, data: Any) -> None:
    command = board.Command(procedure, CALLER, data, NOW)

    assert crossed(BoardActor.codec, command) == command


def test_a_kpi_batch_arrives_as_its_entries() -> None:
    entries = [kpi_spec.BatchEntry(kpiId="kpi_1", value=4.5, comment="night shift"),
               kpi_spec.BatchEntry(kpiId="kpi_1", value=7)]
    command = kpi.Command(kpi_spec.BATCH_SET_VALUES.name, CALLER, entries, NOW, frozenset({"usr_1"}))

    arrived = crossed(KpiActor.codec, command)

    assert arrived == command
    assert all(isinstance(entry, kpi_spec.BatchEntry) for entry in arrived.data)


CONTEXT = flow.Context(base_url="https://acme.example.com", public_url="https://acme.example.com/forms/f",
                       form_name="Deviation", success_message=None,
                       people={"usr_1": ("Ada", "ada@example.com"), "usr_2": ("Bob", "bob@example.com")},
                       smtp_configured=True)


@pytest.mark.parametrize("message", [
    flow.Refresh(),
    flow.Open("sub_1", "itm_1", {"amount": 12.5, "lines": [{"a": 1}], "note": None}, 1, "r@example.com"),
    flow.Decide(request_id="req_1", node_id=None, decision="approved", comment="ok", modifications={"a": 2},
                meaning="review", signed=True, token_hash="h", ip_address="127.0.0.1", user_agent="ua",
                user_id="usr_1"),
    flow.Return("req_1", "please add the batch number"),
    flow.Revise("h", {"amount": 13}),
    flow.Expire(("req_1", "req_2")),
    flow.Departed("usr_2"),
], ids=lambda message: type(message).__name__)
@pytest.mark.parametrize("caller", [CALLER, None], ids=["caller", "no caller"])
def test_every_flow_message_arrives_as_sent(message: flow.Message, caller: Caller | None) -> None:
    command = flow.Command(message, caller, NOW, CONTEXT)

    arrived = crossed(FlowActor.codec, command)

    assert arrived == command
    assert type(arrived.message) is type(message)


def test_a_procedure_without_a_declared_type_is_refused() -> None:
    unknown = board.Command("board.somethingNew", CALLER, {"x": 1}, NOW)

    with pytest.raises(InternalError):
        BoardActor.codec.encode_message(unknown)
    # Nor is one decoded when another node sends it.
    wire = msgspec.msgpack.encode(unknown)
    with pytest.raises(InternalError):
        BoardActor.codec.decode_message(wire)


def test_an_internal_command_must_name_its_data_type() -> None:
    with pytest.raises(TypeError):
        board.decides("board.untyped")  # type: ignore[call-overload]


def test_every_decided_procedure_has_a_data_type() -> None:
    assert set(board.DECIDERS) == set(board.DATA_TYPES)
    assert set(KPI_DATA_TYPES) == {*KPI_DECIDERS, kpi_spec.DEFINE.name}


def test_replies_arrive_as_plain_values() -> None:
    codec = BoardActor.codec
    reply = {"items": [{"id": "itm_1", "values": {"col_1": [1, 2.5]}, "at": NOW}], "next_cursor": None,
             "limit": 50, "ok": True}

    assert codec.decode_reply(codec.encode_reply(reply)) == reply



def test_a_message_from_a_node_that_lacks_a_newer_field_decodes_with_its_default() -> None:
    command = board.Command(PURGE_TRASH, CALLER, None, NOW, frozenset({"usr_1"}), "brd_1")
    fields = msgspec.msgpack.decode(BoardActor.codec.encode_message(command))
    del fields["comments_of_item"], fields["comments_of_comment"]

    assert BoardActor.codec.decode_message(msgspec.msgpack.encode(fields)) == command
