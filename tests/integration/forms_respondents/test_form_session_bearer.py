"""A form-session token (`svc_fst_…`) as a bearer: on a path under /api/forms/ it is put on the request as
FORM_SESSION and the caller stays anonymous; anywhere else it is an invalid credential (401). The form paths
themselves are other packages'; a probe route under /api/forms/ shows what they receive."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from aiohttp import web

from tests.harness import make_org
from web.keys import CALLER, FORM_SESSION

TOKEN = "svc_fst_" + "A" * 43


async def _probe(request: web.Request) -> web.Response:
    caller = request[CALLER]
    return web.json_response({"formSession": request.get(FORM_SESSION), "userId": caller.user_id,
                              "organization": caller.organization.slug if caller.organization else None})


@pytest.fixture
async def probed_client(aiohttp_client: Any, database_url: str, settings: Any) -> Any:
    from server.app import create_app

    app = create_app(settings, database_url)
    app.router.add_get("/api/forms/{form_id}/probe", _probe)
    return await aiohttp_client(app, cookie_jar=aiohttp.DummyCookieJar())


async def test_a_form_session_bearer_reaches_the_form_paths_and_nothing_else(probed_client: Any) -> None:
    org = await make_org(probed_client)
    respondent = org.anonymous.with_bearer(TOKEN)
    seen = await respondent.rest("GET", "/api/forms/form_x/probe")
    assert seen.status == 200 and seen.body == {"formSession": TOKEN, "userId": None, "organization": org.slug}
    # Sent together with a member's session cookie, the caller is still the anonymous respondent.
    both = await respondent.rest("GET", "/api/forms/form_x/probe",
                                 headers={"Cookie": f"authjs.session-token={org.owner.session}"})
    assert both.body["userId"] is None and both.body["formSession"] == TOKEN
    plain = await org.anonymous.rest("GET", "/api/forms/form_x/probe")
    assert plain.body == {"formSession": None, "userId": None, "organization": org.slug}

    for refused in (await respondent.query("boards.list", {"projectId": "prj_x"}),
                    await respondent.rest("GET", "/api/v1/items"),
                    await respondent.mutate("forms.verifyOtp", {"formId": "form_x", "email": "a@b.test",
                                                                "code": "123456"})):
        assert refused.status == 401, refused.body
    # Another credential on a form path is resolved as usual.
    owner = await org.owner.rest("GET", "/api/forms/form_x/probe")
    assert owner.body["userId"] == org.owner_id and owner.body["formSession"] is None
