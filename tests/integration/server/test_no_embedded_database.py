"""An install without `pgserver` (the container image removes it) and no `OBEYA_DATABASE_URL`: `obeya serve`
stops with one clear line and exit status 1, not a traceback and not a server on a database that is not there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.harness import free_port

ROOT = Path(__file__).resolve().parents[3]


def test_serve_without_a_database_url_or_pgserver_says_so_in_one_line(tmp_path: Path) -> None:
    # A `pgserver` that cannot be imported, first on the path: as in the image, where it is uninstalled.
    (tmp_path / "pgserver").mkdir()
    (tmp_path / "pgserver" / "__init__.py").write_text('raise ImportError("pgserver is not installed")\n')
    env = {name: value for name, value in os.environ.items() if not name.startswith("OBEYA_")}
    env.update(PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]), OBEYA_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", str(free_port())], env=env,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "OBEYA_DATABASE_URL is not set and this install has no embedded PostgreSQL (pgserver)"]
    assert "listening" not in done.stdout
    assert not (tmp_path / "data" / "pgdata").exists()


def test_serve_with_a_data_directory_it_cannot_create_says_so_in_one_line(tmp_path: Path) -> None:
    # Under a regular file no directory can be made, even by root (the tests' user, whom permissions never stop).
    (tmp_path / "afile").write_text("not a directory\n")
    data_dir = tmp_path / "afile" / "data"
    env = {name: value for name, value in os.environ.items() if not name.startswith("OBEYA_")}
    env.update(PYTHONPATH=str(ROOT), OBEYA_DATA_DIR=str(data_dir))
    done = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", str(free_port())], env=env,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"cannot create the data directory {data_dir}: Not a directory; set OBEYA_DATA_DIR or OBEYA_DATABASE_URL"]
    assert "listening" not in done.stdout
