"""The embedded PostgreSQL of the default run: a PostgreSQL 16 from the `pgserver` wheel, its data kept
under `OBEYA_DATA_DIR/pgdata` so that it survives a restart, stopped when the process exits."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from pathlib import Path


class NoEmbeddedDatabase(SystemExit):
    """No `OBEYA_DATABASE_URL` on an install without `pgserver` (the container image removes it): the command
    stops with this one line on stderr and exit status 1, as on any other setting it cannot start with."""

    def __init__(self) -> None:
        super().__init__("OBEYA_DATABASE_URL is not set and this install has no embedded PostgreSQL (pgserver)")


@contextlib.contextmanager
def embedded_postgres(data_dir: Path) -> Iterator[str]:
    """Start (or join) the embedded server; yield its DSN; stop it on exit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on servers
        try:
            from pgserver import postgres_server
        except ImportError:
            raise NoEmbeddedDatabase() from None

        pgdata = (data_dir / "pgdata").resolve()
        pgdata.mkdir(parents=True, exist_ok=True)
        server = postgres_server.get_server(pgdata, cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
