"""Where a call comes from, and how long a source refused again and again is held.

An anonymous caller pays for nothing, so its calls are told apart by their *source*: the
network address the call came from. A caller that holds an API key is its key; one that
does not is ``anonymous@<address>``, so that one address flooding the judge lane, or sending
heavy work it is refused, takes its own share and its own quota, not every anonymous
table's.

The address is the connection's peer, unless that peer is a gateway the operator trusts
(``BALOOT_TRUSTED_PROXIES``: addresses or networks, such as Envoy's): the source is then the
nearest address in the ``x-forwarded-for`` header that is not a trusted proxy (the gateway
appends the address it saw). Nobody else's header is read, so a client cannot name its own
source. An IPv6 source is its /64 network (one host is given a whole /64, and could otherwise
take a new address for every call).

A refusal of heavy work is held before it leaves (:func:`~baloot_engine.lanes.admission.hold`):
about a second, longer for a source whose refusals keep coming (:class:`Pacer`). A client that
honours the retry delay is held a second at most; one that keeps hundreds of calls in flight
against a full lane is slowed until its refusals come at a steady, small rate, however many it
sends at once, so that its flood costs the event loop little.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Final

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

FORWARDED_HEADER: Final = "x-forwarded-for"
UNKNOWN_SOURCE: Final = "unknown"
"""The source of a call whose peer is no network address (a Unix socket, an in-process
channel)."""
MAX_FORWARDED: Final = 16
"""Addresses of an ``x-forwarded-for`` header read at most, from its end."""


class TrustedProxiesError(ValueError):
    """A malformed ``BALOOT_TRUSTED_PROXIES`` entry."""


def parse_networks(entries: Iterable[str]) -> tuple[IPNetwork, ...]:
    """Addresses or networks in CIDR notation (``10.0.0.0/8``, ``::1``)."""
    networks: list[IPNetwork] = []
    for entry in entries:
        text = entry.strip()
        if not text:
            continue
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise TrustedProxiesError(
                f"{text!r} is not an IP address or a network (CIDR notation)"
            ) from None
    return tuple(networks)


def peer_address(peer: str) -> IPAddress | None:
    """The address of a gRPC peer string (``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``), None
    for any other kind of peer."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        host = rest.rpartition(":")[0]
    elif kind == "ipv6":
        host = rest.rpartition(":")[0].strip("[]").split("%", 1)[0]
    else:
        return None
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _named(address: IPAddress) -> str:
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class Sources:
    """Tells a call's source from its peer and, behind a trusted gateway, its forwarded-for
    header."""

    def __init__(self, trusted: Iterable[IPNetwork] = (), pacer: Pacer | None = None) -> None:
        self.trusted = tuple(trusted)
        self.pacer = pacer if pacer is not None else Pacer()  # this server's holds, by source

    def _is_trusted(self, address: IPAddress) -> bool:
        return any(address in network for network in self.trusted)

    def source_of(self, peer: str, forwarded: str | None = None) -> str:
        """The source of a call from ``peer`` carrying ``forwarded`` (the header's value)."""
        address = peer_address(peer)
        if address is None:
            return UNKNOWN_SOURCE
        if forwarded and self.trusted and self._is_trusted(address):
            for text in reversed(forwarded.split(",")[-MAX_FORWARDED:]):
                try:
                    hop = ipaddress.ip_address(text.strip())
                except ValueError:
                    break  # a hop the gateway did not write: what it saw is the last good one
                address = hop
                if not self._is_trusted(hop):
                    break
        return _named(address)


def forwarded_of(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The ``x-forwarded-for`` value in a call's metadata (None without one)."""
    for key, value in metadata or ():
        if key == FORWARDED_HEADER and isinstance(value, str):
            return value
    return None


class Pacer:
    """How long each source's refusals are held: :attr:`base` seconds while its refusals come
    at most :attr:`free_rate` a second, longer as they come faster (the hold grows with the
    source's recent rate, up to :attr:`longest`). The rate is a moving average that forgets
    with a half-life of :attr:`half_life` seconds; at most :attr:`capacity` sources are
    remembered (the least recently refused are forgotten first).

    A source that keeps ``n`` calls in flight against a lane that refuses them settles where
    its hold ``h`` gives a rate ``n / h`` the hold asks for: ``h = base * sqrt(n / (base *
    free_rate))`` while under :attr:`longest`, so its refusals cost the server about
    ``sqrt(n)`` rather than ``n`` a second."""

    def __init__(
        self,
        base: float = 1.0,
        free_rate: float = 8.0,
        longest: float = 10.0,
        half_life: float = 5.0,
        capacity: int = 65536,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base = base
        self.free_rate = free_rate
        self.longest = longest
        self.half_life = half_life
        self.capacity = capacity
        self._clock = clock
        self._decay = math.log(2) / half_life
        self._seen: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def rate(self, source: str) -> float:
        """The source's recent refusals a second."""
        found = self._seen.get(source)
        if found is None:
            return 0.0
        level, at = found
        return level * math.exp(-self._decay * (self._clock() - at)) * self._decay

    def refused(self, source: str) -> float:
        """Count one refusal of ``source``; the seconds it is to be held (before jitter)."""
        now = self._clock()
        level, at = self._seen.pop(source, (0.0, now))
        level = level * math.exp(-self._decay * (now - at)) + 1.0
        self._seen[source] = (level, now)
        if len(self._seen) > self.capacity:
            self._seen.popitem(last=False)
        rate = level * self._decay  # refusals a second, as the moving average sees them
        factor = max(1.0, rate / self.free_rate)
        return min(self.longest, self.base * factor)


__all__ = [
    "FORWARDED_HEADER",
    "UNKNOWN_SOURCE",
    "IPAddress",
    "IPNetwork",
    "Pacer",
    "Sources",
    "TrustedProxiesError",
    "forwarded_of",
    "parse_networks",
    "peer_address",
]
