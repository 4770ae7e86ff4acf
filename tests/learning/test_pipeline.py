"""The learning pipeline end to end at a tiny size: corpus, labels, training, export, serving.

The corpus and the serving path need numpy alone and always run. The training needs the
``train`` extra (PyTorch); without it its tests are skipped, and the numpy-only tests still
prove the rest: the shipped weights load, serve, and choose better cards than chance on a
freshly generated corpus.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from baloot_engine.bots.features import (
    BID_OUTPUTS,
    PASS_OUTPUT,
    PLAY_PLANES,
    PLAY_SEGMENTS,
    PLAY_SIZE,
    bid_output_permutation,
    canonical_card,
    card_permutation,
    output_index,
    play_permutation,
    real_card,
    suit_order,
)
from baloot_engine.bots.network import Network, load, save, shipped
from baloot_engine.learning.corpus import (
    CorpusConfig,
    contract_table,
    generate,
    seat_table,
    shard_path,
)
from baloot_engine.learning.corpus import load as load_corpus
from baloot_engine.learning.evaluation import play_metrics
from baloot_engine.rules.actions import Deal
from baloot_engine.rules.game import apply, new_match

TINY = CorpusConfig(seed=11, games_per_shard=2, rounds_per_game=1)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("corpus")
    summary = generate(TINY, directory, 3)
    assert summary.shards_made == 3
    assert summary.play_records > 0
    assert summary.bid_records > 0
    assert summary.decisions_per_cpu_second > 0
    assert "decisions per CPU second" in summary.closing_note()
    return directory


def test_a_corpus_is_deterministic_and_resumes(corpus: Path, tmp_path: Path) -> None:
    again = generate(TINY, tmp_path, 1)
    assert again.shards_made == 1
    with np.load(shard_path(corpus, 0)) as first, np.load(shard_path(tmp_path, 0)) as second:
        assert first.files == second.files
        for key in first.files:
            if key != "cpu_seconds":  # what the shard cost: the only thing a run changes
                assert np.array_equal(first[key], second[key], equal_nan=True), key
    resumed = generate(TINY, tmp_path, 2)
    assert (resumed.shards_skipped, resumed.shards_made) == (1, 1)


def test_card_labels_fit_the_features(corpus: Path) -> None:
    data = load_corpus(corpus)
    x, y = data["play_x"].astype(np.float32), data["play_y"]
    assert x.shape[1] == PLAY_SIZE
    legal_plane = {s.name: s for s in PLAY_SEGMENTS}["legal"]
    legal = x[:, legal_plane.offset : legal_plane.offset + 32] > 0.5
    assert np.array_equal(legal, np.isfinite(y))  # a label for each legal card, none else
    assert (legal.sum(axis=1) >= 2).all()  # only decisions with a choice are kept
    hand = x[:, :32] > 0.5
    assert not (legal & ~hand).any()
    assert np.all(np.abs(y[np.isfinite(y)]) <= 8)


def test_bid_labels_are_the_contract_table_from_each_side(corpus: Path) -> None:
    data = load_corpus(corpus)
    y = data["bid_y"]
    assert y.shape[1] == BID_OUTPUTS
    assert np.isfinite(y[:, :PASS_OUTPUT]).all()
    assert np.isfinite(y[:, PASS_OUTPUT]).any()  # the passes that were made are valued
    state = new_match(dealer=2)
    state, _ = apply(state, 2, Deal(tuple(range(31, -1, -1))))
    table = contract_table(state)
    revealed = state.buy_card
    mine, theirs = seat_table(table, 0, revealed), seat_table(table, 1, revealed)
    for buyer, column in itertools.product(range(4), range(-1, 4)):
        # Seat 1 sees the same deal from the other team, one seat on.
        own = mine[output_index(buyer, column)]
        assert theirs[output_index((buyer - 1) & 3, column)] == -own


def test_suit_permutations_are_consistent() -> None:
    for order in itertools.permutations(range(4)):
        cards = card_permutation(order)
        assert sorted(cards.tolist()) == list(range(32))
        values = np.arange(32, dtype=np.float32)
        moved = values[cards]
        for card in range(32):
            # The value of canonical card c sits, after the renaming, at its renamed suit.
            assert moved[order[card >> 3] * 8 + (card & 7)] == card
        features = play_permutation(order)
        assert sorted(features.tolist()) == list(range(PLAY_SIZE))
        tail = PLAY_PLANES * 32 + 16
        assert (features[tail:] == np.arange(tail, PLAY_SIZE)).all()
        outputs = bid_output_permutation(order)
        assert outputs[PASS_OUTPUT] == PASS_OUTPUT
    for trump in range(-1, 4):
        order = suit_order(trump)
        for card in range(32):
            assert real_card(canonical_card(card, order), order) == card
        if trump >= 0:
            assert canonical_card(trump * 8 + 4, order) == 4  # the trump jack is suit 0


def test_a_network_round_trips_through_its_file(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    play = Network(
        [
            (rng.normal(size=(PLAY_SIZE, 8)).astype(np.float32), np.zeros(8, np.float32)),
            (rng.normal(size=(8, 32)).astype(np.float32), np.ones(32, np.float32)),
        ]
    )
    bid_in = shipped().bid.inputs
    bid = Network(
        [
            (
                rng.normal(size=(bid_in, BID_OUTPUTS)).astype(np.float32),
                np.zeros(BID_OUTPUTS, np.float32),
            )
        ]
    )
    path = tmp_path / "w.npz"
    save(path, play, bid, {"name": "test"})
    model = load(path)
    x = rng.random(PLAY_SIZE).astype(np.float32)
    hidden = np.maximum(x @ play.layers[0][0], 0)
    assert np.allclose(model.play(x), hidden @ play.layers[1][0] + 1, atol=1e-4)
    assert model.version.startswith("test+")
    assert len(model.version) == len("test+") + 12
    save(path, play, bid, {"name": "test", "other": 1})
    assert load(path).version != model.version  # another file, another version
    wrong = Network([(np.zeros((5, 32), np.float32), np.zeros(32, np.float32))])
    save(path, wrong, bid, {"name": "wrong"})
    with pytest.raises(ValueError, match="the play network maps 5 values"):
        load(path)


def test_the_shipped_model_chooses_better_than_chance(corpus: Path) -> None:
    """The numpy-only serving path on a fresh corpus: the weights in the package pick cards
    the true deal values more than a card drawn at random does."""
    model = shipped()
    assert model.version.startswith(str(model.meta["name"]))
    data = load_corpus(corpus)
    metrics = play_metrics(model.play, data["play_x"], data["play_y"])
    assert metrics.records == len(data["play_y"])
    assert metrics.regret < metrics.mean_regret


def test_a_tiny_training_run_is_reproducible_and_serves(corpus: Path, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from baloot_engine.learning.training import TrainConfig, train_and_export

    config = TrainConfig(seed=5, epochs=2, hidden=16, batch=64, name="tiny")
    first = train_and_export(corpus, tmp_path / "a.npz", config, json_out=tmp_path / "a.json")
    second = train_and_export(corpus, tmp_path / "b.npz", config)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    assert first.version == second.version
    assert len(first.play.train_loss) == 2
    assert all(np.isfinite(first.play.validation_loss))
    assert (tmp_path / "a.json").exists()
    model = load(tmp_path / "a.npz")
    x = np.asarray(load_corpus(corpus)["play_x"][:4], np.float32)
    net = torch.nn.Sequential(
        torch.nn.Linear(PLAY_SIZE, 16),
        torch.nn.ReLU(),
        torch.nn.Linear(16, 16),
        torch.nn.ReLU(),
        torch.nn.Linear(16, 32),
    )
    with torch.no_grad():
        for module, (weights, bias) in zip(
            (net[0], net[2], net[4]), model.play.layers, strict=True
        ):
            module.weight.copy_(torch.from_numpy(weights.T.copy()))
            module.bias.copy_(torch.from_numpy(bias))
        expected = net(torch.from_numpy(x)).numpy()
    assert np.allclose(model.play(x), expected, atol=1e-4)
