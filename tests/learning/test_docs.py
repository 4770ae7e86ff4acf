"""docs/learning.md: its example runs as written, and its encoding tables list every segment."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from baloot_engine.bots.features import BID_SEGMENTS, PLAY_SEGMENTS

DOC = Path(__file__).resolve().parents[2] / "docs" / "learning.md"


def test_the_example_of_the_docs_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"<!-- learned-example -->\n```python\n(.*?)```", text, re.DOTALL)
    assert match is not None
    namespace: dict[str, Any] = {}
    exec(compile(match.group(1), str(DOC), "exec"), namespace)  # noqa: S102 - the example
    first, second = capsys.readouterr().out.strip().splitlines()
    assert first.split()[0] == namespace["model_version"]()
    values = namespace["values"]
    assert len(values) >= 1
    assert namespace["action"].card == max(values, key=values.get)
    assert second == str(namespace["action"])


def test_the_encoding_tables_list_every_segment_in_order() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", text, re.MULTILINE)
    expected = [(s.name, str(s.offset), str(s.size)) for s in (*PLAY_SEGMENTS, *BID_SEGMENTS)]
    assert rows == expected
