"""Where a call comes from (its source), and how long a source refused again and again is held."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baloot_engine.lanes import Client, Lanes, LanesConfig
from baloot_engine.lanes.clients import ANONYMOUS_CLIENT
from baloot_engine.lanes.quota import Quota, Quotas
from baloot_engine.lanes.sources import (
    UNKNOWN_SOURCE,
    Pacer,
    Sources,
    TrustedProxiesError,
    forwarded_of,
    parse_networks,
    peer_address,
)


def test_a_peer_string_gives_its_address() -> None:
    assert str(peer_address("ipv4:203.0.113.7:51234")) == "203.0.113.7"
    assert str(peer_address("ipv6:[2001:db8::1]:443")) == "2001:db8::1"
    assert str(peer_address("ipv6:[fe80::1%eth0]:443")) == "fe80::1"
    assert peer_address("unix:/tmp/socket") is None
    assert peer_address("ipv4:not-an-address:1") is None


def test_without_a_trusted_gateway_the_source_is_the_peer_whatever_the_header_says() -> None:
    sources = Sources()
    assert sources.source_of("ipv4:203.0.113.7:5000", "198.51.100.1") == "203.0.113.7"
    assert sources.source_of("unix:/run/socket") == UNKNOWN_SOURCE


def test_behind_a_trusted_gateway_the_source_is_the_address_it_forwarded() -> None:
    sources = Sources(parse_networks(["10.0.0.0/8", "127.0.0.1"]))
    # Envoy appends the address it saw; a client's own entries come before it.
    header = "192.0.2.66, 198.51.100.9"
    assert sources.source_of("ipv4:10.1.2.3:40000", header) == "198.51.100.9"
    # Two trusted hops: the nearest untrusted address counts.
    assert sources.source_of("ipv4:127.0.0.1:40000", "198.51.100.9, 10.9.9.9") == "198.51.100.9"
    # A gateway that forwarded nothing: the gateway itself.
    assert sources.source_of("ipv4:10.1.2.3:40000", None) == "10.1.2.3"
    # Garbage in the header: the last good hop the gateway wrote, never the client's claim.
    assert sources.source_of("ipv4:10.1.2.3:40000", "198.51.100.9, junk") == "10.1.2.3"
    # An untrusted peer's header is never read.
    assert sources.source_of("ipv4:198.51.100.9:1", "10.0.0.1") == "198.51.100.9"


def test_an_ipv6_source_is_its_64_network() -> None:
    sources = Sources()
    one = sources.source_of("ipv6:[2001:db8:1:2::1]:1")
    other = sources.source_of("ipv6:[2001:db8:1:2:ffff::9]:1")
    assert one == other == "2001:db8:1:2::/64"
    assert sources.source_of("ipv6:[::ffff:192.0.2.1]:1") == "192.0.2.1"


def test_trusted_proxies_that_do_not_parse_are_refused() -> None:
    with pytest.raises(TrustedProxiesError):
        parse_networks(["10.0.0.0/8", "the gateway"])


def test_the_forwarded_header_is_read_from_metadata() -> None:
    assert forwarded_of((("x-api-key", "k"), ("x-forwarded-for", "1.2.3.4"))) == "1.2.3.4"
    assert forwarded_of((("x-forwarded-for-bin", b"x"),)) is None
    assert forwarded_of(None) is None


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_source_refused_seldom_is_held_the_base_time() -> None:
    clock = Clock()
    pacer = Pacer(base=1.0, free_rate=8.0, longest=10.0, half_life=5.0, clock=clock)
    for _ in range(20):
        assert pacer.refused("a") == 1.0
        clock.now += 1.0


def test_a_flooding_source_is_held_longer_and_settles_near_the_square_root() -> None:
    clock = Clock()
    pacer = Pacer(base=1.0, free_rate=8.0, longest=10.0, half_life=5.0, clock=clock)
    in_flight = 300
    # Each of the source's calls is sent again as soon as its refusal comes back: its rate
    # is its calls in flight over its hold.
    hold = 1.0
    for step_number in range(400):
        step = 0.05
        for _ in range(round(in_flight / hold * step)):
            hold = pacer.refused("flood")
        clock.now += step
        if step_number % 20 == 0:  # another source, refused once a second, is held as before
            assert pacer.refused("other") == 1.0
    expected = math.sqrt(in_flight / 8.0)
    assert expected * 0.7 <= hold <= min(10.0, expected * 1.3)
    assert pacer.rate("flood") < in_flight / 1.0 / 3  # far fewer refusals than unpaced


@given(st.lists(st.floats(min_value=0, max_value=30), max_size=60))
def test_a_hold_stays_between_the_base_and_the_longest(gaps: list[float]) -> None:
    clock = Clock()
    pacer = Pacer(base=0.5, free_rate=2.0, longest=4.0, clock=clock)
    for gap in gaps:
        clock.now += gap
        assert 0.5 <= pacer.refused("s") <= 4.0


def test_the_pacer_forgets_the_oldest_sources_past_its_capacity() -> None:
    pacer = Pacer(capacity=3, clock=Clock())
    for name in "abcd":
        pacer.refused(name)
    assert pacer.rate("a") == 0.0
    assert pacer.rate("d") > 0.0


def test_anonymous_sources_are_owners_of_their_own_and_keys_are_their_key() -> None:
    one, two = ANONYMOUS_CLIENT.from_source("1.1.1.1"), ANONYMOUS_CLIENT.from_source("2.2.2.2")
    assert one.owner == "anonymous@1.1.1.1" != two.owner
    assert one.name == two.name == "anonymous"  # one label in the metrics
    keyed = Client("app", keyed=True)
    assert keyed.from_source("1.1.1.1") is keyed
    assert keyed.owner == "app"
    lanes = Lanes(LanesConfig())
    assert lanes.client("", "1.1.1.1") == one
    assert lanes.client("") is ANONYMOUS_CLIENT


def test_each_anonymous_source_has_its_own_cpu_bucket() -> None:
    quotas = Quotas(Quota(60, 4, 1), Quota(6, 4, 1), clock=Clock())
    flood = ANONYMOUS_CLIENT.from_source("1.1.1.1")
    quotas.charge(flood, 10.0)
    assert quotas.cpu_wait(flood) > 0
    assert quotas.cpu_wait(ANONYMOUS_CLIENT.from_source("2.2.2.2")) == 0


class _Context:
    """What ``caller_of`` reads of a gRPC call."""

    def __init__(self, peer: str, metadata: tuple[tuple[str, str], ...]) -> None:
        self._peer, self._metadata = peer, metadata

    def peer(self) -> str:
        return self._peer

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def time_remaining(self) -> float | None:
        return None


def test_the_caller_of_a_call_carries_its_source() -> None:
    from baloot_engine.api.calls import caller_of

    gateway = Sources(parse_networks(["10.0.0.0/8"]))
    forwarded = _Context("ipv4:10.0.0.5:3000", (("x-forwarded-for", "198.51.100.9"),))
    assert caller_of(forwarded, gateway).source == "198.51.100.9"  # type: ignore[arg-type]
    assert caller_of(forwarded, Sources()).source == "10.0.0.5"  # type: ignore[arg-type]
    assert caller_of(forwarded).source == ""  # type: ignore[arg-type]
