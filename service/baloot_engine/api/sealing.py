"""Sealed state tokens and seat credentials under the server's keys.

Each configured key (``BALOOT_STATE_KEYS``, 32 bytes as base64 or hex; or the key file) is
never used as it is: HKDF-SHA256 derives from it one key per purpose, each under its own
``info`` label, so the cipher, the credentials and the public key id never share key material:

- the **seal key** (AES-256-GCM-SIV, RFC 8452) that encrypts and authenticates tokens;
- the **credential key** (HMAC-SHA256) behind the host and seat credentials;
- the **key fingerprint**, 4 public bytes naming the key in tokens, metrics and logs.

Token format 2: ``2 | key id (1 byte) | nonce (12 bytes) | AES-GCM-SIV(ciphertext+tag)``. The
key id is the first byte of the fingerprint; the nonce is random. The associated data is the
format byte, the key id and the 16-byte match id, so a token opens only for its match and
every header byte is authenticated. GCM-SIV rather than GCM: should two random nonces ever
repeat under one key, GCM would give away the authentication key (anyone holding the two
tokens could then forge any state), while GCM-SIV reveals only whether the two tokens hold the
same bytes. It costs about 2 µs more per seal and per open, and not one byte of token.

Token format 1 (sealed by earlier releases: AES-256-GCM under the raw key, another key id)
still opens, under the key that sealed it, so matches in progress survive an upgrade; new
tokens are always format 2. The credentials of earlier releases (HMAC under a key made with
HMAC from the raw key) are accepted next to the new ones for the same reason; only new ones
are issued. A later release drops both (see ``docs/security.md``).

Keys rotate by putting the new key first: the first seals and issues credentials, every one
opens and verifies. Credentials are HMAC-SHA256 of the match id and a role (``host``,
``seat0`` … ``seat3``, ``spectator``), truncated to 128 bits, base64url encoded, compared in
constant time. Match ids are 16 random bytes from the operating system and the deck shuffle is
keyed by a per-match seed inside the token, so neither uses a server key; the decks of
duplicate boards are keyed by their own key (``board_key``), derived for that purpose only.
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

from cryptography.exceptions import InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESGCMSIV
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

TOKEN_FORMAT: Final = 2
LEGACY_TOKEN_FORMAT: Final = 1
NONCE_SIZE: Final = 12
HEADER_SIZE: Final = 2 + NONCE_SIZE
TAG_SIZE: Final = 16
KEY_SIZE: Final = 32
MATCH_ID_SIZE: Final = 16
FINGERPRINT_SIZE: Final = 4
HOST_ROLE: Final = "host"
ROLES: Final = (HOST_ROLE, "seat0", "seat1", "seat2", "seat3")
SPECTATOR_ROLE: Final = "spectator"  # sees the public view only, acts for no seat
ALL_ROLES: Final = (*ROLES, SPECTATOR_ROLE)  # every role a credential may prove
RECENT_MATCHES: Final = 4096  # credentials remembered (bytes of public match ids -> MACs)

# The HKDF labels: one per purpose. Changing one changes what it derives (and breaks every
# token or credential made with it), so a new derivation gets a new label and a new format.
SEAL_LABEL: Final = b"baloot-engine/v2/token-seal"
CREDENTIAL_LABEL: Final = b"baloot-engine/v2/credentials"
FINGERPRINT_LABEL: Final = b"baloot-engine/v2/key-fingerprint"
BOARD_LABEL: Final = b"baloot-engine/v2/board-decks"


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


def derive(key: bytes, label: bytes, size: int = KEY_SIZE) -> bytes:
    """The key of one purpose (``label``), derived from a configured key with HKDF-SHA256."""
    return HKDF(algorithm=SHA256(), length=size, salt=None, info=label).derive(key)


def key_fingerprint(key: bytes) -> str:
    """The public name of a key: 8 hex digits (its first two are the key id in its tokens)."""
    return derive(key, FINGERPRINT_LABEL, FINGERPRINT_SIZE).hex()


def key_id(key: bytes) -> int:
    """The one-byte, non-secret id of a key that its format 2 tokens carry."""
    return derive(key, FINGERPRINT_LABEL, FINGERPRINT_SIZE)[0]


def legacy_key_id(key: bytes) -> int:
    """The key id of format 1 tokens (a hash of the raw key)."""
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

    __slots__ = (
        "_board_key",
        "_by_id",
        "_ids",
        "_legacy",
        "_mac_keys",
        "_recent",
        "_seal_aeads",
        "_seal_header",
        "fingerprints",
        "keys",
    )

    def __init__(self, keys: Sequence[bytes]) -> None:
        if not keys:
            raise StateKeyError("at least one state key is needed")
        for key in keys:
            if len(key) != KEY_SIZE:
                raise StateKeyError("state keys must be 32 bytes")
        self.keys = tuple(keys)
        self.fingerprints = tuple(key_fingerprint(k) for k in self.keys)
        self._ids = tuple(int(f[:2], 16) for f in self.fingerprints)
        try:
            self._seal_aeads = tuple(AESGCMSIV(derive(k, SEAL_LABEL)) for k in self.keys)
        except UnsupportedAlgorithm:  # cryptography built against an OpenSSL before 3.2
            raise StateKeyError(
                "this build of the cryptography package has no AES-GCM-SIV (OpenSSL 3.2+ needed)"
            ) from None
        # What seal and open look up on every call, worked out once: the header of new tokens,
        # and the AEADs of each key id in ring order (two keys may share an id).
        self._seal_header = bytes((TOKEN_FORMAT, self._ids[0]))
        self._by_id: dict[int, list[AESGCMSIV]] = {}
        for kid, aead in zip(self._ids, self._seal_aeads, strict=True):
            self._by_id.setdefault(kid, []).append(aead)
        # Credentials are issued under the first key and accepted under any key of the ring,
        # so a rotation (new key first, old key second) keeps matches in progress playable.
        # The earlier derivation is accepted too, for matches begun before an upgrade.
        self._mac_keys = tuple(derive(k, CREDENTIAL_LABEL) for k in self.keys) + tuple(
            _legacy_mac_key(k) for k in self.keys
        )
        self._legacy = _LegacyTokens(self.keys)
        self._recent: dict[bytes, tuple[tuple[bytes, ...], ...]] = {}
        self._board_key = derive(self.keys[0], BOARD_LABEL)

    @property
    def recent(self) -> dict[bytes, tuple[tuple[bytes, ...], ...]]:
        """The credentials of the recent matches, by match id (for its fill and sizes:
        ``server/caches.py``)."""
        return self._recent

    @classmethod
    def from_texts(cls, texts: Sequence[str]) -> KeyRing:
        """Build a ring from configured key texts."""
        return cls([parse_key(t) for t in texts if t.strip()])

    @property
    def sealing_fingerprint(self) -> str:
        """The fingerprint of the key that seals new tokens (the first)."""
        return self.fingerprints[0]

    # -- tokens ---------------------------------------------------------------------

    def seal(self, plaintext: bytes, match_id: bytes) -> bytes:
        """Encrypt and authenticate a serialized state for ``match_id`` (format 2)."""
        header = self._seal_header
        nonce = os.urandom(NONCE_SIZE)  # what secrets.token_bytes returns, without its frame
        return header + nonce + self._seal_aeads[0].encrypt(nonce, plaintext, header + match_id)

    def open(self, token: bytes, match_id: bytes) -> bytes:
        """Authenticate and decrypt a token sealed for ``match_id`` (format 2, or 1)."""
        if len(token) < HEADER_SIZE + TAG_SIZE:
            raise TokenRefusedError("truncated", "the token is too short")
        candidates: list[AESGCMSIV] | list[AESGCM]
        if token[0] == TOKEN_FORMAT:
            candidates = self._by_id.get(token[1], [])
        elif token[0] == LEGACY_TOKEN_FORMAT:
            candidates = self._legacy.candidates(token[1])
        else:
            raise TokenRefusedError("format", f"unsupported token format {token[0]}")
        if not candidates:
            raise TokenRefusedError("unknown_key", "the token was sealed with an unknown key")
        header, nonce, body = token[:2], token[2:HEADER_SIZE], token[HEADER_SIZE:]
        for aead in candidates:
            try:
                return aead.decrypt(nonce, body, header + match_id)
            except InvalidTag:
                continue
        raise TokenRefusedError(
            "not_authentic", "the token does not authenticate (tampered, or another match)"
        )

    def board_key(self) -> bytes:
        """The key of duplicate-board decks, derived from the first key for that purpose only:
        servers sharing their first key deal the same boards."""
        return self._board_key

    # -- credentials ----------------------------------------------------------------

    def credential(self, match_id: bytes, role: str) -> str:
        """The credential of ``role`` (``host`` or ``seat0`` … ``seat3``) in a match."""
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
            if len(self._recent) >= RECENT_MATCHES:
                self._recent.pop(next(iter(self._recent)))
            self._recent[match_id] = cached
        return cached


class _LegacyTokens:
    """Format 1: AES-256-GCM under the raw key. Only opened; built on first use."""

    __slots__ = ("_aeads", "_keys")

    def __init__(self, keys: tuple[bytes, ...]) -> None:
        self._keys = keys
        self._aeads: tuple[tuple[int, AESGCM], ...] | None = None

    def candidates(self, kid: int) -> list[AESGCM]:
        if self._aeads is None:
            self._aeads = tuple((legacy_key_id(k), AESGCM(k)) for k in self._keys)
        return [aead for legacy_kid, aead in self._aeads if legacy_kid == kid]


def _legacy_mac_key(key: bytes) -> bytes:
    return hmac.new(key, b"baloot-credentials", hashlib.sha256).digest()


def _credential(mac_key: bytes, match_id: bytes, role: str) -> str:
    digest = hmac.digest(mac_key, match_id + b"/" + role.encode(), "sha256")
    return base64.urlsafe_b64encode(digest[:16]).decode("ascii").rstrip("=")


def seat_role(seat: int) -> str:
    """The credential role of a seat."""
    return f"seat{seat}"
