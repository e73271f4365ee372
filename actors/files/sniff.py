"""A file's content type, read from its bytes: the uploader's claim is never trusted. Known binary formats by
their signature; UTF-8 text without NULs as text (markup a browser would run named as such, so that serving
can refuse to let it render); anything else application/octet-stream."""

from __future__ import annotations

import re

OCTET_STREAM = "application/octet-stream"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

_SIGNATURES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF87a", "image/gif"),
               (b"GIF89a", "image/gif"), (b"%PDF-", "application/pdf"))
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
# Text a browser would render as active content if it were ever served as what it is.
_MARKUP = ((re.compile(rb"<!doctype\s+html|<html|<head|<body|<script|<iframe", re.I), "text/html"),
           (re.compile(rb"<svg", re.I), "image/svg+xml"),
           (re.compile(rb"<\?xml", re.I), "application/xml"))
_LEAD = 1024  # how far into a text file markup is looked for
_CSV_LINES = 5


def sniff(data: bytes) -> str:
    for signature, content_type in _SIGNATURES:
        if data.startswith(signature):
            return content_type
    if len(data) >= 12 and data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(_ZIP):
        if b"word/document.xml" in data:
            return DOCX
        if b"xl/workbook.xml" in data:
            return XLSX
        return "application/zip"
    return _text_type(data)


def _text_type(data: bytes) -> str:
    if b"\x00" in data:
        return OCTET_STREAM
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return OCTET_STREAM
    lead = data[:_LEAD].lstrip(b"\xef\xbb\xbf \t\r\n")
    for pattern, content_type in _MARKUP:
        if pattern.search(lead):
            return content_type
    return "text/csv" if _looks_like_csv(text) else "text/plain"


def _looks_like_csv(text: str) -> bool:
    """At least two lines, each with the same number (one or more) of commas or of semicolons."""
    lines = [line for line in text.splitlines()[:_CSV_LINES] if line.strip()]
    if len(lines) < 2:
        return False
    return any(len({line.count(sep) for line in lines}) == 1 and lines[0].count(sep) > 0 for sep in ",;")
