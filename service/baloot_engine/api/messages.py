"""The refusals' words for people: English and Saudi Arabic, one sentence per reason.

Every refusal carries, besides its ``google.rpc.ErrorInfo``, a ``google.rpc.LocalizedMessage``
in the caller's language, chosen from the ``accept-language`` metadata of the call (English
when it names neither language). The status message stays the English sentence of the layer
that refused, for logs; the localized message is for the player's screen: a sentence of this
catalogue, then the facts the refusal names (whose turn it is, the card), in the same language.

The Arabic is the language of the Saudi table (docs/rules.md's glossary): قاطع، دق، كبّر، إكة،
سوا، قيد، مشاريع، صكة… A reason without both sentences fails the tests, so a new reason comes
with its words.

The server's telemetry handler reads the header once per call (:func:`set_call_language`); the
status layer asks :func:`call_language` when it builds a refusal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from functools import lru_cache
from typing import Final, Literal, TypeAlias

Language: TypeAlias = Literal["en", "ar"]

LANGUAGE_HEADER: Final = "accept-language"
ENGLISH: Final = "en"
ARABIC: Final = "ar"
# The locale tags of google.rpc.LocalizedMessage (BCP 47): the Arabic is Saudi.
LOCALES: Final[Mapping[Language, str]] = {"en": "en", "ar": "ar-SA"}

_language: ContextVar[Language] = ContextVar("baloot_call_language", default="en")

# reason -> (English, Arabic). The reasons of rules/errors.py, then of api/status.py.
CATALOGUE: Final[Mapping[str, tuple[str, str]]] = {
    # The rules forbid the action now.
    "WRONG_PHASE": (
        "That move does not belong to this part of the round.",
        "هذي الحركة مو وقتها في هذي المرحلة من الجولة.",
    ),
    "NOT_YOUR_TURN": ("It is not your turn.", "مو دورك."),
    "BID_NOT_ALLOWED": (
        "That bid is not allowed now.",
        "هذا الشراء ما يجوز الحين.",
    ),
    "ASHKAL_NOT_ALLOWED": (
        "Ashkal is only for the dealer and the player before him, in the first round of bidding.",
        "أشكل للموزع واللي قبله بس، وفي اللفة الأولى.",
    ),
    "SUIT_NOT_ALLOWED": (
        "That suit cannot be named with this bid.",
        "ما يجوز تسمي هذا النوع مع هذا الشراء.",
    ),
    "DOUBLE_NOT_ALLOWED": (
        "That doubling call is not allowed now.",
        "هذي المضاعفة ما تجوز الحين.",
    ),
    "MODE_REQUIRED": (
        "Say whether the game is closed or open.",
        "حدد اللعب: مقفل ولا مفتوح.",
    ),
    "KAWESH_NOT_ALLOWED": (
        "This hand may not call Kawesh now.",
        "ما يحق لك كوش بهذي الورق الحين.",
    ),
    "CARD_NOT_IN_HAND": ("You do not hold that card.", "هذي الورقة مو في يدك."),
    "MUST_FOLLOW_SUIT": (
        "You must follow the suit that was led: playing another while you hold it is a revoke.",
        "لازم تلعب من نوع الورقة الأولى في الأكلة، وإذا لعبت غيره وهو معك صرت قاطع.",
    ),
    "MUST_TRUMP": (
        "You have none of the suit led: you must trump.",
        "ما معك من النوع الملعوب، لازم تدق بالحكم.",
    ),
    "MUST_OVERTRUMP": (
        "You must play a higher trump.",
        "لازم تكبّر بحكم أعلى.",
    ),
    "TRUMP_LEAD_LOCKED": (
        "The game is closed: no trump lead while you hold another suit.",
        "اللعب مقفل: ما تبدأ بالحكم وأنت معك نوع ثاني.",
    ),
    "AKKA_NOT_ALLOWED": (
        "Akka is called only when leading the highest card left of a suit that is not trump.",
        "الإكة تنقال بس لما تبدأ بأعلى ورقة باقية من نوع غير الحكم.",
    ),
    "PROJECT_NOT_HELD": (
        "Your hand does not hold that project.",
        "هذا المشروع مو في يدك.",
    ),
    "DECLARATION_CLOSED": (
        "Projects are declared once, in the first trick, before or with your first card.",
        "المشاريع تنعلن مرة وحدة في الأكلة الأولى، قبل ورقتك الأولى أو معها.",
    ),
    "SAWA_INVALID": (
        "Sawa refused: the other team can still win a trick.",
        "السوا مرفوضة: الفريق الثاني يقدر ياكل أكلة.",
    ),
    "SAWA_NOT_ALLOWED": (
        "Sawa cannot be claimed now: only the player on lead claims it, where the rules allow it.",
        "ما تقدر تقول سوا الحين: السوا للي عليه اللعب بس، إذا القوانين تسمح.",
    ),
    "MATCH_OVER": ("The match is over.", "الصكة خلصت."),
    "QAYD_NOT_ALLOWED": (
        "That Qayd call is not allowed: Qayd is for table play, on a card of the other team.",
        "هذا القيد ما يجوز: القيد في لعب الطاولة بس، على ورقة من الفريق الثاني.",
    ),
    "QAYD_INVALID": (
        "That Qayd call names no card the accused seat played.",
        "هذا القيد ما يطابق ورقة لعبها اللاعب المقيّد.",
    ),
    "SOLVER_DEADLINE": (
        "The solver did not finish in the time allowed. Ask again with a longer deadline.",
        "الحلّال ما خلّص في الوقت المسموح. اطلب مرة ثانية بمهلة أطول.",
    ),
    "ANALYSIS_BUDGET_INVALID": (
        "That analysis asks too much: at most 200 worlds, 600000 ms and the record's rounds.",
        "هذا التحليل يطلب أكثر من المسموح: 200 توزيعة و600000 ملي ثانية وجولات السجل بس.",
    ),
    "ANALYSIS_DEADLINE": (
        "The analysis did not finish in the time allowed; what was sent stands.",
        "التحليل ما خلّص في الوقت المسموح؛ اللي انرسل منه صحيح.",
    ),
    "ROUND_NOT_PLAYED_OUT": (
        "The round ended before its eighth trick, so its unplayed cards are not known.",
        "الجولة انتهت قبل الأكلة الثامنة، فالأوراق اللي ما انلعبت ما هي معروفة.",
    ),
    "RECORD_FORMAT_UNKNOWN": (
        "The record is of a format this server does not read.",
        "السجل بصيغة ما يقراها هذا الخادم.",
    ),
    "RECORD_RULES_INCONSISTENT": (
        "The record's rules name one preset but their flags are another's.",
        "قوانين السجل تسمّي نظام وأعلامها تبع نظام ثاني.",
    ),
    "QAYD_WRONG": (
        "That Qayd call is wrong: the card broke no rule. Nothing is judged; play goes on.",
        "القيد غلط: الورقة ما خالفت أي قانون. ما فيه حكم، واللعب يكمل.",
    ),
    "REVIEW_NOT_OPEN": (
        "No round is under review now.",
        "ما فيه جولة قيد المراجعة الحين.",
    ),
    "RECORD_MISMATCH": (
        "The record does not match the play: a round ends otherwise.",
        "السجل ما يطابق اللعب: جولة فيه تنتهي بشكل ثاني.",
    ),
    # Malformed or impossible input.
    "INVALID_CARD": ("That is not a card.", "هذي مو ورقة."),
    "INVALID_DECK": (
        "That deck is not the 32 cards, each once.",
        "هذي الورق مو الـ ٣٢ ورقة كل وحدة مرة.",
    ),
    "INVALID_SEAT": ("A seat is 0 to 3.", "المقعد من ٠ إلى ٣."),
    "INVALID_RULES": (
        "Those rule settings do not fit together.",
        "إعدادات القوانين هذي ما تركب مع بعض.",
    ),
    "INVALID_ACTION": ("That is not a valid move.", "هذي مو حركة صحيحة."),
    "INVALID_ROUND_FACTS": (
        "Those round facts cannot happen.",
        "وقائع الجولة هذي ما تصير.",
    ),
    "STATE_INVALID": (
        "The match state sent does not open.",
        "حالة الصكة المرسلة ما تنفتح.",
    ),
    # Refusals of the API layer.
    "STALE_STATE": (
        "Someone moved first: load the match again and retry.",
        "فيه أحد لعب قبلك: حدّث الصكة وأعد المحاولة.",
    ),
    "CREDENTIAL_INVALID": (
        "This credential does not allow that.",
        "بيانات الاعتماد هذي ما تسمح بهذا.",
    ),
    "PRESET_DECK_DISABLED": (
        "This server does not accept a chosen deck.",
        "هذا الخادم ما يقبل ترتيب ورق محدد.",
    ),
    "REQUEST_INVALID": ("The request is malformed.", "الطلب فيه خطأ."),
    "OVERLOADED": (
        "The server is busy: retry in a moment.",
        "الخادم مشغول: أعد المحاولة بعد شوي.",
    ),
    "LEDGER_UNAVAILABLE": (
        "The match ledger cannot be reached: retry in a moment.",
        "سجل الصكات ما يوصل له الحين: أعد المحاولة بعد شوي.",
    ),
    "MATCH_UNKNOWN": (
        "This server does not know that match.",
        "هذا الخادم ما يعرف هذي الصكة.",
    ),
    "RECORD_TOO_LARGE": ("The record is too large.", "السجل كبير مرة."),
    "RECORD_DIVERGES": (
        "The record does not agree with its own play.",
        "السجل ما يتفق مع لعبه.",
    ),
    "DEAL_NOT_COMMITTED": (
        "A deck of the record is not the one the match committed to before play.",
        "فيه ورق موزّع في السجل غير اللي التزمت فيه الصكة قبل اللعب.",
    ),
    "WORKER_STOPPED": (
        "The server's worker stopped before it answered; nothing was done, send it again.",
        "عامل الخادم وقف قبل لا يرد؛ ما صار شي، أرسل الطلب مرة ثانية.",
    ),
    "LANE_FULL": (
        "The server has too much of this work waiting: retry in a moment.",
        "عند الخادم شغل كثير من هالنوع ينتظر: أعد المحاولة بعد شوي.",
    ),
    "QUOTA_EXCEEDED": (
        "Your quota of this work is used up for now: retry in a moment.",
        "استهلكت حصتك من هالشغل حالياً: أعد المحاولة بعد شوي.",
    ),
    "API_KEY_REQUIRED": (
        "This work needs an API key.",
        "هالشغل يحتاج مفتاح وصول.",
    ),
    "API_KEY_INVALID": (
        "This API key is not valid here.",
        "مفتاح الوصول هذا غير صالح هنا.",
    ),
    "LANE_DEADLINE": (
        "The work did not finish in time; nothing was changed.",
        "الشغل ما خلص في وقته؛ ما تغيّر شي.",
    ),
    "LANE_CLOSED": (
        "The server is stopping: send it again.",
        "الخادم يوقف الحين: أرسل الطلب مرة ثانية.",
    ),
    "DRAINING": (
        "The server stopped before the work ended; nothing was changed, send it again.",
        "الخادم وقف قبل لا يخلص الشغل؛ ما تغيّر شي، أرسل الطلب مرة ثانية.",
    ),
}

# The facts of ErrorInfo.metadata a localized message repeats: key -> (English, Arabic).
_FACTS: Final[tuple[tuple[str, str, str], ...]] = (
    ("turn", "It is seat {}'s turn.", "الدور على المقعد {}."),
    ("card", "Card: {}.", "الورقة: {}."),
)
_SUITS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def language_from(metadata: Iterable[tuple[str, str | bytes]] | None) -> Language:
    """The language of an ``accept-language`` header: Arabic or English, by quality and order.

    ``ar``, ``ar-SA`` and ``ar-SA,ar;q=0.9,en;q=0.8`` are Arabic; ``en-US,ar;q=0.5`` is
    English; a header naming neither, or none, is English.
    """
    for key, value in metadata or ():
        if key == LANGUAGE_HEADER and isinstance(value, str):
            return _best(value)
    return "en"


@lru_cache(maxsize=256)  # browsers send a handful of distinct headers: parse each once
def _best(header: str) -> Language:
    best: Language = "en"
    best_quality = -1.0
    for part in header.split(","):
        tag, _, params = part.strip().partition(";")
        primary = tag.strip().split("-", 1)[0].lower()
        if primary not in ("en", "ar", "*"):
            continue
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                continue
        if quality > best_quality and quality > 0:
            best = "ar" if primary == "ar" else "en"
            best_quality = quality
    return best


def set_call_language(metadata: Iterable[tuple[str, str | bytes]] | None) -> None:
    """Note the current call's language (a context variable: one per call's task)."""
    language = language_from(metadata)
    if language != "en":
        _language.set(language)


def call_language() -> Language:
    """The language of the current call (English outside a call)."""
    return _language.get()


def localized(reason: str, metadata: Mapping[str, str], language: Language) -> str | None:
    """The catalogue's sentence for ``reason`` with the facts it repeats; None if unknown."""
    texts = CATALOGUE.get(reason)
    if texts is None:
        return None
    index = 1 if language == "ar" else 0
    parts = [texts[index]]
    for key, english, arabic in _FACTS:
        value = metadata.get(key)
        if value:
            shown = _card(value, isolated=bool(index)) if key == "card" else value
            parts.append((arabic if index else english).format(shown))
    return " ".join(parts)


def _card(code: str, *, isolated: bool) -> str:
    """A card code with its suit symbol: ``9H`` -> ``9♥``.

    In an Arabic sentence the card is isolated (FSI ... PDI), so that a right-to-left line
    keeps ``10♥`` whole and in its order.
    """
    suit = _SUITS.get(code[-1:])
    shown = code[:-1] + suit if suit and len(code) >= 2 else code
    return f"\u2068{shown}\u2069" if isolated else shown


CACHES: Final = {"language": _best}
"""The bounded caches of this module, by their metric label (``server/caches.py``)."""
