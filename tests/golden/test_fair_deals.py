"""The fair-deal vectors of ``fair_deals.json`` hold for the Python verifier (the TypeScript
client's tests check the same file), and the file is what ``fair_deals.py`` writes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baloot_engine.rules import fairdeal
from tests.golden.fair_deals import PATH, vectors

GOLDEN: dict[str, Any] = json.loads(PATH.read_text())


def test_the_file_is_up_to_date() -> None:
    assert vectors() == GOLDEN


def test_the_scheme_and_chain_length() -> None:
    assert (GOLDEN["scheme"], GOLDEN["chainRounds"]) == (fairdeal.SCHEME, fairdeal.CHAIN_ROUNDS)


@pytest.mark.parametrize("chain", GOLDEN["chains"], ids=lambda c: c["name"])
def test_a_chain_gives_its_keys_and_commitment(chain: dict[str, Any]) -> None:
    secret = bytes.fromhex(chain["secret"])
    committed = bytes.fromhex(chain["commitment"])
    assert fairdeal.commitment(secret) == committed
    for round_text, key_hex in chain["keys"].items():
        key = bytes.fromhex(key_hex)
        round_number = int(round_text)
        assert fairdeal.round_key(secret, round_number) == key
        assert fairdeal.key_matches(key, round_number, committed) == (round_number > 0)
    assert chain["keys"]["256"] == chain["secret"]  # key[N] is the secret itself


@pytest.mark.parametrize("vector", GOLDEN["decks"], ids=lambda v: f"{v['key'][:8]}/{v['redeals']}")
def test_a_key_and_redeal_count_give_the_deck(vector: dict[str, Any]) -> None:
    deck = fairdeal.committed_deck(bytes.fromhex(vector["key"]), vector["redeals"])
    assert list(deck) == vector["deck"]
    assert sorted(deck) == list(range(32))


@pytest.mark.parametrize("case", GOLDEN["records"], ids=lambda c: c["name"])
def test_a_record_checks_as_expected(case: dict[str, Any]) -> None:
    result = fairdeal.check_record_json(case["record"])
    if case["expect"] is None:
        assert result is None
        return
    assert result is not None
    expect = case["expect"]
    assert (result.proven, result.complete, result.bad_round) == (
        expect["proven"],
        expect["complete"],
        expect["badRound"],
    )
