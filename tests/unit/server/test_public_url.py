"""Where clients reach the server (OBEYA_PUBLIC_URL, its default from where `obeya serve` listens, and the
service host that follows it) and where the embedded database lives (the user's data directory)."""

from __future__ import annotations

from pathlib import Path

import pytest

from actors.kernel.public_url import PublicUrl
from server.cli import where_data_is
from server.config import Settings


@pytest.mark.parametrize(("host", "port", "expected"), [
    ("127.0.0.1", 8080, "http://localhost:8080"), ("::1", 8080, "http://localhost:8080"),
    ("0.0.0.0", 9000, "http://localhost:9000"), ("::", 9000, "http://localhost:9000"),
    ("localhost", 8081, "http://localhost:8081"), ("obeya.lan", 8080, "http://obeya.lan:8080"),
    ("192.168.1.20", 80, "http://192.168.1.20"), ("fd00::7", 8080, "http://[fd00::7]:8080")])
def test_in_development_the_public_url_is_where_serve_listens(host: str, port: int, expected: str) -> None:
    settings = Settings.from_env({})
    assert settings.public_url is None and settings.service_host == "localhost"
    assert str(settings.public_url_for(host, port)) == expected
    assert str(settings.public_url_for()) == "http://localhost:8080"  # the commands that do not serve


def test_a_public_url_names_scheme_host_and_port_and_becomes_the_service_host() -> None:
    settings = Settings.from_env({"OBEYA_PUBLIC_URL": "https://Obeya.Example.com:8443/"})
    assert settings.public_url == PublicUrl("https", "obeya.example.com", 8443)
    assert settings.service_host == "obeya.example.com"
    assert settings.public_url_for("0.0.0.0", 9000) == settings.public_url  # the setting wins over --port
    assert settings.public_url.at("acme.obeya.example.com") == "https://acme.obeya.example.com:8443"
    assert str(Settings.from_env({"OBEYA_PUBLIC_URL": "https://obeya.example.com:443"}).public_url) == \
        "https://obeya.example.com"
    agreeing = Settings.from_env({"OBEYA_PUBLIC_URL": "http://localhost:8080", "OBEYA_SERVICE_HOST": "LocalHost"})
    assert (str(agreeing.public_url), agreeing.service_host) == ("http://localhost:8080", "localhost")


def test_production_without_a_public_url_is_https_on_the_service_host_as_before() -> None:
    settings = Settings.from_env({"OBEYA_ENV": "production", "OBEYA_BILLING": "sandbox",
                                  "OBEYA_SERVICE_HOST": "obeya.example.com"})
    assert settings.public_url == PublicUrl("https", "obeya.example.com")
    assert settings.public_url_for("0.0.0.0", 8080) == PublicUrl("https", "obeya.example.com")


@pytest.mark.parametrize("value", [
    "obeya.example.com", "ftp://obeya.example.com", "https://", "https://obeya.example.com/obeya",
    "https://obeya.example.com?x=1", "https://obeya.example.com#top", "https://obeya.example.com:99999",
    "https://user:pw@obeya.example.com", "https://obeya.example.com:port", "https://10.0.0.5",
    "http://[::1]:8080", "https://under_score.example.com", "http://localhost:0", "https://obeya.example.com:00",
    "https://obeya.example.com:-1", "https://obeya.example.com:65536"])
def test_a_public_url_that_cannot_be_used_stops_the_start_naming_it(value: str) -> None:
    with pytest.raises(SystemExit, match="OBEYA_PUBLIC_URL"):
        Settings.from_env({"OBEYA_PUBLIC_URL": value})


def test_production_takes_an_https_public_url_only() -> None:
    production = {"OBEYA_ENV": "production", "OBEYA_BILLING": "sandbox"}
    with pytest.raises(SystemExit, match="OBEYA_PUBLIC_URL must be https in production"):
        Settings.from_env({**production, "OBEYA_PUBLIC_URL": "http://obeya.example.com"})
    assert str(Settings.from_env({**production, "OBEYA_PUBLIC_URL": "https://obeya.example.com"}).public_url) == \
        "https://obeya.example.com"


def test_a_service_host_other_than_the_public_urls_host_stops_the_start() -> None:
    with pytest.raises(SystemExit, match="OBEYA_SERVICE_HOST .*OBEYA_PUBLIC_URL"):
        Settings.from_env({"OBEYA_PUBLIC_URL": "https://obeya.example.com", "OBEYA_SERVICE_HOST": "example.com"})


def test_the_data_directory_is_the_users_whichever_directory_a_command_runs_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    found = []
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        monkeypatch.chdir(tmp_path / folder)
        found.append(Settings.from_env({}).data_dir)
    assert found == [tmp_path / "share" / "obeya"] * 2
    assert Settings.from_env({"OBEYA_DATA_DIR": str(tmp_path / "mine")}).data_dir == tmp_path / "mine"


def test_where_the_data_is_shows_no_password() -> None:
    assert where_data_is(Settings.from_env({"OBEYA_DATA_DIR": "/srv/obeya"})) == \
        "data in /srv/obeya (embedded PostgreSQL)"
    configured = Settings.from_env({"OBEYA_DATABASE_URL": "postgresql://obeya:s3cret@db:5432/obeya?password=x"})
    assert where_data_is(configured) == "database: postgresql://obeya@db:5432/obeya"
    assert where_data_is(Settings.from_env({"OBEYA_DATABASE_URL": "host=db password=s3cret"})) == \
        "database: OBEYA_DATABASE_URL"
