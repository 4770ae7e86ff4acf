"""The refusals' words: every reason has an English and a Saudi Arabic sentence, the language
comes from ``accept-language``, and every status carries its LocalizedMessage after the
ErrorInfo."""

from __future__ import annotations

import contextvars
import re

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from baloot.v1 import errors_pb2
from baloot_engine.api import messages, status
from baloot_engine.api.status import ApiError
from baloot_engine.rules import errors
from baloot_engine.rules.errors import RuleError

_ARABIC = re.compile(r"[\u0600-\u06FF]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def _constants(module: object) -> set[str]:
    """The reason codes a module defines: its UPPER_SNAKE string constants naming themselves."""
    return {
        name
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, str) and value == name and name != "DOMAIN"
    }


def _every_reason() -> set[str]:
    proto = {
        name.removeprefix("ERROR_REASON_")
        for name in errors_pb2.ErrorReason.keys()  # noqa: SIM118 - an EnumTypeWrapper
        if name != "ERROR_REASON_UNSPECIFIED"
    }
    return proto | _constants(errors) | _constants(status)


def test_the_reasons_are_found() -> None:
    reasons = _every_reason()
    assert {"MUST_FOLLOW_SUIT", "STALE_STATE", "QAYD_INVALID", "OVERLOADED"} <= reasons
    assert len(reasons) >= 39


@pytest.mark.parametrize("reason", sorted(_every_reason()))
def test_every_reason_has_an_english_and_an_arabic_sentence(reason: str) -> None:
    assert reason in messages.CATALOGUE, f"{reason} has no sentence in api/messages.py"
    english, arabic = messages.CATALOGUE[reason]
    assert english[:1].isupper()
    assert english.endswith(".")
    assert not _ARABIC.search(english)
    assert _ARABIC.search(arabic), f"{reason}: the Arabic sentence has no Arabic"
    assert not _LATIN_WORD.search(arabic), f"{reason}: the Arabic sentence has Latin words"


def test_the_catalogue_names_no_reason_the_contract_lacks() -> None:
    assert set(messages.CATALOGUE) <= _every_reason()


def test_the_arabic_speaks_the_table_language() -> None:
    arabic = " ".join(text for _, text in messages.CATALOGUE.values())
    for word in ("قاطع", "تدق", "تكبّر", "الإكة", "سوا", "القيد", "المشاريع", "الصكة", "مقفل"):
        assert word in arabic


@pytest.mark.parametrize(
    ("header", "language"),
    [
        (None, "en"),
        ("", "en"),
        ("ar", "ar"),
        ("ar-SA", "ar"),
        ("AR-sa", "ar"),
        ("ar-SA,ar;q=0.9,en;q=0.8", "ar"),
        ("en-US,ar;q=0.5", "en"),
        ("fr-FR,ar;q=0.7,en;q=0.3", "ar"),
        ("fr", "en"),
        ("ar;q=0", "en"),
        ("ar;q=oops,en", "en"),
        ("*", "en"),
    ],
)
def test_the_language_comes_from_accept_language(header: str | None, language: str) -> None:
    metadata = [("x-request-id", "r1")] + ([] if header is None else [("accept-language", header)])
    assert messages.language_from(metadata) == language


def _details(
    error: ApiError,
) -> tuple[error_details_pb2.ErrorInfo, error_details_pb2.LocalizedMessage]:
    [(_, value)] = error.to_status().trailing_metadata
    rich = status_pb2.Status.FromString(value)
    info, localized = error_details_pb2.ErrorInfo(), error_details_pb2.LocalizedMessage()
    assert [rich.details[0].Unpack(info), rich.details[1].Unpack(localized)] == [True, True]
    return info, localized


def _in_language(header: str, error: ApiError) -> error_details_pb2.LocalizedMessage:
    def run() -> error_details_pb2.LocalizedMessage:
        messages.set_call_language([("accept-language", header)])
        return _details(error)[1]

    return contextvars.copy_context().run(run)


def test_a_status_carries_the_error_info_then_the_localized_message() -> None:
    error = ApiError.from_rule_error(
        RuleError(errors.NOT_YOUR_TURN, "seat 1 is to play, not seat 2", details={"turn": "1"})
    )
    info, english = _details(error)
    assert info.reason == "NOT_YOUR_TURN"
    assert (english.locale, english.message) == ("en", "It is not your turn. It is seat 1's turn.")
    arabic = _in_language("ar-SA", error)
    assert (arabic.locale, arabic.message) == ("ar-SA", "مو دورك. الدور على المقعد 1.")
    assert messages.call_language() == "en"  # the call's language stays in its context


def test_a_card_is_shown_with_its_suit_and_kept_whole_in_arabic() -> None:
    error = ApiError.from_rule_error(
        RuleError(errors.CARD_NOT_IN_HAND, "seat 1 does not hold 10H", details={"card": "10H"})
    )
    assert _details(error)[1].message == "You do not hold that card. Card: 10♥."
    assert _in_language("ar", error).message == "هذي الورقة مو في يدك. الورقة: \u206810♥\u2069."


def test_a_reason_outside_the_catalogue_falls_back_to_the_status_message() -> None:
    error = ApiError(grpc.StatusCode.INVALID_ARGUMENT, "SOMETHING_NEW", "a new refusal")
    localized = _in_language("ar", error)
    assert (localized.locale, localized.message) == ("en", "a new refusal")
