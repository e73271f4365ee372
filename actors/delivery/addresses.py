"""Where outbound requests (webhook deliveries, automations' `call_webhook`) may go: the one address policy.

Refused in every environment unless `OBEYA_ALLOW_PRIVATE_TARGETS=1` (`NodeSettings.allow_private_targets`):
loopback, private, link-local (the cloud metadata address 169.254.169.254), shared, reserved, multicast and
unspecified addresses, and the IPv6 forms that embed one: IPv4-mapped `::ffff:0:0/96` and the 6to4
`2002::/16` and NAT64 `64:ff9b::/96` prefixes are judged by the IPv4 address they carry; IPv4-compatible
`::/96`, Teredo `2001::/32` and local-use NAT64 `64:ff9b:1::/48` are refused whole (deprecated or tunnels
whose far end cannot be judged).

The check is made where the socket is opened, on the address actually connected to (`outbound_connector`),
so a name that resolved to a public address when a webhook was saved cannot be rebound to a private one at
send time, and a literal address aiohttp does not resolve is checked too. Saving a URL checks it as well
(actors/delivery/webhooks.py `check_url`), so most mistakes are refused at once with 422.
"""

from __future__ import annotations

import errno
import ipaddress
import socket

import aiohttp
from aiohappyeyeballs import AddrInfoType
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
_TEREDO = ipaddress.IPv6Network("2001::/32")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")


def _kind(address: IPAddress) -> str | None:
    """What makes a plain (not embedding) address unreachable for outbound requests, or None."""
    if address.is_unspecified:
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address.is_reserved:
        return "reserved"
    if address.is_private:
        return "private"
    if not address.is_global:
        return "non-public"
    return None


def refusal(address: IPAddress) -> str | None:
    """Why an outbound request may not reach `address` ("a loopback address", ...), or None if it may."""
    if isinstance(address, ipaddress.IPv6Address):
        address = ipaddress.IPv6Address(address.packed)  # without a zone (fe80::1%eth0)
        if address.ipv4_mapped is not None:
            kind = _kind(address.ipv4_mapped)
            return f"an IPv4-mapped {kind} address" if kind else None
        if address in _SIX_TO_FOUR:
            assert address.sixtofour is not None
            kind = _kind(address.sixtofour)
            return f"a 6to4 address embedding a {kind} IPv4 address" if kind else None
        if address in _NAT64:
            kind = _kind(ipaddress.IPv4Address(address.packed[-4:]))
            return f"a NAT64 address embedding a {kind} IPv4 address" if kind else None
        if address in _NAT64_LOCAL:
            return "a local-use NAT64 address"
        if address in _TEREDO:
            return "a Teredo address"
        if address in _IPV4_COMPATIBLE and not (address.is_loopback or address.is_unspecified):
            return "an IPv4-compatible address"
    kind = _kind(address)
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} address" if kind else None


def literal_address(host: str) -> IPAddress | None:
    """The address a URL's host names without DNS: `10.0.0.1`, `::1`, and the legacy IPv4 spellings the
    system resolver also accepts (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`); None for a name."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if not host or not all(char in "0123456789abcdefxABCDEFX." for char in host) or not host[0].isdigit():
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


class RefusedAddress(OSError):
    """A connection to an address the policy refuses; its message says which address and why."""

    def __init__(self, host: str, address: str, why: str) -> None:
        shown = address if host == address else f"{host} ({address})"
        super().__init__(errno.EACCES, f"{shown} is {why}: outbound requests may not reach it "
                                       "(OBEYA_ALLOW_PRIVATE_TARGETS=1 allows it)")


class PublicOnlyResolver(AbstractResolver):
    """Resolves like aiohttp's default resolver and refuses names with any refused address."""

    def __init__(self) -> None:
        self._resolver = DefaultResolver()

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
                      ) -> list[ResolveResult]:
        results = await self._resolver.resolve(host, port, family)
        for result in results:
            why = refusal(ipaddress.ip_address(result["host"]))
            if why is not None:
                raise RefusedAddress(host, result["host"], why)
        return results

    async def close(self) -> None:
        await self._resolver.close()


def public_socket(addr_info: AddrInfoType) -> socket.socket:
    """aiohttp's socket factory: the last word, on the very address about to be connected to (a literal
    address in the URL never reaches the resolver)."""
    family, kind, proto, _, sockaddr = addr_info
    host = str(sockaddr[0])
    why = refusal(ipaddress.ip_address(host.split("%")[0]))
    if why is not None:
        raise RefusedAddress(host, host, why)
    return socket.socket(family=family, type=kind, proto=proto)


def outbound_connector(allow_private: bool) -> aiohttp.TCPConnector | None:
    """The connector of a session for outbound requests: None (aiohttp's default) when private targets are
    allowed, else one that refuses every address the policy refuses."""
    if allow_private:
        return None
    return aiohttp.TCPConnector(resolver=PublicOnlyResolver(), socket_factory=public_socket)
