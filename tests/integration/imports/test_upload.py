"""import.uploadCsv (step 1, docs/import.md): delimiter detection for comma, semicolon, tab and pipe, a UTF-8 BOM,
other encodings refused naming the problem, the 10 MB cap checked while streaming, the session row in
PostgreSQL, and who may upload."""

from __future__ import annotations

from datetime import timedelta

import pytest

from protocol.imports import MAX_CSV_BYTES
from tests.harness import Org, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.files.conftest import status_of_a_declared_upload
from tests.integration.imports.conftest import upload_csv, uploaded
from web.keys import NODE

ROWS = [["Name", "Owner", "Due"], ["Fix pump", "olga@x.test", "2026-12-01"], ["Clean line", "", "2026-12-02"]]


def text(delimiter: str, rows: list[list[str]] = ROWS) -> bytes:
    return "\r\n".join(delimiter.join(row) for row in rows).encode() + b"\r\n"


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
async def test_each_delimiter_is_detected_and_the_columns_carry_samples(board: Board, delimiter: str) -> None:
    session = await uploaded(board.api, board.id, text(delimiter), name="plan.csv")
    assert session["importId"].startswith("imp_") and session["boardId"] == board.id
    assert session["delimiter"] == delimiter and session["encoding"] == "utf-8"
    assert session["fileName"] == "plan.csv" and session["fileSize"] == len(text(delimiter))
    assert session["totalRows"] == 2 and session["status"] == "uploaded"
    assert session["columns"] == [
        {"index": 0, "header": "Name", "sampleValues": ["Fix pump", "Clean line"]},
        {"index": 1, "header": "Owner", "sampleValues": ["olga@x.test"]},
        {"index": 2, "header": "Due", "sampleValues": ["2026-12-01", "2026-12-02"]}]


async def test_the_session_lives_one_hour_in_postgresql_with_the_bytes(board: Board) -> None:
    data = text(",")
    session = await uploaded(board.api, board.id, data)
    pool = board.api.client.server.app[NODE].pool
    row = await pool.fetchrow("SELECT * FROM import_sessions WHERE id = $1", session["importId"])
    assert row["content"] == data and row["organization_id"] == board.org.id and row["board_id"] == board.id
    assert row["expires_at"] - row["created_at"] == timedelta(hours=1)
    assert session["expiresAt"].endswith("Z")


async def test_a_given_delimiter_wins_over_detection_and_a_tab_may_be_named(board: Board) -> None:
    forced = await uploaded(board.api, board.id, text(";"), delimiter=",")
    assert forced["delimiter"] == "," and forced["columns"][0]["header"] == "Name;Owner;Due"
    tab = await uploaded(board.api, board.id, text("\t"), delimiter="tab")
    assert tab["delimiter"] == "\t" and len(tab["columns"]) == 3
    bad = await upload_csv(board.api, board.id, text(","), delimiter=":")
    assert bad.status == 400 and bad.error["json"]["data"]["details"][0]["field"] == "delimiter"


async def test_quoted_delimiters_and_line_breaks_stay_in_their_cell(board: Board) -> None:
    data = b'Name;Notes\r\n"Leak; big";"two\r\nlines"\r\nOther;x\r\n'
    session = await uploaded(board.api, board.id, data)
    assert session["delimiter"] == ";" and session["totalRows"] == 2
    assert session["columns"][0]["sampleValues"] == ["Leak; big", "Other"]
    assert session["columns"][1]["sampleValues"] == ["two\r\nlines", "x"]


async def test_a_utf8_bom_is_read_and_reported(board: Board) -> None:
    data = "\ufeffName,Prüfer\nÜberprüfung,Jörg\n".encode()
    session = await uploaded(board.api, board.id, data)
    assert session["encoding"] == "utf-8-sig"
    assert [c["header"] for c in session["columns"]] == ["Name", "Prüfer"]
    assert session["columns"][0]["sampleValues"] == ["Überprüfung"]


async def test_a_latin1_file_is_400_naming_file_the_byte_and_its_offset(board: Board) -> None:
    data = "Name,Prüfer\nA,B\n".encode("latin-1")
    reply = await upload_csv(board.api, board.id, data)
    assert reply.status == 400, reply.body
    error = reply.error["json"]
    assert error["data"]["code"] == "BAD_REQUEST" and error["data"]["details"][0]["field"] == "file"
    assert "not UTF-8: byte 0xFC at offset 7" in error["message"]


async def test_utf16_is_400_saying_so(board: Board) -> None:
    reply = await upload_csv(board.api, board.id, "Name,Owner\nA,B\n".encode("utf-16"))
    assert reply.status == 400
    assert reply.error["json"]["data"]["details"][0] == {
        "field": "file", "message": "is UTF-16 encoded (it starts with a UTF-16 byte order mark); save it as UTF-8"}


async def test_a_utf8_character_cut_at_the_end_is_not_utf8(board: Board) -> None:
    reply = await upload_csv(board.api, board.id, "Name\nPrü".encode()[:-1])
    assert reply.status == 400 and "not UTF-8" in reply.error["json"]["message"]


async def test_empty_and_missing_files_are_400_naming_file(board: Board) -> None:
    for data in (b"", b"\xef\xbb\xbf", b"\r\n\r\n"):
        reply = await upload_csv(board.api, board.id, data)
        assert reply.status == 400, (data, reply.body)
        assert reply.error["json"]["data"]["details"][0]["field"] == "file"
    missing = await board.api.mutate("import.uploadCsv", {"boardId": board.id})
    assert missing.status == 400 and missing.error["json"]["data"]["details"][0]["field"] == "file"


async def test_a_missing_board_is_400_and_another_tenants_board_404(board: Board, client: object) -> None:
    reply = await upload_csv(board.api, "", text(","))
    assert reply.status == 400 and reply.error["json"]["data"]["details"][0]["field"] == "boardId"
    other = await make_org(board.api.client)
    theirs = await make_board(other)
    reply = await upload_csv(board.api, theirs.id, text(","))
    assert reply.status == 404, reply.body


async def test_a_file_past_10_mb_is_413_while_streaming(board: Board) -> None:
    line = b"Pump inspection,olga@x.test,2026-12-01\r\n"
    data = b"Name,Owner,Due\r\n" + line * (MAX_CSV_BYTES // len(line) + 1)
    assert len(data) > MAX_CSV_BYTES
    reply = await upload_csv(board.api, board.id, data)
    assert reply.status == 413, reply.body
    assert reply.error["json"]["data"]["details"][0]["field"] == "file"
    count = await board.api.client.server.app[NODE].pool.fetchval(
        "SELECT count(*) FROM import_sessions WHERE board_id = $1", board.id)
    assert count == 0


async def test_a_declared_body_past_10_mb_is_refused_before_it_is_sent(board: Board) -> None:
    status_line = await status_of_a_declared_upload(board.org, "/api/trpc/import.uploadCsv",
                                                    MAX_CSV_BYTES + 1024 * 1024, within=5)
    assert b" 413 " in status_line


async def test_guests_and_plans_without_csv_import_are_403(board: Board, client: object) -> None:
    _, guest = await board.org.add_user("guest")
    reply = await upload_csv(guest, board.id, text(","))
    assert reply.status == 403
    free: Org = await make_org(board.api.client, plan="free")
    free_board = await make_board(free)
    reply = await upload_csv(free.owner, free_board.id, text(","))
    assert reply.status == 403 and "csv_import" in reply.error["json"]["message"]


async def test_a_sheet_wider_than_200_columns_is_400(board: Board) -> None:
    data = ",".join(f"c{i}" for i in range(201)).encode() + b"\n" + b"x\n"
    reply = await upload_csv(board.api, board.id, data)
    assert reply.status == 400 and "more than 200 columns" in reply.error["json"]["message"]
