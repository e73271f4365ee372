"""Uploads that no browser sends, written byte for byte on a real socket: each is refused with a 400 or 422
naming what is wrong, never a 500, and stores nothing it should not."""

from __future__ import annotations

import asyncio

from tests.harness import Org
from web.keys import NODE


async def post_raw(org: Org, headers: dict[str, str], body: bytes, path: str = "/api/v1/files") -> tuple[int, bytes]:
    """POST `body` as it is (the test client would repair it), signed in as the owner; status and body."""
    server = org.owner.client.server
    reader, writer = await asyncio.open_connection(server.host, server.port)
    head = (f"POST {path} HTTP/1.1\r\nHost: {org.host}\r\nCookie: authjs.session-token={org.owner.session}\r\n"
            f"Origin: http://{org.host}\r\nConnection: close\r\nContent-Length: {len(body)}\r\n")
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    writer.write(head.encode() + b"\r\n" + body)
    await writer.drain()
    reply = await asyncio.wait_for(reader.read(), 30)
    writer.close()
    status_line, _, rest = reply.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


MULTIPART = {"Content-Type": "multipart/form-data; boundary=xyz"}


def part(disposition: bytes, content: bytes = b"hello", extra: bytes = b"") -> bytes:
    return (b"--xyz\r\nContent-Disposition: " + disposition + b"\r\n" + extra + b"\r\n" + content
            + b"\r\n--xyz--\r\n")


async def stored_files(org: Org) -> int:
    count: int = await org.owner.client.server.app[NODE].pool.fetchval(
        "SELECT count(*) FROM files WHERE organization_id = $1", org.id)
    return count


async def test_invalid_or_oversized_part_headers_and_undecodable_bodies_are_400(org: Org) -> None:
    nul_in_header = part(b'form-data; name="file"; filename="a\x00b.txt"')
    overlong_header = part(b'form-data; name="file"; filename="' + b"a" * 70_000 + b'"')
    for headers, body in ((MULTIPART, nul_in_header), (MULTIPART, overlong_header),
                          ({**MULTIPART, "Content-Encoding": "gzip"}, b"this is not gzip")):
        status, reply = await post_raw(org, headers, body)
        assert status == 400, reply
        assert b'"code":"BAD_REQUEST"' in reply and b"malformed multipart body" in reply
    assert await stored_files(org) == 0


async def test_names_lose_bytes_that_are_not_utf8_and_invisible_characters(org: Org) -> None:
    body = part('form-data; name="file"; filename="a\udcff\udcfeb\u202etxt.exe"'.encode("utf-8", "surrogateescape"))
    status, reply = await post_raw(org, MULTIPART, body)
    assert status == 201, reply
    assert b'"name":"abtxt.exe"' in reply
    spaced = part('form-data; name="file"; filename="line\u2028break\u200b.txt"'.encode())
    status, reply = await post_raw(org, MULTIPART, spaced)
    assert status == 201 and b'"name":"linebreak.txt"' in reply, reply


async def test_a_body_cut_short_before_its_closing_boundary_stores_nothing(org: Org) -> None:
    whole = part(b'form-data; name="file"; filename="report.txt"', b"the whole report")
    for cut in (whole[:-10], whole[:-4], whole[:-len(b"--xyz--\r\n") - 2]):
        status, reply = await post_raw(org, MULTIPART, cut)
        assert status == 400, (cut, reply)
        assert b"malformed multipart body" in reply
    assert await stored_files(org) == 0
    status, reply = await post_raw(org, MULTIPART, whole)
    assert status == 201 and b'"size":16' in reply, reply


async def test_an_id_holding_nul_names_no_file_and_no_form(org: Org) -> None:
    async with org.owner.client.get("/api/v1/files/file_%00", headers=org.owner.headers()) as response:
        assert response.status == 404, await response.text()
        assert (await response.json())["error"]["message"] == "file not found"
    status, reply = await post_raw(org, MULTIPART, part(b'form-data; name="file"; filename="a.txt"'),
                                   path="/api/forms/frm_%00/files")
    assert status == 404 and b"form not found" in reply, reply
