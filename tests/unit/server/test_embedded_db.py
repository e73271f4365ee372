"""pgserver's records go to the data directory's postgresql.log, each once however often it is set up."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.embedded_db import LOG_FILE, _log_to_file


@pytest.fixture
def pgserver_logger() -> Iterator[logging.Logger]:
    logger = logging.getLogger("pgserver")
    before = list(logger.handlers)
    yield logger
    for handler in logger.handlers:
        if handler not in before:
            logger.removeHandler(handler)
            handler.close()


def test_setting_up_the_log_file_twice_writes_each_record_once(tmp_path: Path,
                                                               pgserver_logger: logging.Logger) -> None:
    _log_to_file(tmp_path / LOG_FILE)
    _log_to_file(tmp_path / LOG_FILE)
    pgserver_logger.info("initdb done")
    for handler in pgserver_logger.handlers:
        handler.flush()
    assert (tmp_path / LOG_FILE).read_text().count("initdb done") == 1
