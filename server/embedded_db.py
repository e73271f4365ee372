"""The embedded PostgreSQL of the default run: a PostgreSQL 16 from the `pgserver` wheel, its data kept
under `OBEYA_DATA_DIR/pgdata` so that it survives a restart, stopped when the process exits. What pgserver
reports while it starts and stops the server (initdb's and pg_ctl's output among it) goes to
`OBEYA_DATA_DIR/postgresql.log`, not the terminal; the server's own log is `pgdata/log`."""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator
from pathlib import Path

LOG_FILE = "postgresql.log"


def _log_to_file(path: Path) -> None:
    """pgserver's log records (it runs initdb and pg_ctl with their output captured, then logs it) go to `path`
    from now to the process's end: it logs from an exit handler too. Called again for the same file (a second
    embedded start in one process), it adds no second handler, so no record is written twice."""
    logger = logging.getLogger("pgserver")
    target = str(path.resolve())
    if any(isinstance(handler, logging.FileHandler) and handler.baseFilename == target
           for handler in logger.handlers):
        return
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)


class NoEmbeddedDatabase(SystemExit):
    """No `OBEYA_DATABASE_URL` on an install without `pgserver` (the container image removes it): the command
    stops with this one line on stderr and exit status 1, as on any other setting it cannot start with."""

    def __init__(self) -> None:
        super().__init__("OBEYA_DATABASE_URL is not set and this install has no embedded PostgreSQL (pgserver)")


class UnwritableDataDirectory(SystemExit):
    """The data directory (or its log file) cannot be created, as under a home the process may not write (the
    container image's user): the command stops with this one line on stderr and exit status 1."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(f"cannot create the data directory {path}: {error.strerror or error}; "
                         "set OBEYA_DATA_DIR or OBEYA_DATABASE_URL")


@contextlib.contextmanager
def embedded_postgres(data_dir: Path) -> Iterator[str]:
    """Start (or join) the embedded server; yield its DSN; stop it on exit. Whether pgserver is there is
    asked first, so that an install without it never touches the data directory."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on servers
        try:
            from pgserver import postgres_server
        except ImportError:
            raise NoEmbeddedDatabase() from None

        pgdata = (data_dir / "pgdata").resolve()
        try:
            pgdata.mkdir(parents=True, exist_ok=True)
            _log_to_file(data_dir / LOG_FILE)
        except OSError as error:
            raise UnwritableDataDirectory(data_dir, error) from None
        server = postgres_server.get_server(pgdata, cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
