"""The one exception of the rules core and its reasons (``rules/errors.py``)."""

from __future__ import annotations

import re

from baloot_engine.rules import errors
from baloot_engine.rules.errors import ErrorKind, RuleError, malformed


def test_reasons_are_stable_upper_snake_strings_named_as_themselves() -> None:
    reasons = {
        name: value
        for name, value in vars(errors).items()
        if name.isupper() and isinstance(value, str)
    }
    assert len(reasons) > 20
    for name, value in reasons.items():
        assert value == name
        assert re.fullmatch(r"[A-Z][A-Z_]*", value)


def test_a_rule_error_carries_its_reason_kind_alternatives_and_details() -> None:
    error = RuleError(errors.MUST_FOLLOW_SUIT, "follow", allowed=("7S",), details={"seat": "1"})
    assert (error.reason, error.message, error.kind) == (
        errors.MUST_FOLLOW_SUIT,
        "follow",
        ErrorKind.FORBIDDEN,
    )
    assert error.allowed == ("7S",)
    assert error.details == {"seat": "1"}
    assert str(error) == "follow"
    bad = malformed(errors.INVALID_DECK, "no deck", cards="31")
    assert bad.kind is ErrorKind.MALFORMED
    assert bad.details == {"cards": "31"}
