"""Ids drawn from the pooled random bytes (protocol/ids.py) in a child forked while another thread draws one; ids
derived from their parts; the id prefixes, each declared once and the spec's as it spells them."""

from __future__ import annotations

import os
import re
import select
import signal
import threading
from pathlib import Path

import storage.migrations
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
        os.write(writable, ids.new_id(ids.Prefix.ITEM).encode())
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
    assert child_id is not None and child_id.startswith("itm_") and len(child_id) == 24
    assert child_id != ids.new_id(ids.Prefix.ITEM)


def test_a_derived_id_has_the_form_of_a_drawn_one_and_is_the_same_for_the_same_parts() -> None:
    item = ids.Prefix.ITEM
    derived = ids.derived_id(item, "imp_abc", "2")
    assert re.fullmatch(r"itm_[a-z2-7]{20}", derived)
    assert derived == ids.derived_id(item, "imp_abc", "2")
    assert len({derived, ids.derived_id(item, "imp_abc", "3"), ids.derived_id(item, "imp_ab", "c2"),
                ids.derived_id(item, "imp_abc2")}) == 4


def test_every_prefix_is_lowercase_letters() -> None:
    # Unique values are enforced where they are declared (@unique refuses a second name at import).
    assert [prefix.value for prefix in ids.Prefix if not re.fullmatch(r"[a-z]+", prefix.value)] == []


def test_every_prefix_a_migration_mints_is_declared() -> None:
    # Ids minted in SQL (inside one INSERT for many rows) spell their prefix as a literal `'xxx_' ||`.
    migrations = Path(storage.migrations.__file__).parent
    minted = {prefix for sql in migrations.glob("*.sql")
              for prefix in re.findall(r"'([a-z]+)_'\s*\|\|", sql.read_text())}
    assert minted >= {"whd", "ajb"}
    assert minted - {prefix.value for prefix in ids.Prefix} == set()


# The prefixes the spec lists (its att_ is not minted: attachments are files, file_).
SPEC_PREFIXES = {
    "org": "ORGANIZATION", "usr": "USER", "wsp": "WORKSPACE", "prj": "PROJECT", "brd": "BOARD", "grp": "GROUP",
    "col": "COLUMN", "lbl": "LABEL", "itm": "ITEM", "cmt": "COMMENT", "aut": "AUTOMATION",
    "exe": "AUTOMATION_EXECUTION", "kpi": "KPI", "alt": "KPI_ALERT", "act": "ACTION", "ps": "PROBLEM_SHEET",
    "cl": "STANDARD_WORK_CHECKLIST", "comp": "STANDARD_WORK_COMPLETION", "chk": "AUDIT_CHECKLIST", "aud": "AUDIT",
    "frm": "FORM", "sub": "FORM_SUBMISSION", "flow": "APPROVAL_FLOW", "req": "APPROVAL_REQUEST",
    "dec": "APPROVAL_DECISION", "dr": "DISTRIBUTION_RECIPIENT", "tpl": "TEMPLATE", "imp": "IMPORT",
    "inv": "INVITATION", "tok": "PERSONAL_TOKEN", "whk": "WEBHOOK", "evt": "EVENT", "file": "FILE"}


def test_the_resources_the_spec_names_take_its_prefixes() -> None:
    assert {spelled: ids.Prefix(spelled).name for spelled in SPEC_PREFIXES} == SPEC_PREFIXES
    assert ids.new_id(ids.Prefix.APPROVAL_DECISION).startswith("dec_")
    assert not ids.new_id(ids.Prefix.HTTP_REQUEST).startswith(f"{ids.Prefix.APPROVAL_REQUEST}_")
