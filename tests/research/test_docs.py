"""docs/research.md: its training loop and its OpenSpiel example run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "research.md"


def test_the_training_loop_of_the_docs_runs() -> None:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"<!-- training-loop -->\n```python\n(.*?)```", text, re.DOTALL)
    assert match is not None
    code = match.group(1).replace(
        "EPISODES, table, rng, basic = 1000,", "EPISODES, table, rng, basic = 2,"
    )
    assert "= 2," in code
    namespace: dict[str, object] = {}
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102 - the document's own example
    weights = namespace["weights"]
    assert weights.shape == (2350, 105)  # type: ignore[attr-defined]


def test_the_openspiel_example_of_the_docs_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"<!-- openspiel-bots -->\n```python\n(.*?)```", text, re.DOTALL)
    assert match is not None
    exec(compile(match.group(1), str(DOC), "exec"), {})  # noqa: S102 - the document's example
    returns = [float(value) for value in capsys.readouterr().out.strip("[]\n").split(",")]
    assert len(returns) == 4
    assert sum(returns) == 0
