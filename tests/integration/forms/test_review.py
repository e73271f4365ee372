"""Faults found reviewing the forms code (issue 11, review-forms): bad references in the public paths, the item
a submission makes holding the files as the board stores them, and what a removed submission leaves behind."""

from __future__ import annotations

from tests.integration.boards.conftest import Board
from tests.integration.forms.conftest import published_form, submit
from tests.integration.forms.test_submit import ANSWERS


async def test_a_form_reference_no_form_can_have_is_404_not_a_server_error(fboard: Board) -> None:
    anonymous = fboard.org.anonymous
    await published_form(fboard)
    for ref in ("%00", "frm_%00", "defect%00report", "frm_" + "a" * 100, "-x-"):
        got = await anonymous.rest("GET", f"/api/forms/{ref}")
        assert got.status == 404, (ref, got.body)
        posted = await submit(anonymous, ref, ANSWERS)
        assert posted.status == 404, (ref, posted.body)
