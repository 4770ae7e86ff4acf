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
- **Durable acknowledgements** (``BALOOT_LEDGER_DURABILITY``). A Redis may acknowledge a
  write and then lose it in a crash: with ``appendfsync everysec`` it holds the AOF buffer in
  its own memory while a background fsync is slow, so even a killed process loses up to about
  2 s of acknowledged writes; RDB snapshots lose the writes since the last one. After such a
  loss no server can tell an old token from the latest (what was lost is the record of which
  token was handed out last), so no ledger can then both refuse every fork and accept every
  honest latest token. The default, ``checked``, therefore uses only a Redis that acknowledges
  a write once it is on disk: each connection first reads ``appendonly``, ``appendfsync`` and
  ``no-appendfsync-on-rewrite`` (``CONFIG GET``) and is refused unless they are ``yes``,
  ``always`` and ``no`` (Redis then replies only after the fsync). ``trusted`` skips the check
  (a managed Redis that keeps its writes and hides ``CONFIG``). With either, a token above the
  ledger's record shows that the promise was broken: the record is replaced by a tombstone and
  every token of the match is refused from then on (``MATCH_UNKNOWN``, logged, counted
  ``baloot_ledger_answers{answer="lost"}``): the match ends rather than forks (only the token
  the record kept, presented first, can still fork it). ``lossy`` accepts a Redis that may
  lose acknowledged writes and keeps matches going instead: a token above the record is taken
  as the latest (``answer="recovered"``), which forks the match if an older token than the
  latest is presented first. See ``docs/security.md`` for what each Redis setting guarantees,
  measured.
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

from baloot_engine.telemetry.logs import get_logger

LEDGER_DEADLINE_FACTOR: Final = 2
"""A ledger call (its connection, its reply and one retry) is bounded at this many times
``BALOOT_LEDGER_TIMEOUT_SECONDS``."""
KEY_PREFIX: Final = "baloot:match:"
DIGEST_SIZE: Final = 16
SCHEMES: Final = ("redis", "rediss", "unix")
DURABLE_SETTINGS: Final = (
    ("appendonly", "yes"),
    ("appendfsync", "always"),
    ("no-appendfsync-on-rewrite", "no"),
)
"""The Redis settings under which a write is on disk before Redis acknowledges it."""
_log = get_logger("baloot_engine.ledger")


class Durability(enum.Enum):
    """What the ledger's Redis does with a write it acknowledged (``BALOOT_LEDGER_DURABILITY``)."""

    CHECKED = "checked"  # keeps it: DURABLE_SETTINGS, read on every connection
    TRUSTED = "trusted"  # keeps it, on the operator's word (no CONFIG GET)
    LOSSY = "lossy"  # may lose it: the ledger then catches up to a newer token


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

# What a script does when the presented state is above the latest the ledger holds (it lost
# writes): with ARGV[4] (ARGV[3] for _CHECK) '1' (lossy) the presented state (for _ADVANCE the
# state the action made) becomes the latest, flag 1; otherwise the record becomes a tombstone,
# flag 2, and every later call on the match gets flag 2 too.
_BEHIND: Final = """
local function behind(latest, made, lossy, ttl)
  if lossy == '1' then
    redis.call('SET', KEYS[1], made, 'EX', ttl)
    return {made, 1}
  end
  redis.call('SET', KEYS[1], 'lost:' .. latest, 'EX', ttl)
  return {false, 2}
end
"""

# KEYS[1]: the match. ARGV[1]: the state the action started from; ARGV[2]: the state it made;
# ARGV[3]: the time to live in seconds; ARGV[4]: '1' if the ledger may lose writes. Returns
# {latest state after the call (nil when the match is unknown or lost), flag}: the latest is
# ARGV[2] when the action is recorded (now or by an earlier attempt); flag 0, or as _BEHIND.
_ADVANCE: Final = (
    _BELOW
    + _BEHIND
    + """
local latest = redis.call('GET', KEYS[1])
if not latest then
  return {false, 0}
end
if string.sub(latest, 1, 5) == 'lost:' then
  return {false, 2}
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
  return behind(latest, ARGV[2], ARGV[4], ARGV[3])
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

# KEYS[1]: the match. ARGV[1]: the presented state; ARGV[2]: the time to live in seconds;
# ARGV[3]: '1' if the ledger may lose writes. Returns as _ADVANCE.
_CHECK: Final = (
    _BELOW
    + _BEHIND
    + """
local latest = redis.call('GET', KEYS[1])
if not latest then
  return {false, 0}
end
if string.sub(latest, 1, 5) == 'lost:' then
  return {false, 2}
end
if below(latest, ARGV[1]) then
  return behind(latest, ARGV[1], ARGV[3], ARGV[2])
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
    recovered: bool = False  # lossy: the ledger was behind the token, and took it as the latest
    lost: bool = False  # checked or trusted: it was behind a token once, and refuses the match


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

    def __init__(
        self,
        url: str,
        *,
        ttl_seconds: int,
        timeout_seconds: float,
        durability: Durability = Durability.CHECKED,
    ) -> None:
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
        self.durability = durability
        self._ttl = ttl_seconds
        self._lossy = b"1" if durability is Durability.LOSSY else b"0"
        # Every call is bounded: a connection attempt and each reply by ``timeout_seconds``,
        # with one immediate retry on a lost connection (safe: the script is idempotent), and
        # the whole call by twice the timeout (LEDGER_DEADLINE_FACTOR): 2 s by default, so that
        # the refusal of a call whose ledger hangs reaches the client before the gateway's 3 s
        # per try gives up on it (deploy/envoy/envoy.yaml).
        self.deadline_seconds = LEDGER_DEADLINE_FACTOR * timeout_seconds
        # Checked: each connection reads the Redis settings before its first command.
        connect: dict[str, Any] = {}
        if durability is Durability.CHECKED:
            connect["redis_connect_func"] = _connect_if_durable
        self._redis: Redis = Redis.from_url(
            url,
            socket_timeout=timeout_seconds,
            socket_connect_timeout=timeout_seconds,
            retry=Retry(NoBackoff(), 1),
            **connect,
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
        """Whether ``entry`` is the latest state of its match. When the ledger is behind it
        (it lost writes): lossy, it becomes the latest; else the match is refused from now on."""
        keys, args = (self.key(match_id),), (entry.encode(), self._ttl, self._lossy)
        reply = await self._call(lambda: self._check(keys=keys, args=args))
        return self._answer(reply, entry.encode())

    async def advance(self, match_id: str, current: Entry, following: Entry) -> Answer:
        """Make ``following`` the latest state if ``current`` is (compare-and-set), or, lossy,
        if the ledger is behind ``current``."""
        wanted = following.encode()
        keys = (self.key(match_id),)
        args = (current.encode(), wanted, self._ttl, self._lossy)
        reply = await self._call(lambda: self._advance(keys=keys, args=args))
        return self._answer(reply, wanted)

    async def judge_once(self, match_id: str, hand: int, seat: int, outcome: bytes) -> bool:
        """Note a seat's Sawa claim of one round: True for its first claim of the round (or the
        same claim on the same state sent again), False once another was judged."""
        keys = (f"{self.key(match_id)}:sawa:{hand}:{seat}",)
        args = (outcome, self._ttl)
        return bool(await self._call(lambda: self._judge_once(keys=keys, args=args)))

    async def ping(self) -> bool:
        """Whether the ledger answers now (and, checked, keeps what it acknowledges); why not
        is logged."""
        try:
            return bool(await self._call(self._redis.ping))
        except LedgerUnavailableError as error:
            _log.warning("match ledger refused", ledger=redact_url(self.url), error=str(error))
            return False

    async def close(self) -> None:
        """Close the connections."""
        await self._redis.aclose()

    async def _call(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """Run one ledger call, bounded; a failed call is tried once more at once (the first
        call after Redis restarted may meet a connection it closed, or a server still
        loading), within the same deadline."""
        try:
            async with asyncio.timeout(self.deadline_seconds):
                try:
                    return await make()
                except self._errors:
                    return await make()
        except self._errors as error:
            raise LedgerUnavailableError(f"{type(error).__name__}: {error}") from None

    @staticmethod
    def _answer(reply: object, wanted: bytes) -> Answer:
        latest, flag = reply if isinstance(reply, list | tuple) else (reply, 0)
        if flag == 2:
            return Answer(Verdict.UNKNOWN, lost=True)
        if latest is None:
            return Answer(Verdict.UNKNOWN)
        value = bytes(latest) if isinstance(latest, bytes | bytearray) else str(latest).encode()
        version = Entry.version_in(value)
        if value == wanted:
            return Answer(Verdict.LATEST, version, flag == 1)
        return Answer(Verdict.STALE, version)


async def _connect_if_durable(connection: Any) -> None:
    """Open a ledger connection (authentication, database) and refuse it unless its Redis
    writes every write to disk before acknowledging it (``DURABLE_SETTINGS``)."""
    from redis.exceptions import RedisError, ResponseError

    await connection.on_connect()
    for name, wanted in DURABLE_SETTINGS:
        try:
            await connection.send_command("CONFIG", "GET", name)
            reply = await connection.read_response()
        except ResponseError as error:
            raise RedisError(
                f"cannot read the Redis setting {name} (CONFIG GET: {error}); allow the "
                "ledger's user +config|get, or set BALOOT_LEDGER_DURABILITY=trusted if this "
                "Redis keeps every write it acknowledges"
            ) from None
        value = _config_value(reply, name)
        if value != wanted:
            raise RedisError(
                f"the ledger's Redis may lose writes it acknowledged ({name} is {value or '?'}, "
                f"not {wanted}): set appendonly yes and appendfsync always, or "
                "BALOOT_LEDGER_DURABILITY=lossy to accept forks after a loss (docs/security.md)"
            )


def _config_value(reply: object, name: str) -> str:
    """The value of one setting in a CONFIG GET reply (a flat list, or a map in RESP3)."""
    if isinstance(reply, dict):
        pairs = list(reply.items())
    elif isinstance(reply, list | tuple):
        pairs = list(zip(reply[::2], reply[1::2], strict=True))
    else:
        return ""
    for key, value in pairs:
        text = key.decode() if isinstance(key, bytes) else str(key)
        if text == name:
            return value.decode() if isinstance(value, bytes) else str(value)
    return ""
