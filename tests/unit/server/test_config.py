"""Settings from the environment: defaults, every OBEYA_* wait and size read, and a value that cannot be used
stops the start-up with a message naming its variable."""

from __future__ import annotations

import pytest

from server.config import WORKERS, Settings


def test_defaults() -> None:
    settings = Settings.from_env({})
    assert (settings.pool_size, settings.pool_timeout, settings.statement_timeout) == (20, 5.0, 30.0)
    assert (settings.ask_timeout, settings.max_actors, settings.http_timeout) == (10.0, 10_000, 10.0)
    assert settings.bcrypt_rounds == 10 and settings.workers == WORKERS
    assert settings.secret_key is None  # sealed under a key kept in the database
    assert settings.allow_private_targets is False
    assert settings.idempotency_purge_interval == 3600.0


def test_every_variable_is_read() -> None:
    settings = Settings.from_env({"OBEYA_POOL_SIZE": "40", "OBEYA_POOL_TIMEOUT": "2.5",
                                  "OBEYA_STATEMENT_TIMEOUT": "12", "OBEYA_ASK_TIMEOUT": "7",
                                  "OBEYA_MAX_ACTORS": "500", "OBEYA_HTTP_TIMEOUT": "3",
                                  "OBEYA_BCRYPT_ROUNDS": "12", "OBEYA_SECRET_KEY": "s" * 32,
                                  "OBEYA_ALLOW_PRIVATE_TARGETS": "1", "OBEYA_IDEMPOTENCY_PURGE_INTERVAL": "0.5"})
    assert (settings.pool_size, settings.pool_timeout, settings.statement_timeout) == (40, 2.5, 12.0)
    assert (settings.ask_timeout, settings.max_actors, settings.http_timeout) == (7.0, 500, 3.0)
    assert settings.bcrypt_rounds == 12 and settings.secret_key == "s" * 32
    assert settings.allow_private_targets is True
    assert settings.idempotency_purge_interval == 0.5


@pytest.mark.parametrize(("name", "value"), [
    ("OBEYA_POOL_SIZE", "many"), ("OBEYA_POOL_SIZE", "2"), ("OBEYA_POOL_TIMEOUT", "0"),
    ("OBEYA_POOL_TIMEOUT", "-1"), ("OBEYA_STATEMENT_TIMEOUT", "soon"), ("OBEYA_STATEMENT_TIMEOUT", "nan"),
    ("OBEYA_ASK_TIMEOUT", "inf"), ("OBEYA_MAX_ACTORS", "0"), ("OBEYA_HTTP_TIMEOUT", "1e9"),
    ("OBEYA_BCRYPT_ROUNDS", "3"), ("OBEYA_BCRYPT_ROUNDS", "32"), ("OBEYA_BCRYPT_ROUNDS", "ten"),
    ("OBEYA_SECRET_KEY", "too short to be secret"), ("OBEYA_METRICS_TOKEN", "short"),
    ("OBEYA_SHUTDOWN_TIMEOUT", "0"), ("OBEYA_SHUTDOWN_TIMEOUT", "forever"),
    ("OBEYA_ALLOW_PRIVATE_TARGETS", "yes"), ("OBEYA_ALLOW_PRIVATE_TARGETS", "true"),
    ("OBEYA_IDEMPOTENCY_PURGE_INTERVAL", "0"), ("OBEYA_IDEMPOTENCY_PURGE_INTERVAL", "hourly"),
    ("OBEYA_NODE_ID", "node one"), ("OBEYA_NODE_ID", "n" * 101), ("OBEYA_NODE_ID", "node\t1"),
    ("OBEYA_ACTOR_LEASE", "0"), ("OBEYA_ACTOR_LEASE", "long"),
    ("OBEYA_SMTP_URL", "http://mail.example"), ("OBEYA_SMTP_URL", "smtp://mail.example:99999"),
    ("OBEYA_SMTP_URL", "smtp://")])
def test_a_bad_value_stops_the_start_naming_its_variable(name: str, value: str) -> None:
    with pytest.raises(SystemExit, match=name):
        Settings.from_env({name: value})


def test_the_node_id_and_the_actor_lease() -> None:
    """Unset, each process gets a node id of its own (two nodes on one host never share their claims)."""
    first, second = Settings.from_env({}), Settings.from_env({})
    assert first.node_id != second.node_id and first.actor_lease == 10.0
    given = Settings.from_env({"OBEYA_NODE_ID": "obeya-7f9c4-x2x8z", "OBEYA_ACTOR_LEASE": "2.5"})
    assert (given.node_id, given.actor_lease) == ("obeya-7f9c4-x2x8z", 2.5)


def test_the_limits_a_site_behind_one_address_needs() -> None:
    """Defaults sized for a plant behind one NAT address (docs/security.md "One address, a whole site"); the
    address throttle's old variable, set in an existing deployment, is no longer read and stops nothing."""
    defaults = Settings.from_env({})
    assert defaults.anonymous_rate_limit == 600
    assert (defaults.socket_max_per_user, defaults.socket_max_per_address) == (500, 2000)
    given = Settings.from_env({"OBEYA_ANONYMOUS_RATE_LIMIT": "5000", "OBEYA_SOCKET_MAX_PER_USER": "64",
                               "OBEYA_SOCKET_MAX_PER_ADDRESS": "10000"})
    assert (given.anonymous_rate_limit, given.socket_max_per_user, given.socket_max_per_address) == (5000, 64, 10000)
    for old in ("0", "1"):
        assert Settings.from_env({"OBEYA_ADDRESS_THROTTLE": old}).anonymous_rate_limit == 600
    for value in ("0", "-5", "lots", "1000001"):
        with pytest.raises(SystemExit, match="OBEYA_ANONYMOUS_RATE_LIMIT"):
            Settings.from_env({"OBEYA_ANONYMOUS_RATE_LIMIT": value})


def test_production_refuses_a_cheap_bcrypt_cost() -> None:
    assert Settings.from_env({"OBEYA_BCRYPT_ROUNDS": "4"}).bcrypt_rounds == 4  # development and tests
    with pytest.raises(SystemExit, match="OBEYA_BCRYPT_ROUNDS must be at least 10 in production"):
        Settings.from_env({"OBEYA_ENV": "production", "OBEYA_BCRYPT_ROUNDS": "9"})
    assert Settings.from_env({"OBEYA_ENV": "production", "OBEYA_BILLING": "sandbox"}).bcrypt_rounds == 10


def test_the_secret_key_is_never_shown() -> None:
    """Settings (and the node built from them) may be logged; the key sealing secrets at rest must not be."""
    key = "a-secret-key-of-forty-characters-abcdef"
    settings = Settings.from_env({"OBEYA_SECRET_KEY": key})
    assert key not in repr(settings)
    assert settings.node_settings().secret_key == key and key not in repr(settings.node_settings())
    with pytest.raises(SystemExit) as stopped:
        Settings.from_env({"OBEYA_SECRET_KEY": "short secret"})
    assert "short secret" not in str(stopped.value)


def test_the_node_is_given_what_its_services_read() -> None:
    settings = Settings.from_env({"OBEYA_PUBLIC_URL": "http://obeya.test:8080", "OBEYA_HTTP_TIMEOUT": "3",
                                  "OBEYA_BCRYPT_ROUNDS": "12", "OBEYA_ALLOW_PRIVATE_TARGETS": "1",
                                  "OBEYA_NODE_ID": "plant-1", "OBEYA_SMTP_URL": "smtp://mail.obeya.test"})
    node = settings.node_settings()
    assert (node.service_host, node.production, str(node.public_url)) == ("obeya.test", False, "http://obeya.test:8080")
    assert (node.http_timeout, node.bcrypt_rounds, node.allow_private_targets) == (3.0, 12, True)
    assert node.node_id == "plant-1" and node.smtp is not None and node.smtp.hostname == "mail.obeya.test"


def test_the_metrics_token_and_shutdown_timeout() -> None:
    assert Settings.from_env({}).shutdown_timeout == 20 and Settings.from_env({}).metrics_token is None
    token = "a-metrics-token-of-some-length"
    settings = Settings.from_env({"OBEYA_METRICS_TOKEN": token, "OBEYA_SHUTDOWN_TIMEOUT": "5"})
    assert (settings.metrics_token, settings.shutdown_timeout) == (token, 5)
    assert token not in repr(settings)


STRIPE = {"OBEYA_BILLING": "stripe", "OBEYA_STRIPE_SECRET_KEY": "sk_test_abc", "OBEYA_STRIPE_WEBHOOK_SECRET": "whsec_x",
          "OBEYA_STRIPE_PRICES": '{"starter": {"monthly": "price_s_m", "annual": "price_s_y"},'
                                 ' "business": {"monthly": "price_b_m"}}'}


def test_a_plain_price_id_is_the_plans_monthly_price() -> None:
    plain = '{"starter": "price_1", "business": "price_2"}'
    stripe = Settings.from_env({**STRIPE, "OBEYA_STRIPE_PRICES": plain}).stripe
    assert stripe is not None
    assert stripe.prices == {"starter": {"monthly": "price_1"}, "business": {"monthly": "price_2"}}


def test_production_names_its_processor() -> None:
    with pytest.raises(SystemExit, match="OBEYA_BILLING must be set in production"):
        Settings.from_env({"OBEYA_ENV": "production"})
    assert Settings.from_env({"OBEYA_ENV": "production", "OBEYA_BILLING": "sandbox"}).stripe is None


def test_the_sandbox_is_the_default_processor_and_stripe_is_read_whole() -> None:
    assert Settings.from_env({}).stripe is None and Settings.from_env({"OBEYA_BILLING": "sandbox"}).stripe is None
    stripe = Settings.from_env(STRIPE).stripe
    assert stripe is not None
    assert stripe.prices == {"starter": {"monthly": "price_s_m", "annual": "price_s_y"},
                             "business": {"monthly": "price_b_m"}}
    assert (stripe.secret_key, stripe.webhook_secret, stripe.api_base) == ("sk_test_abc", "whsec_x", None)
    assert "sk_test_abc" not in repr(Settings.from_env(STRIPE)) and "whsec_x" not in repr(stripe)


@pytest.mark.parametrize(("name", "value"), [
    ("OBEYA_BILLING", "paypal"), ("OBEYA_STRIPE_SECRET_KEY", ""), ("OBEYA_STRIPE_SECRET_KEY", "pk_test_public"),
    ("OBEYA_STRIPE_WEBHOOK_SECRET", ""), ("OBEYA_STRIPE_WEBHOOK_SECRET", "secret"), ("OBEYA_STRIPE_PRICES", ""),
    ("OBEYA_STRIPE_PRICES", "price_1"), ("OBEYA_STRIPE_PRICES", "{}"),
    ("OBEYA_STRIPE_PRICES", '{"free": {"monthly": "p"}}'),
    ("OBEYA_STRIPE_PRICES", '{"starter": 7}'), ("OBEYA_STRIPE_PRICES", '{"starter": {"weekly": "price_1"}}'),
    ("OBEYA_STRIPE_PRICES", '{"starter": {"monthly": ""}}'),
    ("OBEYA_STRIPE_PRICES", '{"starter": {"monthly": "p"}, "business": {"monthly": "p"}}'),
    ("OBEYA_STRIPE_API_BASE", "ftp://stripe.example")])
def test_a_bad_stripe_setting_stops_the_start_naming_its_variable(name: str, value: str) -> None:
    with pytest.raises(SystemExit, match=name) as stopped:
        Settings.from_env({**STRIPE, name: value})
    if name != "OBEYA_BILLING":
        assert "sk_test_abc" not in str(stopped.value)
