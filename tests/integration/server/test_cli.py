"""The `obeya` command: bootstrap output, migrate, and `serve` on the embedded default, whose data
survives a restart."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from server.cli import where_data_is
from server.config import Settings
from tests.harness import free_port

OBEYA = [sys.executable, "-m", "server.cli"]


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(OBEYA + args, env=env, capture_output=True, text=True, timeout=120)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OBEYA_")}
    env.update(extra)
    return env


def test_org_and_user_create_print_json(database_url: str) -> None:
    env = _env(OBEYA_DATABASE_URL=database_url)
    slug = f"cli-{os.getpid()}-{int(time.time() * 1000) % 100000}"
    created = _run(["org", "create", "--slug", slug, "--name", "CLI Org", "--owner-email", f"boss@{slug}.test",
                    "--owner-password", "a long password", "--plan", "starter"], env)
    assert created.returncode == 0, created.stderr
    ids = json.loads(created.stdout)
    assert set(ids) == {"organizationId", "userId", "url"}
    assert ids["organizationId"].startswith("org_") and ids["userId"].startswith("usr_")
    # The organization's address on the port `obeya serve` listens on by default; where the data is, without
    # the database's password.
    assert ids["url"] == f"http://{slug}.localhost:8080"
    assert created.stderr.splitlines()[0] == f"Obeya {where_data_is(Settings.from_env(env))}"
    user = _run(["user", "create", "--org", slug, "--email", f"worker@{slug}.test", "--password", "another password",
                 "--name", "Wendy Worker", "--role", "guest"], env)
    assert user.returncode == 0, user.stderr
    assert json.loads(user.stdout)["userId"].startswith("usr_")
    duplicate = _run(["org", "create", "--slug", slug, "--name", "Again", "--owner-email", "x@y.test",
                      "--owner-password", "a long password"], env)
    assert duplicate.returncode == 1
    assert json.loads(duplicate.stderr.strip().splitlines()[-1])["error"]["code"] == "CONFLICT"
    reserved = _run(["org", "create", "--slug", "Admin", "--name", "Taken", "--owner-email", f"r@{slug}.test",
                     "--owner-password", "a long password"], env)
    assert reserved.returncode == 1
    error = json.loads(reserved.stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == "BAD_REQUEST" and "organizationSlug" in error["message"] and "reserved" in error["message"]
    migrated = _run(["migrate"], env)
    assert migrated.returncode == 0 and json.loads(migrated.stdout) == {"applied": []}


def _get(url: str, host: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


def _serve(data_dir: Path, port: int, terminal: Path) -> subprocess.Popen[bytes]:
    """`obeya serve` on the embedded default under `data_dir`, its standard output and error written to
    `terminal`.out and `terminal`.err."""
    with terminal.with_suffix(".out").open("ab") as out, terminal.with_suffix(".err").open("ab") as err:
        process = subprocess.Popen(OBEYA + ["serve", "--host", "127.0.0.1", "--port", str(port)],
                                   env=_env(OBEYA_DATA_DIR=str(data_dir)), stdout=out, stderr=err)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if _get(f"http://127.0.0.1:{port}/readyz")[0] == 200:
            return process
        assert process.poll() is None, "obeya serve exited: " + terminal.with_suffix(".err").read_text()[-3000:]
        time.sleep(0.2)
    process.kill()
    raise AssertionError("obeya serve did not become ready")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)


@pytest.mark.timeout(240)
def test_embedded_default_serves_and_keeps_data_across_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    port = free_port()
    terminal = tmp_path / "terminal"
    server = _serve(data_dir, port, terminal)
    try:
        assert _get(f"http://127.0.0.1:{port}/healthz") == (200, b'{"status":"ok"}')
        # One line on standard output once it accepts connections; PostgreSQL's own output in its log file.
        assert terminal.with_suffix(".out").read_text().splitlines() == [
            f"Obeya listening on http://localhost:{port} — data in {data_dir} (embedded PostgreSQL)"]
        created = _run(["org", "create", "--slug", "keepme", "--name", "Keep", "--owner-email", "k@keep.test",
                        "--owner-password", "a long password"], _env(OBEYA_DATA_DIR=str(data_dir)))
        assert created.returncode == 0, created.stderr
        assert created.stderr.splitlines()[0] == f"Obeya data in {data_dir} (embedded PostgreSQL)"
        assert json.loads(created.stdout)["url"] == "http://keepme.localhost:8080"
    finally:
        _stop(server)
    assert _get(f"http://127.0.0.1:{port}/healthz")[0] == 0  # really stopped
    errors = terminal.with_suffix(".err").read_text().splitlines()
    assert errors and all(line.startswith("{") for line in errors), errors  # structured log lines only
    assert "initdb" in (data_dir / "postgresql.log").read_text()
    server = _serve(data_dir, port, terminal)
    try:
        status, body = _get(f"http://127.0.0.1:{port}/api/v1/auth/check-email?email=k@keep.test",
                            host="keepme.localhost")
        assert status == 409, body
    finally:
        _stop(server)
    shutil.rmtree(data_dir, ignore_errors=True)


def test_user_create_respects_the_seats(database_url: str) -> None:
    """`obeya user create` takes a seat like an accepted invitation: the free plan's 3, then 403 naming seats."""
    env = _env(OBEYA_DATABASE_URL=database_url)
    slug = f"seats-{os.getpid()}-{int(time.time() * 1000) % 100000}"
    created = _run(["org", "create", "--slug", slug, "--name", "Seats Org", "--owner-email", f"boss@{slug}.test",
                    "--owner-password", "a long password", "--plan", "free"], env)
    assert created.returncode == 0, created.stderr
    for name in ("one", "two"):
        user = _run(["user", "create", "--org", slug, "--email", f"{name}@{slug}.test", "--password", "a long password",
                     "--name", name.title()], env)
        assert user.returncode == 0, user.stderr
    over = _run(["user", "create", "--org", slug, "--email", f"three@{slug}.test", "--password", "a long password",
                 "--name", "Three"], env)
    assert over.returncode == 1
    error = json.loads(over.stderr.strip().splitlines()[-1])["error"]
    assert (error["code"], error["message"]) == ("FORBIDDEN", "the free plan includes 3 seats, all in use")


def test_a_port_in_use_is_one_line_and_exit_1(database_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = _run(["serve", "--host", "127.0.0.1", "--port", str(port)], _env(OBEYA_DATABASE_URL=database_url))
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr == f"port {port} on 127.0.0.1 is already in use: stop the other server or pass --port\n"


def test_redis_away_at_start_is_one_line_and_exit_1(database_url: str) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    refused = _run(["serve", "--host", "127.0.0.1", "--port", str(free_port())],
                   _env(OBEYA_DATABASE_URL=database_url, OBEYA_REDIS_URL=f"redis://127.0.0.1:{port}/0"))
    assert refused.returncode == 1, refused.stderr
    last = refused.stderr.strip().splitlines()
    assert last[-1].startswith("Redis did not answer at start (") and f"127.0.0.1:{port}" in last[-1], refused.stderr
    assert last[-1].endswith("): start it, or check OBEYA_REDIS_URL"), refused.stderr
    assert "Traceback" not in refused.stderr


def test_org_and_user_create_hold_passwords_to_the_sign_up_rule(database_url: str) -> None:
    env = _env(OBEYA_DATABASE_URL=database_url)
    slug = f"weak-{os.getpid()}-{int(time.time() * 1000) % 100000}"
    weak = _run(["org", "create", "--slug", slug, "--name", "Weak", "--owner-email", f"boss@{slug}.test",
                 "--owner-password", "1234567"], env)
    assert (weak.returncode, weak.stdout) == (1, "")
    error = json.loads(weak.stderr.strip().splitlines()[-1])["error"]
    assert error == {"code": "BAD_REQUEST", "message": "--owner-password: Expected `str` of length >= 8"}
    created = _run(["org", "create", "--slug", slug, "--name", "Weak", "--owner-email", f"boss@{slug}.test",
                    "--owner-password", "12345678"], env)
    assert created.returncode == 0, created.stderr
    short = _run(["user", "create", "--org", slug, "--email", f"w@{slug}.test", "--password", "short",
                  "--name", "Short"], env)
    assert (short.returncode, short.stdout) == (1, "")
    assert json.loads(short.stderr.strip().splitlines()[-1])["error"]["message"] == \
        "--password: Expected `str` of length >= 8"
