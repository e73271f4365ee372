"""Input decoding names every bad field, including positions inside lists, and keeps pagination errors
a 400 in both styles."""

from __future__ import annotations

from typing import Annotated

import msgspec
import pytest

from protocol.errors import BadRequest, ValidationFailed
from web.inputs import decode_input


class Sample(msgspec.Struct):
    name: Annotated[str, msgspec.Meta(min_length=2)]
    tags: list[Annotated[str, msgspec.Meta(max_length=3)]] = msgspec.field(default_factory=list)
    limit: int | None = None


def test_every_bad_field_is_named() -> None:
    with pytest.raises(ValidationFailed) as caught:
        decode_input(Sample, {"tags": ["ok", "too long"]})
    assert [(d.field, d.message) for d in caught.value.details] == [
        ("name", "is required"), ("tags.1", "Expected `str` of length <= 3")]


def test_query_strings_are_coerced_and_a_bad_limit_is_bad_request() -> None:
    assert decode_input(Sample, {"name": "ab", "limit": "5"}, from_query=True).limit == 5
    with pytest.raises(BadRequest) as caught:
        decode_input(Sample, {"name": "ab", "limit": "five"}, from_query=True)
    assert not isinstance(caught.value, ValidationFailed)
    assert caught.value.details[0].field == "limit"


def test_non_object_input_is_refused() -> None:
    with pytest.raises(ValidationFailed):
        decode_input(Sample, ["not", "an", "object"])
