"""Seats, teams and contracts (``rules/contract.py``, R2, R10, R13-R14)."""

from __future__ import annotations

from baloot_engine.rules.contract import (
    NO_TRUMP,
    SEATS,
    Contract,
    ContractType,
    PlayMode,
    next_seat,
    partner_of,
    team_of,
)


def test_seats_partners_and_teams() -> None:
    assert SEATS == (0, 1, 2, 3)
    assert [next_seat(s) for s in SEATS] == [1, 2, 3, 0]
    assert [partner_of(s) for s in SEATS] == [2, 3, 0, 1]
    assert [team_of(s) for s in SEATS] == [0, 1, 0, 1]
    for seat in SEATS:
        assert team_of(partner_of(seat)) == team_of(seat)
        assert team_of(next_seat(seat)) != team_of(seat)


def test_a_contract_knows_its_buyer_team_type_and_mode() -> None:
    sun = Contract(ContractType.SUN, NO_TRUMP, buyer=3)
    assert (sun.buyer_team, sun.is_sun, sun.closed) == (1, True, False)
    hokm = Contract(ContractType.HOKM, 2, buyer=2, multiplier=2, mode=PlayMode.CLOSED)
    assert (hokm.buyer_team, hokm.is_sun, hokm.closed) == (0, False, True)
