"""The optional match ledger: per match, the version and digest of its latest state, in Redis.

A sealed token cannot be forged, but without the ledger any old token of a match still opens,
so whoever holds old tokens can fork the match (see ``docs/security.md``). With
``BALOOT_LEDGER`` set, every server of a deployment shares one Redis (or Valkey) that holds, for
each match, one short value: ``"<version>:<digest>"`` of its latest state, under the key
``baloot:match:<match id>``. A request whose token is not that latest state is refused
(``STALE_STATE``), so a match has one history.

- The **digest** is the first 16 bytes of SHA-256 of the token's plaintext (the serialized
  state, which holds the match's secret seed, so the digest reveals nothing). It names the
  *state*, not the token bytes: an action retried on the same token computes the same state
  (every action is a pure function of token and request), so the retry is recognised as the
  action already recorded and answered again, with the same state and events, instead of
  being taken for a fork. Two different actions from one token: exactly one is recorded.
- **Compare-and-set** is one Lua script on one key, atomic in Redis, Valkey and a cluster:
  if the latest is the state the action started from, the new state becomes the latest; if
  the latest already is the new state (a retry), it stays; otherwise nothing changes and the
  latest is returned.
- Each write sets the key to expire ``ttl_seconds`` later; a match left alone longer is
  forgotten, and its tokens are then refused (``MATCH_UNKNOWN``) rather than trusted.
- **Lost writes.** Redis may lose its latest writes when it restarts (with ``appendfsync
  everysec``, up to about a second of them). A token is sealed, so a token whose version is
  above the ledger's proves that the ledger lost writes: the ledger then takes the presented
  state as the latest (and an action from it as the next), so every older token of the match,
  the one the ledger had kept included, is refused from then on. The server logs it and counts
  it (``baloot_ledger_answers{answer="recovered"}``). See ``docs/security.md`` for what each
  persistence setting guarantees.
- **One judged Sawa claim per seat and hand.** A refused claim on the latest token still tells
  its seat that the others can take a trick, and the claim could be sent again after each
  card. With the ledger a seat's claims are judged once per round: the first is answered (held
  or refused, and the same claim sent again gets the same answer); any other claim of that
  seat in that round is refused with ``SAWA_NOT_ALLOWED`` before its answer can tell anything.
  The ledger keeps ``baloot:match:<id>:sawa:<hand>:<seat>`` for it, with the match's TTL.
- A ledger out of reach refuses the call with ``LEDGER_UNAVAILABLE``: no token is ever
  accepted unchecked. A call that fails (a connection lost when Redis restarted) is tried once
  more, at once, inside the server, before that refusal.

The ledger keeps no game state: a digest and a version per match, nothing else.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from redis.asyncio import Redis

LEDGER_DEADLINE_FACTOR: Final = 2
"""A ledger call (its connection, its reply and one retry) is bounded at this many times
``BALOOT_LEDGER_TIMEOUT_SECONDS``."""
KEY_PREFIX: Final = "baloot:match:"
DIGEST_SIZE: Final = 16
SCHEMES: Final = ("redis", "rediss", "unix")

# Whether the version of stored value ``a`` is below that of ``b`` (versions as decimal text:
# compared by length, then digit by digit, exact far beyond Lua's 2^53).
_BELOW: Final = """
local function version(value)
  return string.match(value, '^(%d+):') or ''
end
local function below(a, b)
  local x, y = version(a), version(b)
  if #x ~= #y then
    return #x < #y
  end
  return x < y
end
"""

# KEYS[1]: the match. ARGV[1]: the state the action started from; ARGV[2]: the state it made;
# ARGV[3]: the time to live in seconds. Returns {latest state after the call (nil when the
# match is unknown), 1 if the ledger was behind the presented state}: the latest is ARGV[2]
# when the action is recorded (now or by an earlier attempt).
_ADVANCE: Final = (
    _BELOW
    + """
local latest = redis.call('GET', KEYS[1])
if not latest then
  return {false, 0}
end
if latest == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return {ARGV[2], 0}
end
if latest == ARGV[2] then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return {latest, 0}
end
if below(latest, ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return {ARGV[2], 1}
end
return {latest, 0}
"""
)

# KEYS[1]: a seat's Sawa claim in one hand of a match. ARGV[1]: the claim's outcome (held or
# refused, and the state it was judged on); ARGV[2]: the time to live in seconds. Returns 1 if
# this is the seat's first claim of the round, or the same claim again; else 0.
_JUDGE_ONCE: Final = """
local judged = redis.call('GET', KEYS[1])
if not judged then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return 1
end
if judged == ARGV[1] then
  return 1
end
return 0
"""

# KEYS[1]: the match. ARGV[1]: the presented state; ARGV[2]: the time to live in seconds.
# Returns as _ADVANCE; a presented state above the ledger's becomes the latest.
_CHECK: Final = (
    _BELOW
    + """
local latest = redis.call('GET', KEYS[1])
if not latest then
  return {false, 0}
end
if below(latest, ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return {ARGV[1], 1}
end
return {latest, 0}
"""
)


class LedgerUnavailableError(Exception):
    """The ledger could not be reached or did not answer in time."""


class LedgerClientMissingError(ImportError):
    """The redis package (the ``ledger`` extra) is not installed."""


class Verdict(enum.Enum):
    """What the ledger says of a token."""

    LATEST = "latest"  # the latest state of its match (or, for an action, now recorded)
    STALE = "stale"  # another state is the latest
    UNKNOWN = "unknown"  # the ledger holds no record of the match


@dataclass(frozen=True, slots=True)
class Entry:
    """A state as the ledger knows it: its version and digest."""

    version: int
    digest: bytes

    @classmethod
    def of(cls, version: int, plaintext: bytes) -> Entry:
        """The entry of a state from its plaintext (the serialized state)."""
        return cls(version, hashlib.sha256(plaintext).digest()[:DIGEST_SIZE])

    def encode(self) -> bytes:
        """The value stored in Redis."""
        return b"%d:%s" % (self.version, self.digest.hex().encode("ascii"))

    @staticmethod
    def version_in(value: bytes) -> int | None:
        """The version in a stored value, or None if it is not one."""
        head, _, _ = value.partition(b":")
        return int(head) if head.isdigit() else None


@dataclass(frozen=True, slots=True)
class Answer:
    """The ledger's verdict and, when it knows the match, the version of its latest state."""

    verdict: Verdict
    latest_version: int | None = None
    recovered: bool = False  # the ledger was behind the token: it had lost writes


def redact_url(url: str) -> str:
    """The URL with its password, if any, replaced (for logs and error messages)."""
    parts = urlsplit(url)
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if not at or ":" not in userinfo:
        return url
    user = userinfo.partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}:<redacted>@{hostport}"))


def check_url(url: str) -> str:
    """Return ``url`` if it names a Redis server, or raise ValueError saying what is expected."""
    parts = urlsplit(url.strip())
    try:
        parts.port  # noqa: B018 - parsing the port validates it
    except ValueError:
        raise ValueError("the port of the ledger URL is not a number from 0 to 65535") from None
    if parts.scheme not in SCHEMES:
        raise ValueError("expected a redis://, rediss:// or unix:// URL")
    if parts.scheme == "unix" and not parts.path:
        raise ValueError("expected unix:///path/to/redis.sock")
    if parts.scheme != "unix" and not parts.hostname:
        raise ValueError("expected redis://host:port/db (or rediss:// for TLS)")
    return url.strip()


class MatchLedger:
    """The ledger in one Redis or Valkey server (redis-py's asyncio client).

    redis-py is imported here, not with the module: it is needed only with a ledger (the
    ``ledger`` extra), and the service without one does not depend on it.
    """

    def __init__(self, url: str, *, ttl_seconds: int, timeout_seconds: float) -> None:
        try:
            from redis.asyncio import Redis
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff
            from redis.exceptions import RedisError
        except ImportError:
            raise LedgerClientMissingError(
                "the match ledger needs the redis package: pip install 'baloot-engine[ledger]'"
            ) from None
        self._errors: tuple[type[BaseException], ...] = (RedisError, OSError, TimeoutError)
        self.url = url
        self._ttl = ttl_seconds
        # Every call is bounded: a connection attempt and each reply by ``timeout_seconds``,
        # with one immediate retry on a lost connection (safe: the script is idempotent), and
        # the whole call by twice the timeout (LEDGER_DEADLINE_FACTOR): 2 s by default, so that
        # the refusal of a call whose ledger hangs reaches the client before the gateway's 3 s
        # per try gives up on it (deploy/envoy/envoy.yaml).
        self._deadline = LEDGER_DEADLINE_FACTOR * timeout_seconds
        self._redis: Redis = Redis.from_url(
            url,
            socket_timeout=timeout_seconds,
            socket_connect_timeout=timeout_seconds,
            retry=Retry(NoBackoff(), 1),
        )
        self._advance = self._redis.register_script(_ADVANCE)
        self._check = self._redis.register_script(_CHECK)
        self._judge_once = self._redis.register_script(_JUDGE_ONCE)

    @staticmethod
    def key(match_id: str) -> str:
        """The Redis key of a match."""
        return KEY_PREFIX + match_id

    async def record(self, match_id: str, entry: Entry) -> None:
        """Record the first state of a new match."""
        key, value = self.key(match_id), entry.encode()
        await self._call(lambda: self._redis.set(key, value, ex=self._ttl, nx=True))

    async def check(self, match_id: str, entry: Entry) -> Answer:
        """Whether ``entry`` is the latest state of its match (it becomes the latest when the
        ledger is behind it: it lost writes)."""
        keys, args = (self.key(match_id),), (entry.encode(), self._ttl)
        reply = await self._call(lambda: self._check(keys=keys, args=args))
        return self._answer(reply, entry.encode())

    async def advance(self, match_id: str, current: Entry, following: Entry) -> Answer:
        """Make ``following`` the latest state if ``current`` is, or if the ledger is behind
        ``current`` (compare-and-set)."""
        wanted = following.encode()
        keys, args = (self.key(match_id),), (current.encode(), wanted, self._ttl)
        reply = await self._call(lambda: self._advance(keys=keys, args=args))
        return self._answer(reply, wanted)

    async def judge_once(self, match_id: str, hand: int, seat: int, outcome: bytes) -> bool:
        """Note a seat's Sawa claim of one round: True for its first claim of the round (or the
        same claim on the same state sent again), False once another was judged."""
        keys = (f"{self.key(match_id)}:sawa:{hand}:{seat}",)
        args = (outcome, self._ttl)
        return bool(await self._call(lambda: self._judge_once(keys=keys, args=args)))

    async def ping(self) -> bool:
        """Whether the ledger answers now."""
        try:
            return bool(await self._call(self._redis.ping))
        except LedgerUnavailableError:
            return False

    async def close(self) -> None:
        """Close the connections."""
        await self._redis.aclose()

    async def _call(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """Run one ledger call, bounded; a failed call is tried once more at once (the first
        call after Redis restarted may meet a connection it closed, or a server still
        loading), within the same deadline."""
        try:
            async with asyncio.timeout(self._deadline):
                try:
                    return await make()
                except self._errors:
                    return await make()
        except self._errors as error:
            raise LedgerUnavailableError(f"{type(error).__name__}: {error}") from None

    @staticmethod
    def _answer(reply: object, wanted: bytes) -> Answer:
        latest, behind = reply if isinstance(reply, list | tuple) else (reply, 0)
        if latest is None:
            return Answer(Verdict.UNKNOWN)
        value = bytes(latest) if isinstance(latest, bytes | bytearray) else str(latest).encode()
        version = Entry.version_in(value)
        if value == wanted:
            return Answer(Verdict.LATEST, version, bool(behind))
        return Answer(Verdict.STALE, version)
