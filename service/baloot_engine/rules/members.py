"""The enum members read on the hot paths of the rules core and the service, as constants.

The one technique against slow enum lookups: on Python 3.11, reading a member through its
class (``Phase.PLAYING``) goes through the enum metaclass's ``__getattr__`` hook and costs
about four times a plain class attribute; a name imported from this module is a global
(one dictionary lookup). Code that runs on every call (a card, a bid, a token opened, a view
encoded) imports the members it compares from here; code off those paths reads them through
their class as usual. The members are the enums' own (``PLAYING is Phase.PLAYING``), so the
two spellings mix freely; on Python 3.12 and later the hook is gone and both cost the same.

Only members, and only the enums' own names: a member's constant is its class's name and its
own (``PHASE_PLAYING``) where the bare name would be ambiguous across enums.
"""

from __future__ import annotations

from typing import Final

from baloot_engine.rules.actions import EventKind
from baloot_engine.rules.contract import ContractType
from baloot_engine.rules.ruleset import Kawesh, PartnerWinningRule
from baloot_engine.rules.state import BidStage, DoublingStep, Phase

# Phase: compared on every call.
AWAITING_DEAL: Final = Phase.AWAITING_DEAL
BIDDING: Final = Phase.BIDDING
DOUBLING: Final = Phase.DOUBLING
PLAYING: Final = Phase.PLAYING
ROUND_OVER: Final = Phase.ROUND_OVER
MATCH_OVER: Final = Phase.MATCH_OVER
ROUND_REVIEW: Final = Phase.ROUND_REVIEW

# EventKind: every card's events, the events sent, the records replayed.
CARD_PLAYED: Final = EventKind.CARD_PLAYED
AKKA_CALLED: Final = EventKind.AKKA_CALLED
TRICK_WON: Final = EventKind.TRICK_WON
ROUND_SCORED: Final = EventKind.ROUND_SCORED

# The bidding's stages and the Kawesh flag: every bid.
STAGE_REOPEN: Final = BidStage.REOPEN
STAGE_CONFIRM: Final = BidStage.CONFIRM
STAGE_PRIORITY: Final = BidStage.PRIORITY
KAWESH_OFF: Final = Kawesh.OFF

# The doubling's step, the contract's type and the partner-winning rule: every card and
# every token validated.
DOUBLING_STEP_NONE: Final = DoublingStep.NONE
CONTRACT_SUN: Final = ContractType.SUN
CONTRACT_HOKM: Final = ContractType.HOKM
PARTNER_WINNING_NEVER: Final = PartnerWinningRule.NEVER
PARTNER_WINNING_ANY: Final = PartnerWinningRule.ANY_PARTNER_WINNING
PARTNER_WINNING_POSITIONAL: Final = PartnerWinningRule.POSITIONAL
