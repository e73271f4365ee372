"""Content types come from the bytes (actors/files/sniff.py)."""

from __future__ import annotations

import io
import zipfile

import pytest

from actors.files.sniff import DOCX, OCTET_STREAM, XLSX, sniff


def _zip(*names: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in names:
            archive.writestr(name, "<x/>")
    return buffer.getvalue()


@pytest.mark.parametrize(("data", "expected"), [
    (b"\x89PNG\r\n\x1a\n rest", "image/png"),
    (b"\xff\xd8\xff\xe0 jfif", "image/jpeg"),
    (b"GIF89a....", "image/gif"),
    (b"GIF87a....", "image/gif"),
    (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
    (b"RIFF\x10\x00\x00\x00WAVEfmt ", OCTET_STREAM),
    (b"%PDF-1.4\n", "application/pdf"),
    (_zip("a.txt"), "application/zip"),
    (_zip("[Content_Types].xml", "word/document.xml"), DOCX),
    (_zip("[Content_Types].xml", "xl/workbook.xml"), XLSX),
    ("Grüße aus Werk 2\n".encode(), "text/plain"),
    (b"part,qty\nA-1,4\nB-2,7\n", "text/csv"),
    (b"part;qty\nA-1;4\n", "text/csv"),
    (b"one line, with a comma", "text/plain"),
    (b"\xef\xbb\xbf  <!doctype html><p>x", "text/html"),
    (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml"),
    (b"<?xml version='1.0'?><a/>", "application/xml"),
    (b"text with a \x00 NUL", OCTET_STREAM),
    (b"\xff\xfe latin-1 \xe9", OCTET_STREAM),
])
def test_sniff(data: bytes, expected: str) -> None:
    assert sniff(data) == expected
