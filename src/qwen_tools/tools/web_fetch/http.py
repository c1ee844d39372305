"""The HTTP side of ``web_fetch``: one GET under a policy (time limit, size cap, redirects, SSRF guard).

As in Qwen Code 0.24.4 (``utils/fetch.ts``): redirects are followed by hand, at most
``max_redirects`` times, and only when they stay on the same host (a leading ``www.`` aside),
scheme and port; any other redirect is returned as a :class:`CrossHostRedirect` for the model
to decide. A 403 or 429, or a connection dropped mid-exchange, is retried once after 0.5 s.
One time limit covers the whole exchange, DNS and body included. Failures below HTTP read as
Node's fetch reports them (``fetch failed (cause: connect ECONNREFUSED 127.0.0.1:8080)``,
``getaddrinfo ENOTFOUND``, ``UND_ERR_SOCKET: other side closed``), and the Fetch standard's
blocked ports (``bad port``) are refused before any connection, as Node's fetch refuses them.

**The SSRF guard.** Before every connection (the first request, each redirect hop, the retry)
the host name is resolved here and *every* address it resolves to must be allowed by the
:class:`AddressPolicy`; the request then goes to the checked address itself (the URL carries the
IP, the ``Host`` header and the TLS server name carry the original name, so certificates are
still verified against the name). No second DNS look-up happens between the check and the
connection, which closes the DNS-rebinding window. A cross-host redirect to a blocked address
is refused outright instead of being offered to the model. Proxy variables and ``.netrc`` are
ignored (``trust_env=False``): a proxy would resolve names itself, out of the guard's sight.

Unlike the reference, a body over the size cap is cut at the cap (``truncated`` is set)
instead of failing the fetch.
"""

from __future__ import annotations

import errno
import socket
import ssl
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.tools.web_fetch.address import AddressPolicy, IPAddress, parse_ip

if TYPE_CHECKING:
    import httpx

__all__ = [
    "CrossHostRedirect",
    "FetchError",
    "FetchOptions",
    "FetchedResponse",
    "Resolver",
    "fetch_with_policy",
    "system_resolver",
]

Resolver = Callable[[str, int], Awaitable[Sequence[IPAddress]]]
"""Host name and port → the addresses to connect to (``getaddrinfo`` by default)."""

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_RETRY_STATUSES = frozenset({403, 429})
_RETRY_DELAY_S = 0.5
_CONNECTION_LEVEL = frozenset(
    {"ECONNREFUSED", "ECONNRESET", "EPROTO", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT"}
)
_RETRYABLE = frozenset({"ECONNRESET", "EAI_AGAIN", "UND_ERR_SOCKET"})
# The Fetch standard's blocked ports, which Node's fetch refuses for http(s) URLs.
_BAD_PORTS = frozenset(
    {1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101}
    | {102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179}
    | {389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587}
    | {601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061}
    | {6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080}
)
# httpx's wording of failures the reference reports in undici's words: (start, detail, code).
_PROTOCOL_DETAILS = (
    (
        "server disconnected without sending a response",
        "UND_ERR_SOCKET: other side closed",
        "UND_ERR_SOCKET",
    ),
    (
        "illegal status line",
        "Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)",
        None,
    ),
)


def fetch_failed(detail: str, code: str | None) -> FetchError:
    """Node's ``fetch failed (cause: <detail>)`` for a failure below HTTP."""
    return FetchError(f"fetch failed (cause: {detail})", code)


class FetchError(Exception):
    """A failed fetch; ``code`` is Node's error code for the same failure, when there is one."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code

    @property
    def connection_level(self) -> bool:
        """Whether the connection itself failed (the https upgrade then falls back to http)."""
        return self.code in _CONNECTION_LEVEL


@dataclass(frozen=True, slots=True)
class FetchOptions:
    """Limits and headers of one fetch."""

    timeout_s: float
    max_bytes: int
    max_redirects: int
    headers: Mapping[str, str]
    policy: AddressPolicy


@dataclass(frozen=True, slots=True)
class FetchedResponse:
    """The final response (the body is empty for a status outside 2xx)."""

    status: int
    status_text: str
    content_type: str
    content_disposition: str
    body: bytes
    final_url: str
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class CrossHostRedirect:
    """A redirect that was not followed (other host, scheme or port)."""

    original_url: str
    redirect_url: str
    status: int


async def system_resolver(host: str, port: int) -> Sequence[IPAddress]:
    """The addresses ``getaddrinfo`` gives for ``host`` (TCP), in its order, without repeats."""
    import anyio

    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        code = "EAI_AGAIN" if exc.errno == socket.EAI_AGAIN else "ENOTFOUND"
        raise fetch_failed(f"getaddrinfo {code} {host}", code) from None
    found: dict[IPAddress, None] = {}
    for info in infos:
        address = parse_ip(str(info[4][0]))
        if address is not None:
            found[address] = None
    return list(found)


def _refusal(host: str, address: IPAddress) -> FetchError:
    shown = host if parse_ip(host) is not None else f"{host} ({address})"
    return FetchError(
        f"Refused to connect to {shown}: private, loopback, link-local and other non-public "
        "addresses are blocked (the tools.webFetch.allowPrivateAddresses setting allows them)",
        "EPRIVATE",
    )


async def _checked_addresses(
    host: str, port: int, policy: AddressPolicy, resolve: Resolver
) -> Sequence[IPAddress]:
    literal = parse_ip(host)
    addresses = [literal] if literal is not None else await resolve(host, port)
    if not addresses:
        raise fetch_failed(f"getaddrinfo ENOTFOUND {host}", "ENOTFOUND")
    for address in addresses:
        if not policy.permits(address):
            raise _refusal(host, address)
    return addresses


def _port(url: httpx.URL) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


def _strip_www(host: str) -> str:
    return host[4:] if host.startswith("www.") else host


def _same_site(current: httpx.URL, target: httpx.URL) -> bool:
    """The reference's rule for following a redirect: same scheme, port and host (``www.`` aside)."""
    return (
        target.scheme == current.scheme
        and target.port == current.port
        and not target.userinfo
        and _strip_www(target.raw_host.decode("ascii"))
        == _strip_www(current.raw_host.decode("ascii"))
    )


async def _guard_cross_host(target: httpx.URL, policy: AddressPolicy, resolve: Resolver) -> None:
    """Refuse a redirect the model would be invited to follow when it points at a blocked address."""
    if target.scheme not in ("http", "https") or policy.allow_all:
        return
    host = target.raw_host.decode("ascii")
    try:
        await _checked_addresses(host, _port(target), policy, resolve)
    except FetchError as exc:
        if exc.code == "EPRIVATE":
            raise
        # A name that does not resolve cannot be classified; the model is told about it.


def _os_error(exc: BaseException) -> OSError | None:
    """The first OS-level error (with an errno) in the chain below an httpx error."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ssl.SSLError):
            return None  # its errno is OpenSSL's, not the system's
        if isinstance(current, OSError) and current.errno:
            return current
        current = current.__cause__ or current.__context__
    return None


def _connect_error(
    exc: Exception, host: str, address: IPAddress, port: int
) -> tuple[str, str | None]:
    """Detail and code of a failed connection: Node's ``connect ECONNREFUSED 127.0.0.1:80``."""
    import httpx

    if isinstance(exc, httpx.ConnectTimeout):
        return f"connect timeout to {host}", "UND_ERR_CONNECT_TIMEOUT"
    cause = _os_error(exc)
    code = errno.errorcode.get(cause.errno or 0) if cause is not None else None
    if code is not None:
        return f"connect {code} {address}:{port}", code
    reason = str(exc) or type(exc).__name__
    lowered = reason.lower()
    if "refused" in lowered or "all connection attempts failed" in lowered:
        return reason, "ECONNREFUSED"
    if "ssl" in lowered or "certificate" in lowered or "tls" in lowered:
        return reason, "EPROTO"
    return reason, "ECONNRESET"


def _transport_error(exc: Exception) -> FetchError:
    """A failure after connecting, in undici's words where we know them."""
    reason = str(exc) or type(exc).__name__
    lowered = reason.lower()
    for start, detail, code in _PROTOCOL_DETAILS:
        if lowered.startswith(start):
            return fetch_failed(detail, code)
    return fetch_failed(reason, "ECONNRESET")


async def _read_body(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    total = 0
    async for chunk in response.aiter_bytes():
        if total + len(chunk) > max_bytes:
            chunks.append(chunk[: max_bytes - total])
            return b"".join(chunks), True
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks), False


async def _request(
    url: httpx.URL, address: IPAddress, options: FetchOptions
) -> FetchedResponse | tuple[int, str | None]:
    """GET ``url`` from ``address``: a response, or a redirect's ``(status, location)``."""
    import httpx

    host = url.raw_host.decode("ascii")
    headers = {**options.headers, "Host": url.netloc.decode("ascii")}
    extensions = {"sni_hostname": host} if url.scheme == "https" else {}
    target = url.copy_with(host=str(address))
    async with (
        httpx.AsyncClient(trust_env=False, timeout=None, follow_redirects=False) as client,
        client.stream("GET", target, headers=headers, extensions=extensions) as response,
    ):
        if response.status_code in _REDIRECT_STATUSES:
            return response.status_code, response.headers.get("location")
        status_text = response.reason_phrase
        content_type = response.headers.get("content-type", "")
        disposition = response.headers.get("content-disposition", "")
        if not 200 <= response.status_code < 300:
            body, truncated = b"", False
        else:
            body, truncated = await _read_body(response, options.max_bytes)
        return FetchedResponse(
            response.status_code,
            status_text,
            content_type,
            disposition,
            body,
            str(url),
            truncated,
        )


async def _hop(
    url: httpx.URL, options: FetchOptions, resolve: Resolver
) -> FetchedResponse | tuple[int, str | None]:
    """One request, trying the checked addresses in turn until one accepts the connection."""
    import httpx

    host = url.raw_host.decode("ascii")
    port = _port(url)
    if url.port in _BAD_PORTS:
        raise fetch_failed("bad port", None)
    addresses = await _checked_addresses(host, port, options.policy, resolve)
    failures: dict[str, str | None] = {}  # detail -> code, first seen first
    for address in addresses:
        try:
            return await _request(url, address, options)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            detail, code = _connect_error(exc, host, address, port)
            failures.setdefault(detail, code)
        except httpx.TransportError as exc:
            raise _transport_error(exc) from None
    # Several addresses fail together as Node's AggregateError: the distinct details, joined.
    raise fetch_failed("; ".join(failures), next(iter(failures.values())))


async def _attempt(
    url: str, options: FetchOptions, resolve: Resolver
) -> FetchedResponse | CrossHostRedirect:
    import httpx

    current = httpx.URL(url)
    for _ in range(options.max_redirects + 1):
        outcome = await _hop(current, options, resolve)
        if isinstance(outcome, FetchedResponse):
            return outcome
        status, location = outcome
        if not location:
            raise FetchError("Redirect response missing Location header")
        try:
            target = current.join(location)
            target.raw_host.decode("ascii")
        except (httpx.InvalidURL, UnicodeError):
            raise FetchError(
                f"Redirect response has a malformed Location header: {location}"
            ) from None
        if not _same_site(current, target):
            await _guard_cross_host(target, options.policy, resolve)
            return CrossHostRedirect(str(current), str(target), status)
        current = target
    raise FetchError(f"Too many redirects (exceeded {options.max_redirects})", "EMAXREDIRECTS")


async def _with_retry(
    url: str, options: FetchOptions, resolve: Resolver
) -> FetchedResponse | CrossHostRedirect:
    import anyio

    try:
        first = await _attempt(url, options, resolve)
    except FetchError as exc:
        if exc.code not in _RETRYABLE:
            raise
        await anyio.sleep(_RETRY_DELAY_S)
        return await _attempt(url, options, resolve)
    if isinstance(first, FetchedResponse) and first.status in _RETRY_STATUSES:
        await anyio.sleep(_RETRY_DELAY_S)
        try:
            return await _attempt(url, options, resolve)
        except FetchError:
            return first
    return first


async def fetch_with_policy(
    url: str,
    options: FetchOptions,
    signal: AbortSignal,
    *,
    resolver: Resolver | None = None,
) -> FetchedResponse | CrossHostRedirect:
    """GET ``url`` under ``options``; raises :class:`FetchError` (timeouts and aborts included)."""
    import anyio

    outcome: FetchedResponse | CrossHostRedirect | None = None
    async with signal.cancel_scope():
        with anyio.move_on_after(options.timeout_s):
            outcome = await _with_retry(url, options, resolver or system_resolver)
    if signal.aborted:
        raise FetchError("Request aborted", "ABORT_ERR")
    if outcome is None:
        raise FetchError(
            f"Request timed out after {round(options.timeout_s * 1000)}ms", "ETIMEDOUT"
        )
    return outcome
