"""Where clients reach the server (`OBEYA_PUBLIC_URL`, server/config.py): scheme, host and port. Every absolute
URL the server prints is built from it, an organization's by putting `<slug>.` in front of the host."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class PublicUrl:
    scheme: str  # http or https
    host: str
    port: int | None = None  # None: the scheme's default port

    def at(self, host: str) -> str:
        """This URL's scheme and port on `host` (an organization's `<slug>.<service host>`)."""
        shown = f"[{host}]" if ":" in host else host
        port = "" if self.port is None or self.port == DEFAULT_PORTS[self.scheme] else f":{self.port}"
        return f"{self.scheme}://{shown}{port}"

    def __str__(self) -> str:
        return self.at(self.host)
