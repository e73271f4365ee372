"""LocalDirectory: every actor lives on this node, and an entry exists only while claimed."""

from __future__ import annotations

from actors.runtime.directory import Directory, LocalDirectory


async def test_local_directory_places_claimed_actors_on_this_node() -> None:
    directory: Directory = LocalDirectory("node-a")
    assert await directory.locate("board:1") is None

    assert await directory.claim("board:1")
    assert await directory.locate("board:1") == "node-a"

    await directory.release("board:1")
    assert await directory.locate("board:1") is None
