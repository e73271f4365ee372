"""The README's five-minute tour, pasted as a newcomer would: a real `obeya serve` process started as the tour's
first block says, then every later shell block of the "Five-minute tour" section fed to one bash, block after
block, waiting (as a reader does) for the output each block's comments promise before pasting the next.

Only the ports change: 8080 becomes the server's and 9000 the webhook receiver's, both free ones."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.cluster.harness import Cluster, ClusterNode
from tests.harness import free_port

README = Path(__file__).resolve().parents[3] / "README.md"
# What a block may take to finish, and what it promises to print may take to appear (a delivery's first attempt
# is within a second or two; a lost race with the receiver would cost its one-minute retry and fail this bound).
BLOCK_SECONDS = 45.0
DONE = "tour-block-done"


def tour_blocks(readme: str) -> list[str]:
    """The fenced `sh` blocks under the "Five-minute tour" heading, in order."""
    section = readme.split("\n## Five-minute tour\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```sh\n(.*?)^```$", section, re.S | re.M)


def promised_lines(block: str) -> list[str]:
    """The output a block's comments quote literally: whole-line comments such as `# live: 13 item.created …`."""
    return [line[2:] for line in block.splitlines() if re.match(r"# (live|webhook): ", line)]


@dataclass
class Terminal:
    """One bash reading what is pasted into it; everything it (and its background jobs) prints, line by line."""

    process: asyncio.subprocess.Process
    lines: list[str] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def read(self) -> None:
        assert self.process.stdout is not None
        async for raw in self.process.stdout:
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))
            self.changed.set()

    async def until(self, wanted: str, what: str) -> None:
        async def seen() -> None:
            while wanted not in self.lines:
                self.changed.clear()
                await self.changed.wait()

        try:
            await asyncio.wait_for(seen(), BLOCK_SECONDS)
        except TimeoutError:
            raise AssertionError(f"{what}: no line {wanted!r} within {BLOCK_SECONDS} s; the terminal shows:\n"
                                 + "\n".join(self.lines[-60:])) from None

    async def paste(self, number: int, block: str) -> None:
        """Paste a block, then wait until bash has run all of it and its promised lines are printed."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"{block}\necho {DONE} {number}\n".encode())
        await self.process.stdin.drain()
        await self.until(f"{DONE} {number}", f"block {number} did not finish")
        for line in promised_lines(block):
            await self.until(line, f"block {number} promised it")


@pytest.fixture
async def terminal(tmp_path: Path) -> AsyncIterator[Terminal]:
    """bash in an empty directory, with the test's Python first on the PATH (the venv Obeya is installed in).
    Its own process group, so that whatever the tour leaves running is stopped with it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OBEYA_")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    process = await asyncio.create_subprocess_exec(
        "bash", cwd=tmp_path, env=env, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    shell = Terminal(process)
    reader = asyncio.create_task(shell.read())
    try:
        yield shell
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        reader.cancel()


def server_environment(block: str) -> dict[str, str]:
    """The variables the tour's first block sets before `obeya serve`, which must be all it runs."""
    words = shlex.split(block)
    assert words[-2:] == ["obeya", "serve"], f"the tour's first block starts the server: {block!r}"
    return dict(word.split("=", 1) for word in words[:-2])


async def serve(database_url: str, environment: dict[str, str]) -> tuple[Cluster, ClusterNode]:
    """`obeya serve` of this checkout as one process on a free port, alone as a newcomer runs it: no Redis."""
    cluster = Cluster(database_url, redis_url="")
    (node,) = await cluster.start(1, **environment)
    return cluster, node


async def test_the_five_minute_tour_runs_as_written(database_url: str, terminal: Terminal) -> None:
    assert shutil.which("curl"), "the tour runs curl"
    readme = README.read_text()
    first, *blocks = tour_blocks(readme)
    assert len(blocks) >= 5, "helpers, sign-up, upgrade, board, watcher, item, webhook"
    cluster, node = await serve(database_url, server_environment(first))
    try:
        receiver = free_port()
        for number, block in enumerate(blocks, 1):
            block = block.replace("8080", str(node.port))
            await terminal.paste(number, re.sub(r"\b9000\b", str(receiver), block))
        assert terminal.process.stdin is not None
        terminal.process.stdin.close()
        assert await asyncio.wait_for(terminal.process.wait(), BLOCK_SECONDS) == 0
    finally:
        await cluster.stop()
    shown = terminal.lines
    # What the prose says the watcher prints first; the plan the upgrade reached through the checkout link printed.
    replayed = re.search(r"It prints `(live: [^`]+)`", readme)
    assert replayed is not None and replayed[1] in shown
    assert "starter" in shown
    assert [line for line in shown if line.startswith(f"http://tour.localhost:{node.port}/billing/sandbox/checkout/")]
    # The item's creation arrived on the socket, and the webhook's delivery at the receiver and in its log.
    assert "live: 13 item.created Oil on the floor at press 3" in shown
    assert "webhook: item.created Guard rail loose at station 2" in shown
    logs = [json.loads(line) for line in shown if line.startswith('{"data":[')]
    assert [(d["event"], d["status"], d["responseCode"]) for log in logs for d in log["data"]] == [
        ("item.created", "succeeded", 204)]
    # Nothing went wrong on the way: no error envelope, no traceback.
    assert not [line for line in shown if line.startswith(("{'error'", '{"error"', "Traceback"))], "\n".join(shown)
