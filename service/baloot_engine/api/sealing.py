"""Sealed state tokens and seat credentials under the server's keys.

Token layout: ``format (1 byte) | key id (1 byte) | nonce (12 bytes) | AES-GCM(ciphertext+tag)``.
The associated data is the format byte, the key id and the 16-byte match id, so a token
only opens for the match it was sealed for and every header byte is authenticated.

Keys come from ``BALOOT_STATE_KEYS`` (comma-separated, each 32 bytes as base64 or hex):
seal with the first, open with any, so keys rotate by putting the new key first. With
no key configured, a key file is created with mode 0600 and reused on restart.

Credentials are HMAC-SHA256 of the match id and a role (``host``, ``seat0`` … ``seat3``,
``spectator``)
under a key derived from a state key, truncated to 128 bits and base64url encoded:
stateless, issued under the first key, accepted under any, compared in constant time.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

TOKEN_FORMAT: Final = 1
NONCE_SIZE: Final = 12
HEADER_SIZE: Final = 2 + NONCE_SIZE
TAG_SIZE: Final = 16
KEY_SIZE: Final = 32
MATCH_ID_SIZE: Final = 16
HOST_ROLE: Final = "host"
SPECTATOR_ROLE: Final = "spectator"  # sees the public view only, acts for no seat
ROLES: Final = (HOST_ROLE, "seat0", "seat1", "seat2", "seat3")
ALL_ROLES: Final = (*ROLES, SPECTATOR_ROLE)  # every role a credential may prove
_RECENT_MATCHES: Final = 4096  # credentials remembered (bytes of public match ids -> MACs)


class StateKeyError(ValueError):
    """A configured key is malformed."""


class TokenRefusedError(Exception):
    """A token that cannot be opened.

    ``why`` is a short, non-secret explanation; ``kind`` one of a few stable words
    (a bounded metric label): truncated, format, unknown_key, not_authentic.
    """

    def __init__(self, kind: str, why: str) -> None:
        super().__init__(why)
        self.kind = kind
        self.why = why


def parse_key(text: str) -> bytes:
    """Parse a 32-byte key written as base64 (standard or url-safe) or 64 hex digits."""
    text = text.strip()
    try:
        if len(text) == 2 * KEY_SIZE:
            key = bytes.fromhex(text)
        else:
            padded = text + "=" * (-len(text) % 4)
            key = base64.urlsafe_b64decode(padded.replace("+", "-").replace("/", "_"))
    except (ValueError, binascii.Error) as error:
        raise StateKeyError("a state key must be 32 bytes as base64 or hex") from error
    if len(key) != KEY_SIZE:
        raise StateKeyError(f"a state key must be 32 bytes, got {len(key)}")
    return key


def key_id(key: bytes) -> int:
    """A one-byte, non-secret identifier of a key (tokens name the key that sealed them)."""
    return hashlib.sha256(b"baloot-key-id" + key).digest()[0]


def load_or_create_key_file(path: Path) -> tuple[bytes, bool]:
    """Read the key in ``path``, or create it (mode 0600). Returns (key, created)."""
    if path.exists():
        return parse_key(path.read_text(encoding="ascii")), False
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(KEY_SIZE)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(base64.urlsafe_b64encode(key).decode("ascii") + "\n")
    return key, True


class KeyRing:
    """The state keys: seal with the first, open with any."""

    __slots__ = ("_aeads", "_board_key", "_ids", "_mac_keys", "_recent", "keys")

    def __init__(self, keys: Sequence[bytes]) -> None:
        if not keys:
            raise StateKeyError("at least one state key is needed")
        for key in keys:
            if len(key) != KEY_SIZE:
                raise StateKeyError("state keys must be 32 bytes")
        self.keys = tuple(keys)
        self._aeads = tuple(AESGCM(k) for k in self.keys)
        self._ids = tuple(key_id(k) for k in self.keys)
        # Credentials are issued under the first key and accepted under any key of the ring,
        # so a rotation (new key first, old key second) keeps matches in progress playable.
        self._mac_keys = tuple(
            hmac.new(k, b"baloot-credentials", hashlib.sha256).digest() for k in self.keys
        )
        self._recent: dict[bytes, tuple[tuple[bytes, ...], ...]] = {}
        self._board_key = hmac.new(self.keys[0], b"baloot-board-decks", hashlib.sha256).digest()

    @classmethod
    def from_texts(cls, texts: Sequence[str]) -> KeyRing:
        """Build a ring from configured key texts."""
        return cls([parse_key(t) for t in texts if t.strip()])

    # -- tokens ---------------------------------------------------------------------

    def seal(self, plaintext: bytes, match_id: bytes) -> bytes:
        """Encrypt and authenticate a serialized state for ``match_id``."""
        header = bytes((TOKEN_FORMAT, self._ids[0]))
        nonce = secrets.token_bytes(NONCE_SIZE)
        return header + nonce + self._aeads[0].encrypt(nonce, plaintext, header + match_id)

    def open(self, token: bytes, match_id: bytes) -> bytes:
        """Authenticate and decrypt a token sealed for ``match_id``."""
        if len(token) < HEADER_SIZE + TAG_SIZE:
            raise TokenRefusedError("truncated", "the token is too short")
        if token[0] != TOKEN_FORMAT:
            raise TokenRefusedError("format", f"unsupported token format {token[0]}")
        header, nonce, body = token[:2], token[2:HEADER_SIZE], token[HEADER_SIZE:]
        candidates = [
            aead for kid, aead in zip(self._ids, self._aeads, strict=True) if kid == token[1]
        ]
        if not candidates:
            raise TokenRefusedError("unknown_key", "the token was sealed with an unknown key")
        for aead in candidates:
            try:
                return aead.decrypt(nonce, body, header + match_id)
            except InvalidTag:
                continue
        raise TokenRefusedError(
            "not_authentic", "the token does not authenticate (tampered, or another match)"
        )

    def board_key(self) -> bytes:
        """The key of duplicate-board decks (derived from the first key; servers sharing their
        first key deal the same boards)."""
        return self._board_key

    # -- credentials ----------------------------------------------------------------

    def credential(self, match_id: bytes, role: str) -> str:
        """The credential of ``role`` (``host``, ``seat0`` … ``seat3``, ``spectator``)."""
        return _credential(self._mac_keys[0], match_id, role)

    def role_of(self, match_id: bytes, credential: str) -> str | None:
        """The role a credential proves in a match, or None. Constant-time comparisons."""
        found = None
        given = credential.encode("ascii", "replace")
        for expected_by_role in self._credentials(match_id):
            for role, expected in zip(ALL_ROLES, expected_by_role, strict=True):
                if hmac.compare_digest(expected, given):
                    found = role
        return found

    def _credentials(self, match_id: bytes) -> tuple[tuple[bytes, ...], ...]:
        """The six credentials of a match under each key, remembered for recent matches."""
        cached = self._recent.get(match_id)
        if cached is None:
            cached = tuple(
                tuple(_credential(mac_key, match_id, role).encode("ascii") for role in ALL_ROLES)
                for mac_key in self._mac_keys
            )
            if len(self._recent) >= _RECENT_MATCHES:
                self._recent.pop(next(iter(self._recent)))
            self._recent[match_id] = cached
        return cached


def _credential(mac_key: bytes, match_id: bytes, role: str) -> str:
    digest = hmac.new(mac_key, match_id + b"/" + role.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode("ascii").rstrip("=")


def seat_role(seat: int) -> str:
    """The credential role of a seat."""
    return f"seat{seat}"
