"""Who asks for heavy work: the API keys a deployment issues, and the anonymous caller.

A match's credentials are free to mint (``CreateMatch`` needs nothing), so they say which
seat a caller may act for, never who pays for heavy work. Heavy work (a searching bot's
decision, a solve, an analysis, a fair-play report) is metered per *client*: the holder of an
API key the operator configured (``BALOOT_API_KEYS``, ``name:secret`` pairs), sent in the
``x-api-key`` metadata (or ``authorization: Bearer <secret>``). Callers without a key are the
client ``anonymous``, whose heavy work a production deployment refuses
(``BALOOT_ANONYMOUS_HEAVY_WORK``); the local default serves it under the anonymous quota, which
each source address has for itself.

A key is looked up by the SHA-256 of its secret and compared in constant time, so neither the
secrets nor the time of a failed look-up tell anything about the keys configured.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

API_KEY_HEADER: Final = "x-api-key"
AUTHORIZATION_HEADER: Final = "authorization"
ANONYMOUS: Final = "anonymous"
MIN_SECRET_LENGTH: Final = 16
MAX_SECRET_LENGTH: Final = 256
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")


class HeavyWork(enum.Enum):
    """Whether callers without an API key may ask for heavy work."""

    AUTO = "auto"  # yes while no API key is configured (a local server), else no
    ON = "on"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class Client:
    """The payer of a call's heavy work: an API key's name, or the anonymous caller from its
    source (:mod:`~baloot_engine.lanes.sources`: the address the call came from)."""

    name: str
    keyed: bool
    source: str = ""

    @property
    def owner(self) -> str:
        """Whose quota and share the work counts in: the key's name, or ``anonymous@source``
        (each source of anonymous calls is its own: one address's flood spends its own)."""
        if self.keyed or not self.source:
            return self.name
        return f"{self.name}@{self.source}"

    def __str__(self) -> str:
        return self.owner

    def from_source(self, source: str) -> Client:
        """The same client calling from ``source`` (a keyed client is its key, wherever from)."""
        return self if self.keyed else Client(self.name, keyed=False, source=source)


ANONYMOUS_CLIENT: Final = Client(ANONYMOUS, keyed=False)


class ApiKeyError(ValueError):
    """A malformed ``BALOOT_API_KEYS`` entry (the message never repeats a secret)."""


def parse_api_keys(text: str) -> tuple[tuple[str, str], ...]:
    """``name:secret`` pairs, comma-separated: names unique, secrets of 16-256 characters."""
    pairs: list[tuple[str, str]] = []
    for index, part in enumerate(text.split(",")):
        name, colon, secret = part.strip().partition(":")
        if not colon or not _NAME.fullmatch(name):
            raise ApiKeyError(
                f"entry {index + 1} is not name:secret with a name of letters, digits, . _ -"
            )
        if not MIN_SECRET_LENGTH <= len(secret) <= MAX_SECRET_LENGTH or not secret.isprintable():
            raise ApiKeyError(
                f"the secret of {name!r} must be {MIN_SECRET_LENGTH}-{MAX_SECRET_LENGTH} "
                "printable characters (make one with: python -c 'import secrets; "
                "print(secrets.token_urlsafe(32))')"
            )
        if name == ANONYMOUS or any(name == known for known, _ in pairs):
            raise ApiKeyError(f"the name {name!r} is taken")
        pairs.append((name, secret))
    return tuple(pairs)


class ApiKeys:
    """The keys of a deployment, by the digest of their secrets."""

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        self._names: dict[bytes, str] = {_digest(secret): name for name, secret in pairs}
        self.names: tuple[str, ...] = tuple(sorted(self._names.values()))

    def __bool__(self) -> bool:
        return bool(self._names)

    def client_of(self, secret: str) -> Client | None:
        """The client a key's secret names, or None for a secret this deployment never issued."""
        digest = _digest(secret)
        found = None
        for known, name in self._names.items():  # every key compared: the time tells nothing
            if hmac.compare_digest(known, digest):
                found = name
        return None if found is None else Client(found, keyed=True)

    def anonymous_allowed(self, policy: HeavyWork) -> bool:
        """Whether a caller without a key may ask for heavy work under ``policy``."""
        if policy is HeavyWork.AUTO:
            return not self
        return policy is HeavyWork.ON


def presented_key(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The API key a call's metadata (its key-value pairs) presents ('' for none)."""
    for key, value in metadata or ():
        if not isinstance(value, str):
            continue
        if key == API_KEY_HEADER:
            return value.strip()
        if key == AUTHORIZATION_HEADER and value[:7].lower() == "bearer ":
            return value[7:].strip()
    return ""


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()


__all__ = [
    "ANONYMOUS",
    "ANONYMOUS_CLIENT",
    "API_KEY_HEADER",
    "ApiKeyError",
    "ApiKeys",
    "Client",
    "HeavyWork",
    "parse_api_keys",
    "presented_key",
]
