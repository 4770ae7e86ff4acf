"""``baloot-verify-deal``: check a match record's decks, commitment and attestation.

    baloot-verify-deal match.json [--commitment C] [--public-key K ...]

The checks are those of :func:`baloot_engine.rules.fairdeal.main` (standard library only: the
file can be copied and run alone); installed with the package, the command also compares the
rules the attestation names with the record's own (their digest, docs/fair-deals.md), which
needs the record's rules resolved as VerifyRecord resolves them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from google.protobuf import json_format

from baloot.v1 import records_pb2
from baloot_engine.api.attestation import digest_of
from baloot_engine.api.records import start_of
from baloot_engine.rules import RuleError, fairdeal


def record_rules_digest(record: dict[str, Any]) -> bytes:
    """The digest of the rules of a record in its proto3 JSON form (empty when they cannot be
    read: no attestation then matches them)."""
    try:
        message = json_format.ParseDict(record, records_pb2.MatchRecord())
        return digest_of(start_of(message).rules)
    except (json_format.ParseError, RuleError):
        return b""


def main(argv: Sequence[str] | None = None) -> int:
    """The command: :func:`baloot_engine.rules.fairdeal.main`, the rules compared too."""
    return fairdeal.main(argv, rules_digest_of=record_rules_digest)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


__all__ = ["main", "record_rules_digest"]
