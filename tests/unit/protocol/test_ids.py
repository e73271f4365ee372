"""Ids drawn from the pooled random bytes (protocol/ids.py) in a child forked while another thread draws one; ids
derived from their parts."""

from __future__ import annotations

import os
import re
import select
import signal
import threading

from protocol import ids


def test_a_child_forked_while_another_thread_draws_an_id_draws_its_own() -> None:
    # A thread is inside the pool's lock at the moment of the fork: the child has a copy of that lock, held
    # by a thread that does not exist there.
    inside, leave = threading.Event(), threading.Event()

    def draw_slowly() -> None:
        with ids._pool_lock:
            inside.set()
            leave.wait(10)

    drawer = threading.Thread(target=draw_slowly)
    drawer.start()
    assert inside.wait(10)
    readable, writable = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child)
        os.write(writable, ids.new_id("tst").encode())
        os._exit(0)
    leave.set()
    drawer.join()
    os.close(writable)
    try:
        ready, _, _ = select.select([readable], [], [], 10)
        child_id = os.read(readable, 100).decode() if ready else None
    finally:
        os.close(readable)
        if not ready:
            os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    assert child_id is not None and child_id.startswith("tst_") and len(child_id) == 24
    assert child_id != ids.new_id("tst")


def test_a_derived_id_has_the_form_of_a_drawn_one_and_is_the_same_for_the_same_parts() -> None:
    derived = ids.derived_id("itm", "imp_abc", "2")
    assert re.fullmatch(r"itm_[a-z2-7]{20}", derived)
    assert derived == ids.derived_id("itm", "imp_abc", "2")
    assert len({derived, ids.derived_id("itm", "imp_abc", "3"), ids.derived_id("itm", "imp_ab", "c2"),
                ids.derived_id("itm", "imp_abc2")}) == 4
