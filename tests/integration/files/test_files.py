"""Uploading and serving files (docs/forms-and-approvals.md): the real bytes round trip, the 25 MB
limit answered before the body is read, types from the bytes and never from the claim, the download headers,
who may upload and read, and tenant isolation."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

from actors.files.uploads import MAX_FILE_BYTES
from server.config import DEFAULT_PORT
from tests.harness import Api, Org, make_org
from tests.integration.files.conftest import PNG, status_of_a_declared_upload, upload, uploaded
from web.keys import NODE

MB = 1024 * 1024


async def fetch(api: Api, file_id: str) -> tuple[int, bytes, dict[str, str]]:
    async with api.client.get(f"/api/v1/files/{file_id}", headers=api.headers()) as response:
        return response.status, await response.read(), dict(response.headers)


async def test_upload_and_download_round_trip(org: Org) -> None:
    view = await uploaded(org.owner, PNG, "line 3/pump.png")
    assert view["id"].startswith("file_") and len(view["id"]) == 25
    assert view == {"id": view["id"], "name": "pump.png", "size": len(PNG), "type": "image/png",
                    "url": f"http://{org.host}:{DEFAULT_PORT}/api/v1/files/{view['id']}"}
    status, body, headers = await fetch(org.owner, view["id"])
    assert status == 200 and body == PNG
    assert headers["Content-Type"] == "image/png"
    assert headers["Content-Disposition"] == "attachment; filename=\"pump.png\"; filename*=UTF-8''pump.png"
    assert headers["X-Content-Type-Options"] == "nosniff" and headers["Cache-Control"] == "private"
    row = await org.owner.client.server.app[NODE].pool.fetchrow("SELECT * FROM files WHERE id = $1", view["id"])
    assert row["organization_id"] == org.id and row["uploaded_by"] == org.owner_id and row["form_id"] is None
    assert row["sha256"] == hashlib.sha256(PNG).hexdigest() and row["size"] == len(PNG)


async def test_names_are_kept_in_utf8_and_never_break_the_header(org: Org) -> None:
    view = await uploaded(org.owner, b"a;b\n1;2\n", 'Prüfbericht "März".csv')
    assert view["type"] == "text/csv" and view["name"] == 'Prüfbericht "März".csv'
    status, body, headers = await fetch(org.owner, view["id"])
    assert status == 200 and body == b"a;b\n1;2\n"
    assert headers["Content-Type"] == "text/csv; charset=utf-8"
    assert headers["Content-Disposition"] == (
        "attachment; filename=\"Pr_fbericht _M_rz_.csv\"; "
        "filename*=UTF-8''Pr%C3%BCfbericht%20%22M%C3%A4rz%22.csv")


async def test_the_type_comes_from_the_bytes_and_active_content_is_only_downloaded(org: Org) -> None:
    html = b"<!DOCTYPE html><html><script>alert(document.cookie)</script></html>"
    view = await uploaded(org.owner, html, "innocent.png")
    assert view["type"] == "text/html"
    status, body, headers = await fetch(org.owner, view["id"])
    assert status == 200 and body == html
    assert headers["Content-Type"] == "application/octet-stream"
    assert headers["Content-Disposition"].startswith("attachment;")
    svg = await uploaded(org.owner, b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', "logo.svg")
    assert svg["type"] == "image/svg+xml"
    assert (await fetch(org.owner, svg["id"]))[2]["Content-Type"] == "application/octet-stream"
    pdf = await uploaded(org.owner, b"%PDF-1.7\n" + bytes(range(256)), "report.txt")
    assert pdf["type"] == "application/pdf"
    binary = await uploaded(org.owner, b"\x00\x01\x02garbage", "notes.txt")
    assert binary["type"] == "application/octet-stream"


async def test_empty_or_missing_file_is_422_naming_file(org: Org) -> None:
    empty = await upload(org.owner, b"", "empty.txt")
    assert empty.status == 422, empty.body
    assert empty.error["code"] == "VALIDATION_ERROR" and empty.error["details"][0]["field"] == "file"
    not_multipart = await org.owner.rest("POST", "/api/v1/files", {"file": "x"}, headers={"Origin": f"http://{org.host}"})
    assert not_multipart.status == 422 and not_multipart.error["details"][0]["field"] == "file"


async def test_a_declared_body_past_25_mb_is_refused_before_it_is_sent(org: Org) -> None:
    status_line = await status_of_a_declared_upload(org, "/api/v1/files", 26 * MB, within=10)
    assert status_line.startswith(b"HTTP/1.1 413"), status_line


async def test_a_chunked_body_growing_past_25_mb_is_refused(org: Org) -> None:
    boundary = "obeya-boundary"
    sent = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal sent
        yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n"
               "Content-Type: application/octet-stream\r\n\r\n").encode()
        chunk = b"\x00" * MB
        for _ in range(30):
            sent += len(chunk)
            yield chunk
        yield f"\r\n--{boundary}--\r\n".encode()

    async with org.owner.client.post("/api/v1/files", data=body(), headers=org.owner.headers(
            {"Origin": f"http://{org.host}", "Content-Type": f"multipart/form-data; boundary={boundary}"})) as reply:
        assert reply.status == 413 and "Content-Length" not in reply.request_info.headers
        assert (await reply.json())["error"]["status"] == 413
    files = await org.owner.client.server.app[NODE].pool.fetchval(
        "SELECT count(*) FROM files WHERE organization_id = $1", org.id)
    assert files == 0 and sent > MAX_FILE_BYTES


async def test_exactly_25_mb_is_accepted(org: Org) -> None:
    data = b"%PDF-" + b"\x00" * (MAX_FILE_BYTES - 5)
    view = await uploaded(org.owner, data, "manual.pdf")
    assert view["size"] == MAX_FILE_BYTES and view["type"] == "application/pdf"
    status, body, _ = await fetch(org.owner, view["id"])
    assert status == 200 and len(body) == MAX_FILE_BYTES


async def test_guests_read_but_do_not_upload_and_anonymous_does_neither(org: Org) -> None:
    view = await uploaded(org.owner)
    _, guest = await org.add_user("guest")
    assert (await fetch(guest, view["id"]))[0] == 200
    refused = await upload(guest, PNG)
    assert refused.status == 403, refused.body
    _, member = await org.add_user("member")
    assert (await upload(member, PNG)).status == 201
    assert (await fetch(org.anonymous, view["id"]))[0] == 401
    assert (await upload(org.anonymous, PNG)).status == 401


async def test_api_keys_need_the_items_scopes(org: Org) -> None:
    view = await uploaded(org.owner)

    async def key(scopes: list[str]) -> Api:
        reply = await org.owner.mutate("apiKeys.create", {"name": "tablet", "scopes": scopes})
        assert reply.status == 200, reply.body
        return org.owner.with_bearer(str(reply.data["key"]))

    reader = await key(["read:items"])
    assert (await fetch(reader, view["id"]))[0] == 200
    assert (await upload(reader, PNG)).status == 403
    writer = await key(["write:items"])
    assert (await upload(writer, PNG, headers={"Idempotency-Key": "upload-1"})).status == 201
    assert (await fetch(await key(["read:kpis"]), view["id"]))[0] == 403


async def test_another_organizations_file_is_not_found(org: Org) -> None:
    view = await uploaded(org.owner)
    other = await make_org(org.owner.client)
    status, body, _ = await fetch(other.owner, view["id"])
    assert status == 404 and PNG not in body
    assert (await fetch(org.owner, "file_" + "A" * 20))[0] == 404
