"""Sentences people can read, in English and in Saudi Arabic, built from a decision's fields.

The sentences say what the structured fields say, no more: the action taken, the better
choice, what it cost on average from what the seat could know, in how many of the likely
deals it did worse, and the cost with every hand known. Apps that write their own text use the
fields; these are for the others (and for the command-line report).
"""

from __future__ import annotations

from typing import Final, Literal

from baloot_engine.analysis.core import Decision, DecisionKind
from baloot_engine.rules.actions import Action, Bid, BidKind, Doubling, DoublingCall, Play
from baloot_engine.rules.cards import RANK_NAMES, RANK_NAMES_AR, SUIT_NAMES_AR, SUIT_SYMBOLS
from baloot_engine.rules.contract import PlayMode

Language = Literal["en", "ar"]
LANGUAGES: Final = ("en", "ar")


def card_name(card: int, language: Language = "en") -> str:
    """``A♠`` in English, ``إكة سبيت`` in Arabic."""
    suit, rank = card >> 3, card & 7
    if language == "ar":
        return f"{RANK_NAMES_AR[rank]} {SUIT_NAMES_AR[suit]}"
    return f"{RANK_NAMES[rank]}{SUIT_SYMBOLS[suit]}"


_BIDS_EN: Final = {
    BidKind.PASS: "a pass",
    BidKind.SUN: "Sun",
    BidKind.ASHKAL: "Ashkal",
    BidKind.CONFIRM_HOKM: "keeping the Hokm",
    BidKind.SWITCH_TO_SUN: "switching to Sun",
    BidKind.CLAIM_SUN: "claiming the Sun",
    BidKind.KAWESH: "Kawesh",
}
_BIDS_AR: Final = {
    BidKind.PASS: "بس",
    BidKind.SUN: "صن",
    BidKind.ASHKAL: "أشكل",
    BidKind.CONFIRM_HOKM: "تثبيت الحكم",
    BidKind.SWITCH_TO_SUN: "التحويل صن",
    BidKind.CLAIM_SUN: "قبلك",
    BidKind.KAWESH: "كوش",
}
_CALLS_EN: Final = {
    DoublingCall.DOUBLE: "Double",
    DoublingCall.TRIPLE: "Triple",
    DoublingCall.FOUR: "Four",
    DoublingCall.GAHWA: "Gahwa",
    DoublingCall.DECLINE: "no raise",  # "Not raising" as the action taken
    DoublingCall.CHOOSE_MODE: "the mode",
}
_CALLS_AR: Final = {
    DoublingCall.DOUBLE: "دبل",
    DoublingCall.TRIPLE: "تربل",
    DoublingCall.FOUR: "فور",
    DoublingCall.GAHWA: "قهوة",
    DoublingCall.DECLINE: "بدون رفع",
    DoublingCall.CHOOSE_MODE: "اللعب",
}
_MODES: Final = {
    PlayMode.OPEN: ("open", "مفتوح"),
    PlayMode.CLOSED: ("closed", "مقفل"),
}


def action_name(action: Action, language: Language = "en") -> str:
    """A card, a bid or a doubling call as players name it."""
    arabic = language == "ar"
    if isinstance(action, Play):
        name = card_name(action.card, language)
        if action.akka:
            name += " (إكة)" if arabic else " (Akka)"
        return name
    if isinstance(action, Bid):
        if action.kind is BidKind.HOKM:
            if action.suit < 0:
                return "حكم" if arabic else "Hokm"
            if arabic:
                return f"حكم {SUIT_NAMES_AR[action.suit]}"
            return f"Hokm {SUIT_SYMBOLS[action.suit]}"
        return (_BIDS_AR if arabic else _BIDS_EN)[action.kind]
    if isinstance(action, Doubling):
        name = (_CALLS_AR if arabic else _CALLS_EN)[action.call]
        if action.mode is not None:
            mode = _MODES[action.mode][1 if arabic else 0]
            name = f"{name} {mode}" if arabic else f"{name} ({mode})"
        return name
    return type(action).__name__


def _amount(value: float) -> str:
    text = f"{value:.1f}"
    return text.removesuffix(".0")


def _doing(action: Action) -> str:
    """The action taken as the subject of an English sentence: "Playing A♠", "Passing"."""
    if isinstance(action, Play):
        return f"Playing {action_name(action)}"
    if isinstance(action, Bid):
        return "Passing" if action.kind is BidKind.PASS else f"Bidding {action_name(action)}"
    if isinstance(action, Doubling) and action.call is DoublingCall.DECLINE:
        return "Not raising"
    return f"Calling {action_name(action)}"


def explain(decision: Decision, language: Language = "en") -> str:
    """One sentence about ``decision``: a best choice, or what the action taken cost."""
    taken = action_name(decision.action, language)
    if decision.is_best:
        if language == "ar":
            return f"{taken}: أفضل لعب من اللي كان يقدر يعرفه."
        return f"{taken} was the best choice from what the seat could know."
    better = action_name(decision.best_action, language)
    card = decision.kind is DecisionKind.CARD
    loss = decision.fair_loss
    points = decision.fair_loss_points if card else None
    if language == "ar":
        verb = "لعب" if card else "قول"
        text = f"{verb} {taken} بدل {better} خسّر {_amount(loss)} نقطة بالمتوسط"
        if points is not None and points > 0:
            text += f" ({_amount(points)} بنط)"
        elif points is not None and points < 0:
            text += f" (مع إنه جاب {_amount(-points)} بنط زيادة)"
        if decision.worse_in:
            text += f"، وكان أسوأ في {decision.worse_in} من {decision.worlds} توزيعات محتملة"
        if decision.hindsight_loss is not None:
            text += f"؛ والأوراق كلها مكشوفة: {_amount(decision.hindsight_loss)} نقطة"
        return text + "."
    text = (
        f"{_doing(decision.action)} instead of {better} cost {_amount(loss)} game points on average"
    )
    if points is not None and points > 0:
        text += f" ({_amount(points)} card points)"
    elif points is not None and points < 0:
        text += f" (though it took {_amount(-points)} more card points)"
    if decision.worse_in:
        text += f", worse in {decision.worse_in} of {decision.worlds} likely deals"
    if decision.hindsight_loss is not None:
        text += f"; with every hand known: {_amount(decision.hindsight_loss)}"
    return text + "."


__all__ = ["LANGUAGES", "Language", "action_name", "card_name", "explain"]
