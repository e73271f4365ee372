"""Column configs and values: every type's accepted, stored and refused values, and computed columns."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from actors.board.formula import formula_references
from actors.board.values import (
    compute_value,
    default_config,
    is_done,
    normalize_config,
    validate_value,
)
from protocol.columns import COLUMN_TYPES, COMPUTED_TYPES
from protocol.errors import ValidationFailed

MEMBERS = frozenset({"usr_ann", "usr_bob", "usr_cid"})


def value(column_type: str, given: Any, config: dict[str, Any] | None = None, *, field: str = "value") -> Any:
    return validate_value(column_type, normalize_config(column_type, config), given, members=MEMBERS, field=field)


def refused(call: Any, *args: Any, **kwargs: Any) -> tuple[str, str]:
    """The (field, message) of the one error `call` raises."""
    with pytest.raises(ValidationFailed) as caught:
        call(*args, **kwargs)
    assert len(caught.value.details) == 1
    detail = caught.value.details[0]
    assert caught.value.message == f"{detail.field}: {detail.message}"
    return detail.field, detail.message


def refused_value(column_type: str, given: Any, config: dict[str, Any] | None = None) -> str:
    """The field named when `given` does not fit a column of this type."""
    return refused(value, column_type, given, config)[0]


def refused_config(column_type: str, config: Any) -> str:
    return refused(normalize_config, column_type, config)[0]


# ------------------------------------------------------------------------------------ the type list

def test_the_29_types_in_the_spec_order() -> None:
    assert COLUMN_TYPES == (
        "text", "long_text", "number", "currency", "percentage", "rating", "progress", "date", "date_range",
        "timeline", "time_tracking", "status", "label", "dropdown", "checkbox", "priority", "people", "link",
        "dependency", "formula", "lookup", "auto_number", "created_date", "last_updated", "file", "email", "phone",
        "url", "color")
    assert COMPUTED_TYPES == {"formula", "lookup", "auto_number", "created_date", "last_updated"}


@pytest.mark.parametrize("column_type", COLUMN_TYPES)
def test_every_default_config_is_a_valid_config(column_type: str) -> None:
    config = default_config(column_type)
    assert normalize_config(column_type, config) == config


@pytest.mark.parametrize("column_type", sorted(set(COLUMN_TYPES) - COMPUTED_TYPES))
def test_none_clears_every_writable_type(column_type: str) -> None:
    assert value(column_type, None) is None


@pytest.mark.parametrize("column_type", sorted(COMPUTED_TYPES))
@pytest.mark.parametrize("given", [None, 1, "x", {"a": 1}])
def test_computed_types_refuse_every_write(column_type: str, given: Any) -> None:
    field, message = refused(value, column_type, given, field="values.col_x")
    assert field == "values.col_x"
    assert "computed" in message


def test_unknown_type_is_refused_naming_the_type() -> None:
    assert refused_config("spreadsheet", {}) == "type"


def test_config_must_be_an_object() -> None:
    assert refused(normalize_config, "number", ["decimals"], field="columns.2.config")[0] == "columns.2.config"


def test_unknown_config_keys_are_dropped() -> None:
    assert normalize_config("checkbox", {"colour": "red"}) == {}
    assert normalize_config("rating", {"max": 3, "icon": "star"}) == {"max": 3}


# ------------------------------------------------------------------------------------ text

def test_text_keeps_the_string_and_empty_clears() -> None:
    assert value("text", "Replace the belt") == "Replace the belt"
    assert value("text", "") is None
    assert value("text", "x" * 2000) == "x" * 2000


@pytest.mark.parametrize("given", ["x" * 2001, 12, True, ["a"], {"text": "a"}])
def test_text_refuses_non_strings_and_over_2000(given: Any) -> None:
    assert refused_value("text", given) == "value"


def test_long_text_allows_20000() -> None:
    assert value("long_text", "y" * 20000) == "y" * 20000
    assert refused_value("long_text", "y" * 20001) == "value"


# ------------------------------------------------------------------------------------ numbers

def test_number_accepts_ints_and_floats() -> None:
    assert value("number", 42) == 42
    assert value("number", -3.25) == -3.25
    assert value("number", 0) == 0


def test_whole_floats_are_stored_as_integers() -> None:
    stored = value("number", 7.0)
    assert stored == 7 and isinstance(stored, int)


@pytest.mark.parametrize("given", ["12", True, [1], {"n": 1}, float("inf"), float("nan"), 1e16, 10**400])
def test_number_refuses_what_is_not_a_finite_number(given: Any) -> None:
    assert refused_value("number", given) == "value"


def test_number_honours_decimals_by_refusing_more_places() -> None:
    config = {"decimals": 2, "suffix": "kg"}
    assert value("number", 1.25, config) == 1.25
    assert value("number", 3, config) == 3
    field, message = refused(value, "number", 1.255, config)
    assert field == "value" and "2 decimal places" in message
    assert refused_value("number", 0.1, {"decimals": 0}) == "value"
    assert value("number", 10, {"decimals": 0}) == 10
    assert value("number", 10.0, {"decimals": 0}) == 10
    assert value("number", 1.5e14, {"decimals": 0}) == 150000000000000


def test_number_without_decimals_takes_any_precision() -> None:
    assert value("number", 0.123456789) == 0.123456789


def test_number_min_and_max_are_inclusive() -> None:
    config = {"min": 0, "max": 10}
    assert value("number", 0, config) == 0
    assert value("number", 10, config) == 10
    assert "at least 0" in refused(value, "number", -0.5, config)[1]
    assert "at most 10" in refused(value, "number", 10.5, config)[1]


def test_number_config_fills_defaults_and_checks_limits() -> None:
    assert normalize_config("number", {"decimals": 1, "suffix": "kg"}) == {
        "decimals": 1, "suffix": "kg", "min": None, "max": None}
    assert refused_config("number", {"decimals": 11}) == "config.decimals"
    assert refused_config("number", {"decimals": -1}) == "config.decimals"
    assert refused_config("number", {"decimals": 1.5}) == "config.decimals"
    assert refused_config("number", {"suffix": "x" * 21}) == "config.suffix"
    assert refused_config("number", {"min": 5, "max": 1}) == "config.max"
    assert refused_config("number", {"min": "low"}) == "config.min"


def test_currency_defaults_to_two_decimals_in_usd() -> None:
    assert default_config("currency") == {"currency": "USD", "decimals": 2, "min": None, "max": None}
    assert value("currency", 19.99) == 19.99
    assert refused_value("currency", 19.999) == "value"
    assert value("currency", 100, {"currency": "JPY", "decimals": 0}) == 100
    assert refused_value("currency", 100.5, {"currency": "JPY", "decimals": 0}) == "value"


@pytest.mark.parametrize("code", ["usd", "EURO", "E1R", ""])
def test_currency_code_is_three_capital_letters(code: str) -> None:
    assert refused_config("currency", {"currency": code}) == "config.currency"


def test_currency_decimals_at_most_four() -> None:
    assert refused_config("currency", {"decimals": 5}) == "config.decimals"


def test_percentage_is_0_to_100_unless_configured() -> None:
    assert value("percentage", 0) == 0
    assert value("percentage", 100) == 100
    assert value("percentage", 55.5) == 55.5
    assert refused_value("percentage", 100.01) == "value"
    assert refused_value("percentage", -1) == "value"
    assert value("percentage", 150, {"max": 200}) == 150
    assert value("percentage", -20, {"min": -50}) == -20
    assert refused_value("percentage", 12.5, {"decimals": 0}) == "value"


def test_rating_is_a_whole_number_up_to_max() -> None:
    assert value("rating", 0) == 0
    assert value("rating", 5) == 5
    assert value("rating", 4.0) == 4
    assert refused_value("rating", 6) == "value"
    assert refused_value("rating", -1) == "value"
    assert refused_value("rating", 2.5) == "value"
    assert refused_value("rating", 10**400) == "value"
    assert value("rating", 10, {"max": 10}) == 10
    assert refused_value("rating", 4, {"max": 3}) == "value"


@pytest.mark.parametrize("maximum", [0, 11, 2.5, "5"])
def test_rating_max_is_1_to_10(maximum: Any) -> None:
    assert refused_config("rating", {"max": maximum}) == "config.max"


def test_progress_is_0_to_100() -> None:
    assert value("progress", 0) == 0
    assert value("progress", 100) == 100
    assert value("progress", 33.3) == 33.3
    assert refused_value("progress", 100.5) == "value"
    assert refused_value("progress", -0.1) == "value"
    assert refused_value("progress", "50") == "value"


# ------------------------------------------------------------------------------------ dates

def test_a_date_stays_a_date() -> None:
    assert value("date", "2026-11-21") == "2026-11-21"


def test_a_timestamp_is_stored_in_utc_with_milliseconds() -> None:
    assert value("date", "2026-11-21T10:00:00+02:00") == "2026-11-21T08:00:00.000Z"
    assert value("date", "2026-11-21T10:00:00.5Z") == "2026-11-21T10:00:00.500Z"
    assert value("date", "2026-11-21T10:00:00") == "2026-11-21T10:00:00.000Z"


@pytest.mark.parametrize("given", ["2026-02-30", "21/11/2026", "2026-11-21 10:00", "2026-11-21T25:00:00Z",
                                   "tomorrow", "", 20261121, "2026-11-21T10:00:00" + "0" * 40,
                                   "0001-01-01T00:00:00+01:00"])
def test_date_refuses_what_is_not_iso_8601(given: Any) -> None:
    assert refused_value("date", given) == "value"


@pytest.mark.parametrize("column_type", ["date_range", "timeline"])
def test_ranges_store_from_and_to(column_type: str) -> None:
    assert value(column_type, {"from": "2026-11-01", "to": "2026-11-30"}) == {"from": "2026-11-01", "to": "2026-11-30"}
    assert value(column_type, {"from": "2026-11-01", "to": "2026-11-01"}) == {"from": "2026-11-01", "to": "2026-11-01"}
    assert value(column_type, {"from": "2026-11-01T08:00:00+01:00", "to": "2026-11-01T09:00:00Z"}) == {
        "from": "2026-11-01T07:00:00.000Z", "to": "2026-11-01T09:00:00.000Z"}


@pytest.mark.parametrize("column_type", ["date_range", "timeline"])
def test_ranges_refuse_from_after_to_naming_to(column_type: str) -> None:
    field, message = refused(value, column_type, {"from": "2026-11-30", "to": "2026-11-01"})
    assert field == "value.to" and "before from" in message
    assert refused_value(column_type, {"from": "2026-11-01T10:00:00Z", "to": "2026-11-01T09:59:59Z"}) == "value.to"


@pytest.mark.parametrize(("given", "field"), [
    ({"from": "2026-11-01"}, "value.to"),
    ({"to": "2026-11-01"}, "value.from"),
    ({"from": "nope", "to": "2026-11-01"}, "value.from"),
    ("2026-11-01", "value"),
    (["2026-11-01", "2026-11-02"], "value"),
])
def test_ranges_need_both_ends(given: Any, field: str) -> None:
    assert refused_value("date_range", given) == field


def test_time_tracking_stores_total_running_and_start() -> None:
    assert value("time_tracking", {"totalSeconds": 3600, "running": False}) == {
        "totalSeconds": 3600, "running": False, "startedAt": None}
    assert value("time_tracking", {"totalSeconds": 0, "running": True, "startedAt": "2026-11-21T10:00:00Z"}) == {
        "totalSeconds": 0, "running": True, "startedAt": "2026-11-21T10:00:00.000Z"}
    assert value("time_tracking", {}) == {"totalSeconds": 0, "running": False, "startedAt": None}


def test_a_stopped_timer_forgets_its_start() -> None:
    stopped = value("time_tracking", {"totalSeconds": 60, "running": False, "startedAt": "2026-11-21T10:00:00Z"})
    assert stopped["startedAt"] is None


@pytest.mark.parametrize(("given", "field"), [
    ({"totalSeconds": -1}, "value.totalSeconds"),
    ({"totalSeconds": 1.5}, "value.totalSeconds"),
    ({"totalSeconds": True}, "value.totalSeconds"),
    ({"running": "yes"}, "value.running"),
    ({"running": True}, "value.startedAt"),
    ({"running": True, "startedAt": "2026-11-21"}, "value.startedAt"),
    (3600, "value"),
])
def test_time_tracking_refusals(given: Any, field: str) -> None:
    assert refused_value("time_tracking", given) == field


# ------------------------------------------------------------------------------------ status

STATUS = {"labels": [
    {"id": "lbl_todo", "name": "To do", "color": "#C4C4C4"},
    {"id": "lbl_done", "name": "Done", "color": "#00C875", "isDone": True},
], "defaultLabelId": "lbl_todo"}
DONE = {"id": "lbl_done", "label": "Done", "color": "#00C875"}


def test_default_status_labels() -> None:
    config = default_config("status")
    assert [(label["name"], label["color"], label["isDone"]) for label in config["labels"]] == [
        ("Working on it", "#FDAB3D", False), ("Done", "#00C875", True), ("Stuck", "#E2445C", False)]
    assert all(label["id"].startswith("lbl_") for label in config["labels"])
    assert config["defaultLabelId"] is None


def test_status_config_keeps_given_ids_and_gives_missing_ones() -> None:
    config = normalize_config("status", {"labels": [{"id": "lbl_a", "name": "A", "color": "#000000"},
                                                    {"name": "B", "color": "#FFFFFF", "isDone": True}]})
    assert config["labels"][0] == {"id": "lbl_a", "name": "A", "color": "#000000", "isDone": False}
    assert config["labels"][1]["id"].startswith("lbl_")
    assert config["labels"][1]["isDone"] is True


@pytest.mark.parametrize("given", ["Done", "done", {"label": "Done"}, {"label": "Done", "color": "#00C875"},
                                   {"id": "lbl_done"}, {"id": "lbl_done", "label": "Done", "color": "#00C875"}])
def test_status_accepts_a_label_by_name_or_id_and_stores_it_as_defined(given: Any) -> None:
    assert value("status", given, STATUS) == DONE


def test_status_stores_the_labels_own_color() -> None:
    assert value("status", {"label": "Done", "color": "#FF0000"}, STATUS) == DONE


@pytest.mark.parametrize(("given", "field"), [
    ("Blocked", "value"),
    ({"label": "Blocked"}, "value.label"),
    ({"id": "lbl_nope"}, "value.id"),
    ({"id": "lbl_done", "label": "To do"}, "value.label"),
    ({"color": "#00C875"}, "value"),
    ({"label": 3}, "value.label"),
    (["Done"], "value"),
    (1, "value"),
])
def test_status_refuses_unknown_labels(given: Any, field: str) -> None:
    assert refused_value("status", given, STATUS) == field


@pytest.mark.parametrize(("config", "field"), [
    ({"labels": []}, "config.labels"),
    ({"labels": "Done"}, "config.labels"),
    ({"labels": [{"name": "A", "color": "green"}]}, "config.labels.0.color"),
    ({"labels": [{"name": "A", "color": "#00FF00"}, {"name": "", "color": "#00FF00"}]}, "config.labels.1.name"),
    ({"labels": [{"color": "#00FF00"}]}, "config.labels.0"),
    ({"labels": [{"name": "A", "color": "#00FF00", "isDone": "yes"}]}, "config.labels.0.isDone"),
    ({"labels": [{"name": "A", "color": "#00FF00"}, {"name": "a", "color": "#FF0000"}]}, "config.labels.1.name"),
    ({"labels": [{"id": "lbl_x", "name": "A", "color": "#00FF00"},
                 {"id": "lbl_x", "name": "B", "color": "#FF0000"}]}, "config.labels.1.id"),
    ({"labels": [{"id": "lbl_x", "name": "A", "color": "#00FF00"}], "defaultLabelId": "lbl_y"},
     "config.defaultLabelId"),
    ({"labels": [{"name": str(n), "color": "#00FF00"} for n in range(51)]}, "config.labels"),
])
def test_status_config_refusals_name_the_field(config: Any, field: str) -> None:
    assert refused_config("status", config) == field


def test_config_errors_carry_the_callers_prefix() -> None:
    assert refused(normalize_config, "status", {"labels": [{"name": "A", "color": "x"}]},
                   field="columns.1.config")[0] == "columns.1.config.labels.0.color"


def test_is_done_follows_the_labels_flag() -> None:
    config = normalize_config("status", STATUS)
    assert is_done(config, value("status", "Done", STATUS)) is True
    assert is_done(config, value("status", "To do", STATUS)) is False
    assert is_done(config, {"label": "Done", "color": "#00C875"}) is True
    assert is_done(config, None) is False
    assert is_done(config, "Done") is False
    assert is_done(default_config("dropdown"), {"label": "Done"}) is False


# ------------------------------------------------------------------------------------ label and priority

TAGS = {"labels": [{"id": "lbl_urgent", "name": "Urgent", "color": "#E2445C"},
                   {"id": "lbl_safety", "name": "Safety", "color": "#FDAB3D"}]}


def test_label_holds_several_tags() -> None:
    assert value("label", ["urgent", {"id": "lbl_safety"}], TAGS) == [
        {"id": "lbl_urgent", "label": "Urgent", "color": "#E2445C"},
        {"id": "lbl_safety", "label": "Safety", "color": "#FDAB3D"}]
    assert value("label", [], TAGS) is None


@pytest.mark.parametrize(("given", "field"), [
    ("Urgent", "value"),
    (["Urgent", {"label": "urgent"}], "value.1"),
    (["Urgent", "Quality"], "value.1"),
    ([{"id": "lbl_nope"}], "value.0.id"),
])
def test_label_refusals(given: Any, field: str) -> None:
    assert refused_value("label", given, TAGS) == field


def test_label_config_defaults_to_no_tags() -> None:
    assert default_config("label") == {"labels": []}
    assert refused_value("label", ["Anything"]) == "value.0"


def test_priority_defaults_to_four_levels_lowest_first() -> None:
    assert [label["name"] for label in default_config("priority")["labels"]] == ["Low", "Medium", "High", "Critical"]
    stored = value("priority", "high")
    assert stored["label"] == "High" and stored["color"] == "#E2445C" and stored["id"].startswith("lbl_")
    assert refused_value("priority", "Urgent") == "value"


def test_priority_levels_are_configurable() -> None:
    config = {"labels": [{"id": "lbl_p1", "name": "P1", "color": "#FF0000"}]}
    assert value("priority", {"id": "lbl_p1"}, config) == {"id": "lbl_p1", "label": "P1", "color": "#FF0000"}
    assert refused_config("priority", {"labels": [{"name": str(n), "color": "#000000"} for n in range(11)]}) == \
        "config.labels"


# ------------------------------------------------------------------------------------ dropdown, checkbox

OPTIONS = {"options": ["Line 1", "Line 2", "Warehouse"]}


def test_dropdown_one_of_its_options_in_its_own_spelling() -> None:
    assert value("dropdown", "Line 1", OPTIONS) == "Line 1"
    assert value("dropdown", "warehouse", OPTIONS) == "Warehouse"


@pytest.mark.parametrize("given", ["Line 3", ["Line 1"], 1])
def test_dropdown_refuses_unknown_options(given: Any) -> None:
    assert refused_value("dropdown", given, OPTIONS) == "value"


def test_multiple_dropdown_takes_a_list() -> None:
    config = {**OPTIONS, "multiple": True}
    assert value("dropdown", ["Line 2", "line 1"], config) == ["Line 2", "Line 1"]
    assert value("dropdown", [], config) is None
    assert refused_value("dropdown", "Line 1", config) == "value"
    assert refused_value("dropdown", ["Line 1", "Nowhere"], config) == "value.1"
    assert refused_value("dropdown", ["Line 1", "LINE 1"], config) == "value.1"


def test_dropdown_config_refusals() -> None:
    assert refused_config("dropdown", {"options": ["A", "a"]}) == "config.options.1"
    assert refused_config("dropdown", {"options": ["A", ""]}) == "config.options.1"
    assert refused_config("dropdown", {"options": "A,B"}) == "config.options"
    assert refused_config("dropdown", {"multiple": "no"}) == "config.multiple"


def test_checkbox_is_a_boolean() -> None:
    assert value("checkbox", True) is True
    assert value("checkbox", False) is False
    given: Any
    for given in (1, 0, "true", []):
        assert refused_value("checkbox", given) == "value"


# ------------------------------------------------------------------------------------ people

def test_people_are_member_ids() -> None:
    assert value("people", ["usr_bob", "usr_ann"]) == ["usr_bob", "usr_ann"]
    assert value("people", []) is None


def test_people_refuse_non_members_naming_the_entry() -> None:
    field, message = refused(value, "people", ["usr_ann", "usr_stranger"])
    assert field == "value.1" and "member" in message


@pytest.mark.parametrize(("given", "field"), [
    (["usr_ann", "usr_ann"], "value.1"),
    ("usr_ann", "value"),
    ([1], "value.0"),
    ([{"id": "usr_ann"}], "value.0"),
])
def test_people_refusals(given: Any, field: str) -> None:
    assert refused_value("people", given) == field


def test_single_person_column_takes_at_most_one() -> None:
    config = {"multiple": False}
    assert value("people", ["usr_ann"], config) == ["usr_ann"]
    field, message = refused(value, "people", ["usr_ann", "usr_bob"], config)
    assert field == "value" and "at most one" in message


def test_people_default_allows_several() -> None:
    assert default_config("people") == {"multiple": True}


# ------------------------------------------------------------------------------------ links and contact fields

def test_link_stores_url_and_text() -> None:
    assert value("link", {"url": "https://example.com/sop", "text": "SOP"}) == {
        "url": "https://example.com/sop", "text": "SOP"}
    assert value("link", "https://example.com") == {"url": "https://example.com", "text": "https://example.com"}


@pytest.mark.parametrize(("given", "field"), [
    ({"url": "ftp://example.com"}, "value.url"),
    ({"text": "no url"}, "value.url"),
    ({"url": "https://example.com", "text": "x" * 201}, "value.text"),
    (42, "value"),
])
def test_link_refusals(given: Any, field: str) -> None:
    assert refused_value("link", given) == field


@pytest.mark.parametrize("given", ["https://example.com", "http://localhost:8080/a?b=c#d", "HTTPS://EXAMPLE.COM"])
def test_url_accepts_http_and_https_with_a_host(given: str) -> None:
    assert value("url", given) == given


@pytest.mark.parametrize("given", ["example.com", "https://", "javascript:alert(1)", "mailto:a@b.c",
                                   "https://exa mple.com", "http://[::1", "http://host:99999", 5, "https://a\n.com"])
def test_url_refusals(given: Any) -> None:
    assert refused_value("url", given) == "value"


def test_email() -> None:
    assert value("email", "ann@acme.test") == "ann@acme.test"
    assert value("email", "") is None
    for given in ("ann", "ann@acme", "a b@acme.test", "@acme.test", 5, "a@" + "b" * 250 + ".test"):
        assert refused_value("email", given) == "value"


def test_phone_strips_separators() -> None:
    assert value("phone", "+49 30 1234-5678") == "+493012345678"
    assert value("phone", "+1 (555) 010.9999") == "+15550109999"
    assert value("phone", "+1234567") == "+1234567"


@pytest.mark.parametrize("given", ["030 1234567", "+123456", "+1234567890123456", "+49 30 CALL-ME", 4930, "++4930123"])
def test_phone_refusals(given: Any) -> None:
    assert refused_value("phone", given) == "value"


def test_color_is_hex_rrggbb() -> None:
    assert value("color", "#00c875") == "#00c875"
    for given in ("#00c87", "00c875", "#00c875ff", "red", 0x00C875):
        assert refused_value("color", given) == "value"


# ------------------------------------------------------------------------------------ dependency and file

def test_dependency_is_a_list_of_item_ids() -> None:
    assert value("dependency", ["itm_a", "itm_b"]) == ["itm_a", "itm_b"]
    assert value("dependency", []) is None
    assert refused_value("dependency", ["itm_a", "itm_a"]) == "value.1"
    assert refused_value("dependency", ["itm_a", "usr_b"]) == "value.1"
    assert refused_value("dependency", "itm_a") == "value"
    assert refused_value("dependency", [f"itm_{n}" for n in range(101)]) == "value"


def test_file_accepts_ids_and_described_files() -> None:
    assert value("file", ["file_a", {"id": "file_b", "name": "photo.jpg", "size": 1024, "mimeType": "image/jpeg",
                                     "url": "https://cdn.example.com/b"}]) == [
        {"id": "file_a"},
        {"id": "file_b", "name": "photo.jpg", "mimeType": "image/jpeg", "url": "https://cdn.example.com/b",
         "size": 1024}]


@pytest.mark.parametrize(("given", "field"), [
    ("file_a", "value"),
    ([{"name": "x"}], "value.0.id"),
    (["file_a", {"id": "file_a"}], "value.1"),
    ([{"id": "file_a", "size": -1}], "value.0.size"),
    ([{"id": "file_a", "name": ""}], "value.0.name"),
    ([{"id": "file_a", "url": "file:///etc/passwd"}], "value.0.url"),
    ([3], "value.0"),
    ([f"file_{n}" for n in range(51)], "value"),
])
def test_file_refusals(given: Any, field: str) -> None:
    assert refused_value("file", given) == field


# ------------------------------------------------------------------------------------ formula

def formula(expression: str, values: dict[str, Any], **config: Any) -> Any:
    normalized = normalize_config("formula", {"expression": expression, **config})
    return compute_value("formula", normalized, {"id": "itm_1", "values": values}, {})


def test_formula_arithmetic_and_precedence() -> None:
    assert formula("1 + 2 * 3", {}) == 7
    assert formula("(1 + 2) * 3", {}) == 9
    assert formula("10 - 4 - 3", {}) == 3
    assert formula("24 / 4 / 2", {}) == 3
    assert formula("-2 * -3", {}) == 6
    assert formula("-(2 + 3) * +2", {}) == -10
    assert formula("7 / 2", {}) == 3.5
    assert formula(".5 + 0.25", {}) == 0.75


def test_formula_reads_number_columns() -> None:
    assert formula("{col_qty} * {col_price}", {"col_qty": 3, "col_price": 2.5}) == 7.5
    assert formula("{col_done} / {col_total} * 100", {"col_done": 1, "col_total": 3}, decimals=1) == 33.3


def test_formula_rounds_away_float_noise() -> None:
    assert formula("0.1 + 0.2", {}) == 0.3
    assert formula("2 / 3", {}, decimals=2) == 0.67


def test_formula_division_by_zero_is_null() -> None:
    assert formula("1 / 0", {}) is None
    assert formula("{a} / ({b} - {b})", {"a": 1, "b": 4}) is None


@pytest.mark.parametrize("values", [{}, {"a": None}, {"a": "12"}, {"a": True}, {"a": {"label": "Done"}}])
def test_formula_with_an_empty_or_non_number_reference_is_null(values: dict[str, Any]) -> None:
    assert formula("{a} + 1", values) is None


def test_formula_overflow_is_null() -> None:
    assert formula("9" * 200 + " * " + "9" * 200, {}) is None


def test_empty_formula_is_null() -> None:
    assert default_config("formula") == {"expression": "", "decimals": None}
    assert formula("", {"a": 1}) is None


def test_formula_references() -> None:
    assert formula_references("{col_a} * ({col_b} + {col_a})") == {"col_a", "col_b"}
    assert formula_references("1 + 2") == frozenset()


@pytest.mark.parametrize("expression", [
    "__import__('os')",
    "__import__('os').system('rm -rf /')",
    "1 + 1; import os",
    "{a} ** 2",
    "2 ^ 3",
    "(1 + 2",
    "1 + 2)",
    "1 +",
    "* 2",
    "1 2",
    "{a}{b}",
    "{}",
    "{a b}",
    "abs(-1)",
    "1.2.3",
    "()",
    "-" * 40 + "1",
    "(" * 40 + "1" + ")" * 40,
    "lambda: 1",
    "'text'",
])
def test_formula_config_refuses_what_does_not_parse(expression: str) -> None:
    field, message = refused(normalize_config, "formula", {"expression": expression})
    assert field == "config.expression"
    assert message


def test_formula_error_says_where() -> None:
    assert refused(normalize_config, "formula", {"expression": "1 + x"})[1] == "unexpected 'x' at position 5"


def test_formula_long_flat_expressions_are_fine() -> None:
    assert formula("+".join(["1"] * 500), {}) == 500


def test_formula_expression_is_at_most_1000_characters() -> None:
    assert refused_config("formula", {"expression": "1" * 1001}) == "config.expression"


# ------------------------------------------------------------------------------------ lookup and the rest

BOARD = {
    "itm_a": {"id": "itm_a", "values": {"col_cost": 10, "col_state": {"label": "Done"}}},
    "itm_b": {"id": "itm_b", "values": {"col_cost": 2.5}},
    "itm_c": {"id": "itm_c", "values": {}},
}


def lookup(aggregate: str, linked: Any, target: str = "col_cost") -> Any:
    config = normalize_config("lookup", {"dependencyColumnId": "col_dep", "targetColumnId": target,
                                         "aggregate": aggregate})
    return compute_value("lookup", config, {"id": "itm_x", "values": {"col_dep": linked}}, BOARD)


def test_lookup_lists_the_linked_items_values_in_order() -> None:
    assert lookup("list", ["itm_b", "itm_a"]) == [2.5, 10]
    assert lookup("list", ["itm_a"], "col_state") == [{"label": "Done"}]


def test_lookup_skips_missing_items_and_empty_values() -> None:
    assert lookup("list", ["itm_gone", "itm_c", "itm_a"]) == [10]
    assert lookup("list", ["itm_c"]) is None
    assert lookup("list", None) is None


def test_lookup_aggregates() -> None:
    linked = ["itm_a", "itm_b", "itm_c"]
    assert lookup("count", linked) == 2
    assert lookup("sum", linked) == 12.5
    assert lookup("avg", linked) == 6.25
    assert lookup("min", linked) == 2.5
    assert lookup("max", linked) == 10
    assert lookup("sum", ["itm_a"], "col_state") is None
    assert lookup("count", []) == 0


def test_unconfigured_lookup_is_null() -> None:
    assert compute_value("lookup", default_config("lookup"), {"id": "itm_x", "values": {}}, BOARD) is None


def test_lookup_config_refusals() -> None:
    assert refused_config("lookup", {"aggregate": "median"}) == "config.aggregate"
    assert refused_config("lookup", {"targetColumnId": 5}) == "config.targetColumnId"


def test_auto_number_and_dates_come_from_the_item() -> None:
    item = {"id": "itm_a", "values": {}, "number": 17, "createdAt": "2026-11-21T10:00:00.000Z",
            "updatedAt": datetime(2026, 11, 22, 8, 30, tzinfo=UTC)}
    assert compute_value("auto_number", {}, item, {}) == 17
    assert compute_value("created_date", {}, item, {}) == "2026-11-21T10:00:00.000Z"
    assert compute_value("last_updated", {}, item, {}) == "2026-11-22T08:30:00.000Z"
