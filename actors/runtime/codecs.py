"""The codec of an actor whose message is a procedure call: a dataclass with a `procedure` name and a `data`
field whose type depends on it (the board and KPI actors' `Command`). Everything crosses nodes as msgpack
decoded by declared types, never pickled, so a node never runs code another named (docs/forwarding.md,
"On the wire")."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, get_type_hints

import msgspec

from actors.runtime.forwarding import MsgspecCodec
from protocol.errors import InternalError


class ProcedureCodec(MsgspecCodec):
    """Messages of `message_type`, a dataclass with `procedure: str` and `data`: every field but `data` is
    decoded by its type hint, `data` by `data_types[procedure]` (filled where the deciders are registered,
    so it may grow after the codec is built); a procedure the map does not name is refused. Replies are
    plain values (dicts, lists, strings, numbers, booleans, None, aware datetimes), decoded as such."""

    def __init__(self, message_type: type[Any], data_types: Mapping[str, Any]) -> None:
        self._message_type = message_type
        self._fields = [f.name for f in dataclasses.fields(message_type)]
        # The message as it arrives: `data` left undecoded until its procedure is known.
        super().__init__(msgspec.defstruct(f"{message_type.__name__}Wire",
                                           [_wire_field(f, get_type_hints(message_type))
                                            for f in dataclasses.fields(message_type)]), Any)
        self._data_types = data_types
        self._data: dict[str, msgspec.msgpack.Decoder[Any]] = {}

    def encode_message(self, message: Any) -> bytes:
        self._data_decoder(message.procedure)
        return super().encode_message(message)

    def decode_message(self, data: bytes) -> Any:
        wire = super().decode_message(data)
        fields = {name: getattr(wire, name) for name in self._fields}
        fields["data"] = self._data_decoder(wire.procedure).decode(wire.data)
        return self._message_type(**fields)

    def _data_decoder(self, procedure: str) -> msgspec.msgpack.Decoder[Any]:
        decoder = self._data.get(procedure)
        if decoder is None:
            if procedure not in self._data_types:
                raise InternalError(f"no message type is declared for {procedure}")
            decoder = self._data[procedure] = msgspec.msgpack.Decoder(self._data_types[procedure])
        return decoder


def _wire_field(field: dataclasses.Field[Any], hints: dict[str, Any]) -> tuple[str, Any, Any]:
    """A field of the wire form, with the message's default: a node that does not know a newer field yet
    sends messages the nodes that do can still decode (a new field always has a default)."""
    if field.default is not dataclasses.MISSING:
        default = field.default
    elif field.default_factory is not dataclasses.MISSING:
        default = msgspec.field(default_factory=field.default_factory)
    else:
        default = msgspec.NODEFAULT
    return field.name, msgspec.Raw if field.name == "data" else hints[field.name], default
