"""The round that ended last, as the reveals show it while a match waits for its next deal.

A round ends scored (the last card, a Sawa claim, a Qayd call, the close of a review) or is
cancelled and dealt again (all passed, Kawesh). Until the next deal the token still holds that
round's deck, and the host credential's ``GetView`` returns its reveal whichever credential ended
it (``GetViewResponse.round_reveal``), so a backend that relays its players' actions with their
own credentials still completes the match's record (docs/records.md). The match layer
(:meth:`baloot_engine.api.matches.Matches.shown_reveal`) decides who may see it; this module only
says which round it is.
"""

from __future__ import annotations

from typing import Final

from baloot_engine.rules import Phase, State

_SCORED_PHASES: Final = (Phase.ROUND_OVER, Phase.MATCH_OVER)


def ended_round(state: State, redealt_by: int) -> State | None:
    """A state of the round that ended last (its number, dealer and contract) while ``state``
    waits for the next deal, or is over; None before the first deal and while a round is played.

    After a scored round the deal has passed to the next seat. After a redeal the token keeps the
    redealt round's dealer (``redealt_by``: that seat plus one), since a Kawesh may have kept the
    deal with him (``kawesh_keeps_dealer``); a token sealed before it kept one (0) gets the seat
    before the next dealer, as every other redeal passes the deal on."""
    if state.phase in _SCORED_PHASES:
        if state.last_score is None:
            return None
        return state._replace(dealer=(state.dealer - 1) & 3)
    if state.phase is Phase.AWAITING_DEAL and state.hand_number > 0:
        dealer = redealt_by - 1 if redealt_by else (state.dealer - 1) & 3
        return state._replace(dealer=dealer)
    return None


def was_redealt(state: State) -> bool:
    """Whether the round that ended last in a between-rounds ``state`` was redealt (it
    discloses no key: its round is not over)."""
    return state.phase is Phase.AWAITING_DEAL


__all__ = ["ended_round", "was_redealt"]
