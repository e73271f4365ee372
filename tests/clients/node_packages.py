"""Node test fixtures' dependencies: installed with `npm ci` from their committed package-lock.json on first use.
Call it from a synchronous fixture: it blocks for as long as npm takes (an async test's loop would be guarded)."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

# A cold `npm ci` may download a lot (TypeScript for the tRPC client): give a slow mirror time.
NPM_TIMEOUT_S = 540


def npm_ci(directory: Path, installed: str) -> None:
    """Install `directory`'s locked packages unless node_modules/`installed` is already there."""
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "Node 20 and npm are needed for the tests that drive Node clients and servers"
    # The suite's workers (pytest-xdist) may all get here at once: one installs, the others wait and find it done
    # (two `npm ci` in one directory remove each other's node_modules).
    digest = hashlib.sha256(bytes(directory.resolve())).hexdigest()[:16]
    lock_path = Path(tempfile.gettempdir()) / f"obeya-npm-ci-{digest}.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (directory / "node_modules" / installed).is_dir():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=directory, check=True,
                           timeout=NPM_TIMEOUT_S, capture_output=True)
