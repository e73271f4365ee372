"""`GET /metrics` (web/metrics.py): the Prometheus text a scraper reads on the bare service host — requests by
procedure and status, actor turns and commits, active actors, mailbox depth, pool use, delivery backlog; a
refusal counted and logged; not served on an organization's host; in production only with the bearer token."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families
from structlog.testing import capture_logs

from server.app import create_app
from tests.conftest import server_settings
from tests.harness import Org
from tests.integration.boards.conftest import make_board

TOKEN = "a-metrics-token-for-the-tests"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the exposition, by name and sorted labels (parsed with prometheus_client's own parser)."""
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(parsed: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return parsed[(name, tuple(sorted(labels.items())))]


async def scrape(client: Any, host: str = "localhost", token: str | None = None) -> aiohttp.ClientResponse:
    headers = {"Host": host}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    response: aiohttp.ClientResponse = await client.get("/metrics", headers=headers)
    return response


async def test_metrics_show_requests_turns_actors_pool_and_backlog(client: Any, org: Org) -> None:
    board = await make_board(org)
    created = await board.api.mutate("items.create", {"boardId": board.id, "groupId": board.view["groups"][0]["id"],
                                                      "name": "Fix the leak"})
    assert created.status == 200, created.body
    assert (await org.owner.query("auth.me")).status == 200

    response = await scrape(client)
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    parsed = samples(await response.text())
    assert value(parsed, "obeya_request_duration_seconds_count", procedure="auth.me", status="200") == 1
    assert value(parsed, "obeya_request_duration_seconds_count", procedure="items.create", status="200") == 1
    assert value(parsed, "obeya_request_duration_seconds_bucket", procedure="auth.me", status="200", le="+Inf") == 1
    assert value(parsed, "obeya_actor_turn_messages_count") >= 1
    assert value(parsed, "obeya_actor_commit_seconds_count") >= 1
    assert value(parsed, "obeya_active_actors") >= 1  # the board's actor
    assert value(parsed, "obeya_mailbox_messages") == 0
    assert value(parsed, "obeya_db_pool_max_connections") == 20
    opened = value(parsed, "obeya_db_pool_connections", state="in_use") + value(parsed, "obeya_db_pool_connections",
                                                                                   state="idle")
    assert 1 <= opened <= 20
    assert value(parsed, "obeya_delivery_backlog", kind="webhook") >= 0
    assert value(parsed, "obeya_delivery_backlog", kind="mail") >= 0
    assert value(parsed, "obeya_fanout_seconds_count") >= 1  # the item's event reached the gateway

    # A route that is no procedure is labelled by its pattern, never by its path.
    assert (await client.get("/healthz")).status == 200
    again = samples(await (await scrape(client)).text())
    assert value(again, "obeya_request_duration_seconds_count", procedure="/healthz", status="200") == 1
    assert value(again, "obeya_request_duration_seconds_count", procedure="/metrics", status="200") >= 1


async def test_a_refusal_is_counted_and_logged_as_a_warning(client: Any, org: Org) -> None:
    wrong = {"email": org.owner_email, "password": "not the password at all"}
    with capture_logs() as logs:
        statuses = [(await org.anonymous.rest("POST", "/api/v1/auth/login", wrong)).status for _ in range(6)]
    assert statuses == [401] * 5 + [429]
    [refused] = [entry for entry in logs if entry["event"] == "request_refused"]
    assert refused["log_level"] == "warning" and refused["status"] == 429
    assert refused["path"] == "/api/v1/auth/login"
    parsed = samples(await (await scrape(client)).text())
    assert value(parsed, "obeya_refusals_total", status="429", procedure=refused["procedure"]) == 1


async def test_metrics_are_not_served_on_an_organization_host(client: Any, org: Org) -> None:
    response = await scrape(client, host=org.host)
    assert response.status == 404
    assert "obeya_" not in await response.text()


@pytest.fixture
async def production(aiohttp_client: Any, database_url: str, request: pytest.FixtureRequest) -> Any:
    settings = server_settings(request, OBEYA_ENV="production", OBEYA_BILLING="sandbox", OBEYA_BCRYPT_ROUNDS="10",
                               OBEYA_METRICS_TOKEN=TOKEN)
    return await aiohttp_client(create_app(settings, database_url))


async def test_production_metrics_need_the_bearer_token(production: Any) -> None:
    assert (await scrape(production)).status == 401
    assert (await scrape(production, token="a-wrong-token-of-some-length")).status == 401
    allowed = await scrape(production, token=TOKEN)
    assert allowed.status == 200
    assert "obeya_active_actors" in await allowed.text()


async def test_production_metrics_answer_prometheus_at_a_pod_address_or_a_node_name(production: Any) -> None:
    """Prometheus scrapes by target address (deploy/prometheus.yml: node1:8080; the ServiceMonitor: the pod's IP):
    that Host is no organization's, so the token is all it takes."""
    for host in ("10.244.1.7:8080", "node1:8080", "[fd00::7]:8080"):
        assert (await scrape(production, host=host, token=TOKEN)).status == 200, host
        assert (await scrape(production, host=host)).status == 401, host


async def test_production_without_a_token_has_no_metrics(aiohttp_client: Any, database_url: str,
                                                        request: pytest.FixtureRequest) -> None:
    settings = server_settings(request, OBEYA_ENV="production", OBEYA_BILLING="sandbox", OBEYA_BCRYPT_ROUNDS="10")
    client = await aiohttp_client(create_app(settings, database_url))
    assert (await scrape(client)).status == 404
    assert (await scrape(client, token="anything-at-all-here")).status == 404


async def test_two_apps_in_one_process_keep_their_own_counts(aiohttp_client: Any, database_url: str,
                                                            request: pytest.FixtureRequest) -> None:
    first = await aiohttp_client(create_app(server_settings(request), database_url))
    second = await aiohttp_client(create_app(server_settings(request), database_url))
    for _ in range(3):
        assert (await first.get("/healthz")).status == 200
    assert (await second.get("/healthz")).status == 200
    first_count = value(samples(await (await scrape(first)).text()), "obeya_request_duration_seconds_count",
                        procedure="/healthz", status="200")
    second_count = value(samples(await (await scrape(second)).text()), "obeya_request_duration_seconds_count",
                         procedure="/healthz", status="200")
    assert (first_count, second_count) == (3, 1)
