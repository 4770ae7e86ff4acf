"""Round facts written by hand for the scoring and facts tests, and the seats they name.

Seats follow the rules document's examples with the dealer at South: E = 0 (dealer's right),
N = 1, W = 2, S = 3, so team 0 is East-West and team 1 is North-South.
"""

from __future__ import annotations

from typing import Any

from baloot_engine.rules.cards import mask_of, parse_cards
from baloot_engine.rules.contract import ContractType
from baloot_engine.rules.facts import RoundFacts
from baloot_engine.rules.projects import ProjectKind

SUN = ContractType.SUN
HOKM = ContractType.HOKM
SIRA = ProjectKind.SIRA
FIFTY = ProjectKind.FIFTY
HUNDRED = ProjectKind.HUNDRED
FOUR_HUNDRED = ProjectKind.FOUR_HUNDRED
EW, NS = 0, 1
E, N, W, S = 0, 1, 2, 3


def cards(text: str) -> int:
    return mask_of(parse_cards(text))


def facts(
    contract: ContractType,
    abnat: tuple[int, int],
    buyer: int = 0,
    tricks: tuple[int, int] = (4, 4),
    **extra: Any,
) -> RoundFacts:
    """Facts of a round given by hand, as a score-keeping app would."""
    return RoundFacts(
        contract=contract, buyer_team=buyer, card_abnat=abnat, tricks_won=tricks, **extra
    )


def kaboot(contract: ContractType, team: int, buyer: int = 0, **extra: Any) -> RoundFacts:
    total = 130 if contract is SUN else 162
    abnat = (total, 0) if team == 0 else (0, total)
    tricks = (8, 0) if team == 0 else (0, 8)
    return facts(contract, abnat, buyer=buyer, tricks=tricks, **extra)
