"""Address checks for ``web_fetch``: which IP addresses a fetch may connect to (the SSRF guard).

An address is *blocked* unless it is globally reachable. The ranges are listed here (from the
IANA special-purpose registries) rather than taken from :mod:`ipaddress`'s ``is_global``,
whose answers changed between Python patch releases:

* IPv4: ``0/8``, ``10/8``, ``100.64/10`` (CGNAT), ``127/8``, ``169.254/16`` (link-local and
  cloud metadata), ``172.16/12``, ``192.0.0/24``, the documentation and benchmarking nets,
  ``192.168/16``, ``224/4`` (multicast) and ``240/4`` (reserved, broadcast).
* IPv6: ``::`` and ``::1``, the deprecated IPv4-compatible ``::/96``, discard ``100::/64``,
  documentation, ULA ``fc00::/7``, link-local ``fe80::/10``, site-local ``fec0::/10`` and
  multicast ``ff00::/8``. Addresses that embed an IPv4 address (IPv4-mapped ``::ffff:0:0/96``,
  NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``) are judged by the embedded address.

:class:`AddressPolicy` adds the user's exceptions (``tools.webFetch.allowPrivateAddresses``:
``true`` allows every address, a list of CIDR blocks allows those). :func:`is_private_host` is
the reference's host-name heuristic (``localhost``, single-label names, ``.local`` ...), used
only to decide whether ``http://`` is upgraded to ``https://``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeAlias

IPAddress: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network

__all__ = ["AddressPolicy", "IPAddress", "is_blocked_address", "is_private_host", "parse_ip"]

_BLOCKED_V4 = tuple(
    ipaddress.IPv4Network(net)
    for net in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
    )
)
_BLOCKED_V6 = tuple(
    ipaddress.IPv6Network(net)
    for net in (
        "::/96",  # unspecified, loopback, deprecated IPv4-compatible
        "64:ff9b:1::/48",  # local-use NAT64
        "100::/64",
        "2001:2::/48",
        "2001:db8::/32",
        "3fff::/20",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
    )
)
_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")


def parse_ip(host: str) -> IPAddress | None:
    """``host`` as an IP address (brackets and an IPv6 zone allowed), or ``None`` for a name."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    bare = bare.split("%", 1)[0]
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address in _MAPPED or address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _SIX_TO_FOUR:
        return ipaddress.IPv4Address((int(address) >> 80) & 0xFFFFFFFF)
    return None


def is_blocked_address(address: IPAddress) -> bool:
    """Whether ``address`` is not globally reachable (private, loopback, link-local, ...)."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return is_blocked_address(embedded)
        return any(address in net for net in _BLOCKED_V6)
    return any(address in net for net in _BLOCKED_V4)


@dataclass(frozen=True, slots=True)
class AddressPolicy:
    """Which addresses a fetch may connect to: global ones, plus the configured exceptions."""

    allow_all: bool = False
    allowed: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_setting(cls, value: bool | Iterable[str]) -> AddressPolicy:
        """Build from ``allowPrivateAddresses`` (raises ``ValueError`` on a bad CIDR block)."""
        if isinstance(value, bool):
            return cls(allow_all=value)
        return cls(allowed=tuple(ipaddress.ip_network(item, strict=False) for item in value))

    def permits(self, address: IPAddress) -> bool:
        """Whether a connection to ``address`` is allowed."""
        if self.allow_all or not is_blocked_address(address):
            return True
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address.version == net.version and address in net for net in self.allowed)


# -- the reference's "private host" heuristic (used for the https upgrade only) ----------------

_PRIVATE_IP_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^10\.",
        r"^127\.",
        r"^172\.(1[6-9]|2[0-9]|3[0-1])\.",
        r"^192\.168\.",
        r"^169\.254\.",
        r"^100\.(6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])\.",
        r"^0\.0\.0\.0$",
        r"^::1$",
        r"^::$",
        r"^f[cd][0-9a-f]{2}:",
        r"^fe[89ab][0-9a-f]:",
    )
)
_INTERNAL_SUFFIXES = (".local", ".internal", ".lan", ".home.arpa")
_MAPPED_TAIL = re.compile(r"^::ffff:(.+)$", re.IGNORECASE)


def _mapped_ipv4_text(hostname: str) -> str | None:
    match = _MAPPED_TAIL.match(hostname)
    if not match:
        return None
    tail = match.group(1)
    if "." in tail:
        return tail
    groups = tail.split(":")
    if len(groups) != 2:
        return None
    try:
        hi, lo = int(groups[0], 16), int(groups[1], 16)
    except ValueError:
        return None
    return f"{hi >> 8}.{hi & 255}.{lo >> 8}.{lo & 255}"


def is_private_host(hostname: str) -> bool:
    """Whether a URL's host looks local: such ``http://`` URLs are not upgraded to https."""
    host = hostname.lower()
    if host in ("localhost", "host.docker.internal") or host.endswith(".localhost"):
        return True
    if "." not in host and ":" not in host:
        return True  # single-label names (intranet, ci, ...) are never public
    if host.endswith(_INTERNAL_SUFFIXES):
        return True
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    target = _mapped_ipv4_text(bare) or bare
    return any(p.search(target) for p in _PRIVATE_IP_PATTERNS)
