"""ErrorInfo metadata: one format per key, every key documented in errors.proto, and every
refusal of a card names the card."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import grpc
import pytest

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.api import inbound
from baloot_engine.api.status import ApiError, allowed_codes
from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Action,
    Bid,
    BidKind,
    ClaimSawa,
    Declare,
    Doubling,
    DoublingCall,
    Play,
)
from baloot_engine.rules.contract import PlayMode
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS
from baloot_engine.rules.state import Phase, State
from tests.rules.strategies import play_match

from .conftest import expect_refusal

ERRORS_PROTO = Path(__file__).parents[2] / "proto" / "baloot" / "v1" / "errors.proto"
CARD = r"(?:7|8|9|10|J|Q|K|A)[SHDC]"
KIND = r"[a-z_]+"
CODE = rf"(?:{CARD}|[a-z_]+(?::(?:[SHDC]|[a-z_]+))?)"
KEY_FORMATS = {
    "seat": r"[0-3]",
    "turn": r"[0-3]",
    "card": CARD,
    "value": r"-?[0-9]+",
    "allowed": rf"{CODE}(?:,{CODE})*",
    "declared": rf"{KIND}(?:,{KIND})*",
    "held": rf"(?:{KIND}(?:,{KIND})*)?",
    "project": KIND,
    "team": r"[01]",
    "trick": r"[1-8]",
    "field": r"[a-z_]+(?:\[[0-9]+\])?(?:\.[a-z_]+)*",
    "limit": r"[0-9]+",
    "state_version": r"[0-9]+",
    "latest_version": r"[0-9]*",
    "round_index": r"[0-9]+",
    "action_index": r"[0-9]+",
    "divergence": r"[A-Z_]+",
}
# The reasons that refuse one card a seat played: each names it.
CARD_REFUSALS = {
    errors.CARD_NOT_IN_HAND,
    errors.MUST_FOLLOW_SUIT,
    errors.MUST_TRUMP,
    errors.MUST_OVERTRUMP,
    errors.TRUMP_LEAD_LOCKED,
    errors.AKKA_NOT_ALLOWED,
}


def check_metadata(metadata: dict[str, str]) -> None:
    for key, value in metadata.items():
        assert key in KEY_FORMATS, f"undocumented metadata key {key!r}"
        assert re.fullmatch(KEY_FORMATS[key], value), (key, value)


def test_every_key_in_use_is_documented_in_errors_proto() -> None:
    header = ERRORS_PROTO.read_text(encoding="utf-8").split("syntax =")[0]
    documented = set(re.findall(r'^//   "([a-z_]+)" ', header, flags=re.MULTILINE))
    assert documented == set(KEY_FORMATS)


def _probes(state: State) -> list[Action]:
    kinds = [k for k in ProjectKind if k is not ProjectKind.BALOOT]
    return [
        *(Play(card) for card in range(32)),
        *(Play(card, True) for card in range(32)),
        *(Bid(kind) for kind in BidKind),
        *(Bid(BidKind.HOKM, suit) for suit in range(4)),
        *(Doubling(call) for call in DoublingCall),
        *(Doubling(call, mode) for call in DoublingCall for mode in PlayMode),
        *(Declare((k,)) for k in kinds),
        *(Declare(pair) for pair in itertools.combinations(kinds, 2)),
        ClaimSawa(),
    ]


def _refusals() -> list[RuleError]:
    """What the rules answer to every probe action of every seat, in states of real matches."""
    rng = random.Random(3)
    found: list[RuleError] = []
    rule_sets = [SEEDS, KAMMELNA, SEEDS.replace(sawa=True), KAMMELNA.replace(sawa=True)]
    for rules in rule_sets:
        states = play_match(rng, rules)
        for state in rng.sample(states, min(40, len(states))):
            if state.phase is Phase.MATCH_OVER:
                continue
            for seat, probe in itertools.product(range(4), _probes(state)):
                try:
                    apply(state, seat, probe)
                except RuleError as error:
                    found.append(error)
    return found


def test_every_refusal_of_the_rules_has_metadata_of_the_documented_formats() -> None:
    reasons: set[str] = set()
    for error in _refusals():
        metadata = ApiError.from_rule_error(error).metadata
        check_metadata(metadata)
        if error.reason in CARD_REFUSALS:
            assert "card" in metadata, error
        reasons.add(error.reason)
    # The sweep reaches the refusals with lists and cards.
    for reason in (errors.MUST_FOLLOW_SUIT, errors.BID_NOT_ALLOWED, errors.CARD_NOT_IN_HAND):
        assert reason in reasons


def test_allowed_is_one_list_of_codes_whatever_the_action() -> None:
    assert allowed_codes(("10S", "JS")) == "10S,JS"
    assert allowed_codes((str(Bid(BidKind.PASS)), str(Bid(BidKind.HOKM, 0)))) == "pass,hokm:S"
    double = str(Doubling(DoublingCall.DOUBLE, PlayMode.CLOSED))
    assert allowed_codes((double, ProjectKind.SIRA.value)) == "double:closed,sira"


def test_the_projects_declared_and_held_are_lists() -> None:
    errors_seen = [e for e in _refusals() if e.reason == errors.PROJECT_NOT_HELD]
    assert errors_seen
    for error in errors_seen:
        metadata = ApiError.from_rule_error(error).metadata
        assert set(metadata["declared"].split(",")) <= {k.value for k in ProjectKind}


@pytest.mark.parametrize(
    ("deck", "reason", "metadata"),
    [
        ([*range(31), 40], "INVALID_CARD", {"value": "40"}),
        ([*range(31), 30], "INVALID_DECK", {"card": "KC"}),
    ],
)
def test_a_refused_card_of_a_request_is_named(
    stub: pb_grpc.BalootEngineServiceStub, deck: list[int], reason: str, metadata: dict[str, str]
) -> None:
    created = stub.CreateMatch(pb.CreateMatchRequest(first_dealer=0))
    request = pb.DealRoundRequest(
        state=created.state,
        match_id=created.match_id,
        credential=created.host_credential,
        seat=0,
        deck_order=deck,
    )
    refused = expect_refusal(stub.DealRound, request, grpc.StatusCode.INVALID_ARGUMENT, reason)
    assert refused.metadata == metadata
    check_metadata(refused.metadata)


def test_the_limit_metadata_has_the_documented_format() -> None:
    for key, (limit, _) in inbound.REPEATED_LIMITS.items():
        check_metadata({"field": key[1], "limit": str(limit)})
