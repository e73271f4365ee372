"""Configuration from the environment (DESIGN.md "Project-defined interfaces")."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    database_url: str | None
    redis_url: str | None
    data_dir: Path
    service_host: str
    smtp_url: str | None
    production: bool

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        mode = env.get("OBEYA_ENV", "development").strip().lower()
        if mode not in ("development", "production"):
            raise SystemExit(f"OBEYA_ENV must be development or production, not {mode!r}")
        return cls(
            database_url=env.get("OBEYA_DATABASE_URL") or None,
            redis_url=env.get("OBEYA_REDIS_URL") or None,
            data_dir=Path(env.get("OBEYA_DATA_DIR") or "./.obeya"),
            service_host=(env.get("OBEYA_SERVICE_HOST") or "localhost").lower(),
            smtp_url=env.get("OBEYA_SMTP_URL") or None,
            production=mode == "production",
        )
