"""The typed fast path of an RPC input (web/inputs.py `typed_input`) decodes exactly what the general way
(`decode_json`, `unwrap_input`, `decode_input`) decodes, and leaves to it every input it would refuse or read
otherwise, so errors stay what they are."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import msgspec
import pytest

from protocol import items as spec
from protocol.errors import ApiError
from web.inputs import batch_texts, decode_input, decode_json, typed_input
from web.rpc import unwrap_input


class Inner(msgspec.Struct):
    id: Annotated[str, msgspec.Meta(min_length=2)]
    weight: float = 1.0


class Sample(msgspec.Struct):
    name: Annotated[str, msgspec.Meta(min_length=2)]
    limit: int | None = None
    value: Any = None
    when: datetime | None = None
    mode: Literal["a", "b"] = "a"
    inner: list[Inner] = msgspec.field(default_factory=list)
    extra: dict[str, Any] = msgspec.field(default_factory=dict)


def general(struct_type: type[msgspec.Struct], text: str) -> Any:
    """What the general way makes of `text`: the Struct, or the error it raises."""
    try:
        return decode_input(struct_type, unwrap_input(decode_json(text, "input")))
    except ApiError as error:
        return error


TAKEN = [  # texts the fast path decodes
    '{"json": {"name": "ab"}}',
    '{"json": {"name": "ab", "limit": 5, "value": {"x": [1, 2.5, null, "t"]}, "mode": "b"}}',
    '{"json": {"name": "ab", "when": "2026-11-26T10:00:00Z", "inner": [{"id": "xy", "weight": 2}]}}',
    '{"json": {"name": "ab", "unknown": 1, "extra": {"k": "caf\\u00e9"}}}',
    '{"json": {"name": "ab", "limit": 922337203685477580}}',
    '{"json": {"name": "ab"}, "json": {"name": "cd"}}',
    '{"name": "ab", "value": [[[]]]}',
    '{"json": {"name": "ab", "value": ' + "[" * 62 + "]" * 62 + "}}",
    '{"name": "ab", "limit": -5}',
    '  {"name" : "ab"}  ',
]
LEFT = [  # texts it leaves to the general way, valid or not
    '{"json": {"name": "ab", "value": "a\\u0000b"}}',
    '{"json": {"name": "ab", "extra": {"a\\u0000": 1}}}',
    '{"json": {"name": "ab", "limit": 9223372036854775808}}',
    '{"json": {"name": "ab", "value": 99999999999999999999999}}',
    '{"json": {"name": "ab", "limit": 9223372036854775807}}',
    '{"json": {"name": "ab", "value": ' + "[" * 70 + "]" * 70 + "}}",
    '{"json": {"name": "ab", "value": [' + "[]," * 70 + "[]]}}",
    '{"json": {"name": "ab", "value": null}, "meta": {"values": {"value": ["undefined"]}}}',
    '{"json": {"name": "ab"}, "meta": {}}',
    '{"json": null}',
    '{"json": {"name": "a"}}',
    '{"json": {"name": "ab", "limit": 1.0}}',
    '{"json": {"name": "ab", "mode": "c"}}',
    '{"json": {"name": "ab", "when": "yesterday"}}',
    '{"json": {"name": "ab", "inner": [{"id": "x"}]}}',
    '{"json": []}',
    '{"\\u006ason": {"name": "ab"}}',
    '{"name": "ab", "\\u006deta": 1}',
    '{"name": "ab", "meta": 1}',
    '{"name": "ab", "note": "json"}',
    '{"name": "ab"',
    "[1, 2]",
    "null",
    "{}",
]


@pytest.mark.parametrize("text", TAKEN + LEFT)
def test_the_fast_path_decodes_as_the_general_way_or_leaves_it(text: str) -> None:
    expected = general(Sample, text)
    for given in (text, text.encode()):
        fast = typed_input(Sample, given)
        if text in TAKEN:
            assert fast == expected
        else:
            assert fast is None


def test_a_refused_input_is_never_taken() -> None:
    """Every input the general way refuses is left to it, whatever the fast decoder would make of it."""
    for text in TAKEN + LEFT:
        if isinstance(general(Sample, text), ApiError):
            assert typed_input(Sample, text) is None, text


def test_text_that_is_not_utf8_is_left_to_the_general_way() -> None:
    assert typed_input(Sample, b'{"json": {"name": "a\xffb"}}') is None


def test_procedure_inputs_decode_alike() -> None:
    set_value = json.dumps({"json": {"itemId": "itm_1", "columnId": "col_1", "value": {"label": "Done"}}})
    listing = json.dumps({"json": {"boardId": "brd_1", "limit": 50, "filters": [
        {"columnId": "col_1", "operator": "gt", "value": 3}]}})
    for struct_type, text in ((spec.SetValueInput, set_value), (spec.ListItemsInput, listing)):
        fast = typed_input(struct_type, text)
        assert fast is not None and fast == general(struct_type, text)


def test_decode_input_takes_a_decoded_struct_as_it_is() -> None:
    value = Sample(name="ab", when=datetime(2026, 1, 1, tzinfo=UTC))
    assert decode_input(Sample, value) is value


def test_a_batch_is_split_into_the_texts_of_its_calls() -> None:
    parts = batch_texts('{"0": {"json": {"name": "ab"}}, "1": {"name": "cd", "limit": 3}}')
    assert parts is not None
    assert [typed_input(Sample, parts[key]) for key in ("0", "1")] == [Sample(name="ab"), Sample(name="cd", limit=3)]
    for text in ("[1]", '{"0": 1'):
        assert batch_texts(text) is None
    not_utf8 = batch_texts(b'{"0": {"name": "a\xffb"}}')
    assert not_utf8 is not None and typed_input(Sample, not_utf8["0"]) is None


def test_a_batch_counts_its_own_level_against_the_depth_bound() -> None:
    """A call nesting exactly MAX_DEPTH levels is taken alone; inside a batch it is one level too deep."""
    call = '{"json": {"name": "ab", "value": ' + "[" * 62 + "]" * 62 + "}}"
    assert typed_input(Sample, call) is not None
    with pytest.raises(ApiError):
        decode_json('{"0": ' + call + "}", "input")
    assert batch_texts('{"0": ' + call + "}") is None
