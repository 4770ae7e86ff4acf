"""Match records on the client side: built from the responses, written and read.

A :class:`RecordBuilder` follows a match through the responses a host credential receives:
each action the client sends (with its seat) and, in table play, each close of a round's
review by the host, the deck of each hand from its
``ROUND_REVEALED`` event, and each round's score from its ``ROUND_SCORED`` event; with the
commitment CreateMatch returned, the latest key a reveal discloses (docs/fair-deals.md). When a
seat's own credential ended a round, its response has no reveal: the host credential's GetView
has it (``round_reveal``), given to :meth:`RecordBuilder.add_reveal`. Records are
written as binary protobuf (``.pb``) or as proto3 JSON (``.json``, the documented form of
``docs/records.md``); both read back to an equal message.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from google.protobuf import json_format

from baloot.v1 import records_pb2, types_pb2

RECORD_FORMAT = 1


class RecordBuilder:
    """Builds the ``MatchRecord`` of one match from its creation and its responses."""

    def __init__(
        self,
        match_id: str,
        view: types_pb2.View,
        board_set: str = "",
        deal_commitment: types_pb2.DealCommitment | None = None,
    ) -> None:
        self.record = records_pb2.MatchRecord(
            format=RECORD_FORMAT,
            match_id=match_id,
            starting_scores=list(view.match_score.points),
            first_dealer=view.dealer,
            board_set=board_set,
        )
        self.record.rules.CopyFrom(view.rules)
        if deal_commitment is not None:
            self.record.deal_commitment.CopyFrom(deal_commitment)

    def add(self, seat: int, action: types_pb2.Action, events: Iterable[types_pb2.Event]) -> None:
        """Record an applied action of ``seat`` and what its response said."""
        entry = records_pb2.RecordedAction(seat=seat)
        entry.action.CopyFrom(action)
        if action.WhichOneof("action") == "deal":
            current = self.record.rounds.add()
            current.deck_order.extend(action.deal.deck_order)  # a preset deck, if one
            del entry.action.deal.deck_order[:]
        elif not self.record.rounds:
            raise ValueError("a record starts with a deal")
        self._append(entry, events)

    def add_close_review(self, events: Iterable[types_pb2.Event]) -> None:
        """Record the host's close of a table-play round's review and what its response said."""
        if not self.record.rounds:
            raise ValueError("a record starts with a deal")
        self._append(records_pb2.RecordedAction(close_review=True), events)

    def add_reveal(self, reveal: types_pb2.RoundReveal) -> None:
        """Record the reveal of the round that just ended when its response had none: the
        host credential's ``GetViewResponse.round_reveal`` after a seat's own action ended it."""
        if not self.record.rounds:
            raise ValueError("a record starts with a deal")
        self._take_reveal(self.record.rounds[-1], reveal)

    def _append(self, entry: records_pb2.RecordedAction, events: Iterable[types_pb2.Event]) -> None:
        current = self.record.rounds[-1]
        current.actions.append(entry)
        for event in events:
            if event.kind == types_pb2.EVENT_KIND_ROUND_REVEALED:
                self._take_reveal(current, event.reveal)
            elif event.kind == types_pb2.EVENT_KIND_ROUND_SCORED:
                current.score.CopyFrom(event.round_score)

    def _take_reveal(
        self, current: records_pb2.RecordedRound, reveal: types_pb2.RoundReveal
    ) -> None:
        del current.deck_order[:]
        current.deck_order.extend(reveal.deck_order)
        key = reveal.deal_key
        if reveal.HasField("deal_key") and key.round > self.record.deal_key.round:
            self.record.deal_key.CopyFrom(key)  # it opens every earlier round too


def ends_round(events: Iterable[types_pb2.Event]) -> bool:
    """Whether a response's events end a round (scored, or cancelled for a redeal). When a seat's
    own credential ended it, its response has no ``ROUND_REVEALED`` event (unless the reveal rule
    flag is on, and then without the deal key of a board-set match): the host credential's
    GetView has the whole reveal (``round_reveal``) until the next deal."""
    return any(event.kind in _ROUND_ENDS for event in events)


_ROUND_ENDS = frozenset((types_pb2.EVENT_KIND_ROUND_SCORED, types_pb2.EVENT_KIND_REDEAL))


def to_json(record: records_pb2.MatchRecord) -> str:
    """The proto3 JSON form of a record (field names in lowerCamelCase, enums by name)."""
    return json_format.MessageToJson(record, indent=2) + "\n"


def from_json(text: str) -> records_pb2.MatchRecord:
    """A record from its proto3 JSON form (unknown fields are refused)."""
    return json_format.Parse(text, records_pb2.MatchRecord())


def to_bytes(record: records_pb2.MatchRecord) -> bytes:
    """The binary protobuf form of a record."""
    return record.SerializeToString()


def from_bytes(data: bytes) -> records_pb2.MatchRecord:
    """A record from its binary protobuf form."""
    return records_pb2.MatchRecord.FromString(data)


def write_record(path: str | Path, record: records_pb2.MatchRecord) -> None:
    """Write a record: proto3 JSON when the name ends in ``.json``, binary otherwise."""
    target = Path(path)
    if target.suffix == ".json":
        target.write_text(to_json(record), encoding="utf-8")
    else:
        target.write_bytes(to_bytes(record))


def read_record(path: str | Path) -> records_pb2.MatchRecord:
    """Read a record written by :func:`write_record` (or by the TypeScript client)."""
    source = Path(path)
    if source.suffix == ".json":
        return from_json(source.read_text(encoding="utf-8"))
    return from_bytes(source.read_bytes())
