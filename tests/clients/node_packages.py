"""Node test fixtures' dependencies: installed with `npm ci` from their committed package-lock.json on first use."""

from __future__ import annotations

import fcntl
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
    # Both test workers may get here at once: one installs, the other waits and then finds it installed (never
    # looking before the lock: node_modules/<installed> appears while npm ci is still writing the rest).
    with open(Path(tempfile.gettempdir()) / f"obeya-npm-{directory.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (directory / "node_modules" / installed).is_dir():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=directory, check=True,
                           timeout=NPM_TIMEOUT_S, capture_output=True)
