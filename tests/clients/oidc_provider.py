"""A real OpenID Connect provider for the single sign-on tests: tests/clients/oidc/provider.mjs (panva's
oidc-provider with its development login and consent forms) run as a subprocess on 127.0.0.1, stopped by pid."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from tests.clients.node_packages import npm_ci
from tests.harness import free_port

PROVIDER_DIR = Path(__file__).parent / "oidc"
START_TIMEOUT_S = 20


@dataclass
class OidcProvider:
    issuer: str
    client_id: str
    client_secret: str
    process: asyncio.subprocess.Process
    port: int
    redirect_uris: list[str] = field(default_factory=list)


def install() -> None:
    npm_ci(PROVIDER_DIR, "oidc-provider")


async def _wait_for_discovery(issuer: str, process: asyncio.subprocess.Process) -> None:
    url = f"{issuer}/.well-known/openid-configuration"
    async with aiohttp.ClientSession() as session:
        for _ in range(START_TIMEOUT_S * 20):
            if process.returncode is not None:
                raise RuntimeError(f"the OIDC provider exited with {process.returncode}")
            try:
                async with session.get(url) as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.05)  # polling a starting process, not waiting for an effect to assert
    raise RuntimeError(f"the OIDC provider did not serve {url} in {START_TIMEOUT_S} s")


async def start(redirect_uris: list[str], *, port: int | None = None, client_id: str | None = None,
                client_secret: str | None = None, auth_method: str = "client_secret_basic",
                conform: bool = False, ec_key: bool = False) -> OidcProvider:
    """A provider with one confidential client; new signing keys at every start (a restart rotates them).
    `auth_method` is how the client authenticates at the token endpoint; `conform` keeps the e-mail out of the ID
    token (only at the userinfo endpoint); `ec_key` publishes an ES256 key beside the RSA one."""
    port = port or free_port()
    client_id = client_id or f"obeya-{secrets.token_hex(4)}"
    client_secret = client_secret or secrets.token_urlsafe(24)
    config = {"port": port, "clientId": client_id, "clientSecret": client_secret, "redirectUris": redirect_uris,
              "authMethod": auth_method, "conform": conform, "ecKey": ec_key}
    process = await asyncio.create_subprocess_exec(
        "node", str(PROVIDER_DIR / "provider.mjs"), json.dumps(config), cwd=PROVIDER_DIR,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    provider = OidcProvider(f"http://127.0.0.1:{port}", client_id, client_secret, process, port, redirect_uris)
    try:
        await _wait_for_discovery(provider.issuer, process)
    except BaseException:
        await stop(provider)
        raise
    return provider


async def stop(provider: OidcProvider) -> None:
    if provider.process.returncode is None:
        provider.process.terminate()
        await provider.process.wait()


@asynccontextmanager
async def running(redirect_uris: list[str], *, auth_method: str = "client_secret_basic",
                  conform: bool = False, ec_key: bool = False) -> AsyncIterator[OidcProvider]:
    provider = await start(redirect_uris, auth_method=auth_method, conform=conform, ec_key=ec_key)
    try:
        yield provider
    finally:
        await stop(provider)
