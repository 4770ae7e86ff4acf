"""docs/research.md: every Python block runs as written (fewer episodes and simulations), the
service example against a real server, whose hidden state the reader's observations match."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from baloot_client import EngineClient, Match

from baloot.v1 import types_pb2
from baloot_engine.api.sealing import KeyRing
from baloot_engine.research import ViewReader
from baloot_engine.research.encoding import encode, legal_mask
from baloot_engine.rules.observation import observe
from baloot_engine.rules.state import LIVE_PHASES
from tests.api.conftest import KEY_A, open_token
from tests.server.conftest import InProcessServer, make_settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "research.md"
BLOCK = re.compile(r"(?:<!-- ([a-z-]+) -->\n)?```python\n(.*?)```", re.DOTALL)
# What the test changes in a block: fewer episodes and simulations, the test server's address.
SMALLER = {
    "training-loop": [("basic = 1000,", "basic = 3,")],
    "evaluation": [("episodes=400", "episodes=3")],
    "openspiel-ismcts": [("max_simulations=100", "max_simulations=6")],
}


def blocks() -> list[tuple[str, str]]:
    """The Python blocks of the page, in order, each with the name of its marker comment."""
    found = [(name or "", code) for name, code in BLOCK.findall(DOC.read_text(encoding="utf-8"))]
    assert all(name for name, _ in found), "every Python block of docs/research.md is named"
    return found


def test_every_python_block_is_run_by_a_test_here() -> None:
    assert sorted(name for name, _ in blocks()) == sorted(CHECKS)


@pytest.fixture(scope="module")
def server() -> Iterator[InProcessServer]:
    """A server as deployed: it shuffles every deal (no preset decks)."""
    with InProcessServer(make_settings(state_keys=(KEY_A,))) as running:
        yield running


def run(name: str, changes: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """Run the block ``name`` as written but for ``changes``; its namespace."""
    code = dict(blocks())[name]
    for old, new in [*SMALLER.get(name, []), *(changes or [])]:
        assert old in code, f"the {name} block no longer says {old!r}"
        code = code.replace(old, new)
    namespace: dict[str, Any] = {"__name__": f"docs_research_{name.replace('-', '_')}"}
    exec(compile(code, f"{DOC}:{name}", "exec"), namespace)  # noqa: S102 - the page's own code
    return namespace


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check_training_loop(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    namespace = run("training-loop")
    assert namespace["weights"].shape == (2350, 105)
    assert namespace["weights"].any()  # three episodes moved the weights
    assert np.array_equal(np.load(in_tmp / "baloot_policy.npy"), namespace["weights"])


def check_evaluation(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    np.save(in_tmp / "baloot_policy.npy", np.random.default_rng(0).normal(size=(2350, 105)))
    run("evaluation")
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["untrained", "trained"]


def check_pettingzoo(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("pettingzoo")["table"].possible_agents == ["seat_0", "seat_1", "seat_2", "seat_3"]


def check_parallel(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    namespace = run("parallel")
    assert namespace["table"].agents == []
    assert sum(namespace["rewards"].values()) == 0
    assert capsys.readouterr().out.startswith("{'seat_0'")


def check_gymnasium(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    namespace = run("gymnasium")
    assert namespace["done"]
    assert float(capsys.readouterr().out) == namespace["total"]


def check_openspiel_load(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("openspiel-load")["game"].num_players() == 4


def check_openspiel_bots(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run("openspiel-bots")
    returns = [float(value) for value in capsys.readouterr().out.strip("[]\n").split(",")]
    assert len(returns) == 4
    assert sum(returns) == 0


def check_openspiel_ismcts(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = run("openspiel-ismcts")["state"]
    assert state.is_terminal()
    returns = state.returns()
    assert returns[0] == returns[2] == -returns[1] == -returns[3]


def check_oracle(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    namespace = run("oracle")
    assert int(capsys.readouterr().out) == namespace["perfect_information_value"](
        namespace["state"], 0
    )


CHECKS: dict[str, Callable[[Path, pytest.CaptureFixture[str]], None]] = {
    "training-loop": check_training_loop,
    "evaluation": check_evaluation,
    "pettingzoo": check_pettingzoo,
    "parallel": check_parallel,
    "gymnasium": check_gymnasium,
    "openspiel-load": check_openspiel_load,
    "openspiel-bots": check_openspiel_bots,
    "openspiel-ismcts": check_openspiel_ismcts,
    "oracle": check_oracle,
    "service": lambda _path, _capsys: None,  # test_the_service_example_... below
}


@pytest.mark.parametrize("name", sorted(set(CHECKS) - {"service"}))
def test_the_block_runs(name: str, in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    CHECKS[name](in_tmp, capsys)


def test_the_service_example_plays_a_match_the_reader_reads_exactly(
    server: InProcessServer,
    in_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The example plays a whole match on the server; every observation the reader gave is the
    one the environments give for the server's hidden state at that version."""
    np.save(in_tmp / "baloot_policy.npy", np.random.default_rng(1).normal(size=(2350, 105)))
    tokens: dict[int, bytes] = {}  # state version -> the token of that version
    read: list[tuple[types_pb2.View, dict[str, Any]]] = []
    matches: list[Match] = []
    create, send, call = EngineClient.create_match, Match._send, ViewReader.__call__

    def created(self: EngineClient, *args: Any, **kwargs: Any) -> Match:
        match = create(self, *args, **kwargs)
        matches.append(match)
        tokens[match.version] = match.state
        return match

    def sent(self: Match, *args: Any, **kwargs: Any) -> Any:
        response = send(self, *args, **kwargs)
        tokens[self.version] = self.state
        return response

    def called(self: ViewReader, view: types_pb2.View) -> Any:
        observed = call(self, view)
        read.append((view, observed))
        return observed

    monkeypatch.setattr(EngineClient, "create_match", created)
    monkeypatch.setattr(Match, "_send", sent)
    monkeypatch.setattr(ViewReader, "__call__", called)
    namespace = run("service", [('"localhost:50051"', repr(server.target))])

    assert namespace["view"].phase == types_pb2.PHASE_MATCH_OVER
    points = [int(p) for p in capsys.readouterr().out.strip("[]\n").split(",")]
    assert max(points) >= 152
    keys = KeyRing.from_texts((KEY_A,))
    decisions = 0
    for view, observed in read:
        state = open_token(keys, matches[0].match_id, tokens[view.state_version]).state
        true = observe(state, view.seat)
        assert np.array_equal(observed["observation"], encode(true))
        if state.phase in LIVE_PHASES:
            assert np.array_equal(observed["action_mask"], legal_mask(true.legal_actions))
            decisions += state.turn == view.seat
        else:
            assert not observed["action_mask"].any()
    assert decisions > 50
