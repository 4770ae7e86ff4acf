"""Training the card-play and bidding networks on a corpus, with PyTorch on CPU.

Needs the ``train`` extra (``pip install -e '.[train]'``: PyTorch, matplotlib, tqdm). The
networks are multilayer perceptrons (two hidden layers of ``hidden`` ReLU units for the card
play, half that for the bidding), trained by Adam on the mean squared error of the labels
(:mod:`~baloot_engine.learning.corpus`): for the card play only the legal cards' values count.
Every batch renames the interchangeable suits at random (the suits other than the trump in a
Hokm, all four in a Sun, the three other than the revealed card's in the bidding;
:func:`~baloot_engine.bots.features.permutation_index`), so each record teaches every suit.

Records are split by game: one game in ten (by its number) is kept out for validation, so no
position of a validation game is trained on. Everything random is drawn from generators
seeded with ``seed`` and PyTorch runs on ``threads`` threads (1 by default): the same corpus,
configuration and seed give the same weights on the same machine and library versions.

The weights are exported to the numpy file :mod:`baloot_engine.bots.network` serves from,
with a meta record of the corpus, the configuration and the validation figures; the curves
(training and validation loss, validation regret, per epoch) are written as JSON and drawn as
a PNG for docs/learning.md.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from baloot_engine.bots.features import (
    bid_output_permutation,
    bid_permutation,
    card_permutation,
    play_permutation,
)
from baloot_engine.bots.network import Network, save
from baloot_engine.learning.corpus import load
from baloot_engine.learning.evaluation import bid_metrics, play_metrics

VALIDATION_EVERY = 10
"""One game in this many (game number modulo it is 0) is kept for validation."""


@dataclass(frozen=True)
class TrainConfig:
    """How the networks are trained."""

    seed: int = 0
    epochs: int = 20
    hidden: int = 256
    batch: int = 512
    learning_rate: float = 1e-3
    weight_decay: float = 1e-5
    threads: int = 1
    name: str = "learned-2"


@dataclass
class Curve:
    """One network's figures, one entry per epoch."""

    train_loss: list[float] = field(default_factory=list)
    validation_loss: list[float] = field(default_factory=list)
    validation_regret: list[float] = field(default_factory=list)
    baseline: float = float("nan")


@dataclass
class Report:
    """What a training run did."""

    play: Curve
    bid: Curve
    play_records: tuple[int, int]  # training, validation
    bid_records: tuple[int, int]
    rounds: int
    cpu_seconds: float
    weights_bytes: int
    version: str
    final: dict[str, Any]

    def closing_note(self) -> str:
        final = self.final
        return (
            f"train: {self.play_records[0]}+{self.play_records[1]} card and "
            f"{self.bid_records[0]}+{self.bid_records[1]} bid records (train+validation, "
            f"{self.rounds} rounds) in {self.cpu_seconds:.0f} CPU s; validation card MSE "
            f"{final['play_mse']:.4f}, regret {final['play_regret']:.2f} game points a decision "
            f"(lowest legal card {final['play_first_regret']:.2f}, random "
            f"{final['play_mean_regret']:.2f}), top-1 {final['play_top1']:.3f}; bid MSE "
            f"{final['bid_mse']:.4f} (mean predictor {final['bid_mean_mse']:.4f}); "
            f"{self.weights_bytes} bytes, version {self.version}"
        )


def _orders(fixed_first: bool) -> list[tuple[int, ...]]:
    if fixed_first:
        return [(0, *rest) for rest in itertools.permutations((1, 2, 3))]
    return list(itertools.permutations((0, 1, 2, 3)))


def _split(games: npt.NDArray[np.int32]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    validation = games % VALIDATION_EVERY == 0
    return ~validation, validation


def train_and_export(
    corpus: Path,
    out: Path,
    config: TrainConfig = TrainConfig(),
    *,
    shards: int | None = None,
    curves: Path | None = None,
    json_out: Path | None = None,
) -> Report:
    """Train both networks on the corpus in ``corpus`` (its first ``shards`` shards, or all)
    and write their weights to ``out``."""
    import torch

    started = time.process_time()
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    torch.use_deterministic_algorithms(True)
    data = load(corpus, None if shards is None else range(shards))
    rng = np.random.default_rng(config.seed)

    train, valid = _split(np.asarray(data["play_game"], np.int32))
    play_x = data["play_x"]
    play_y = np.asarray(data["play_y"], np.float32)
    hokm = np.asarray(data["play_hokm"], np.bool_)
    play_net, play_curve = _fit(
        torch,
        rng,
        config,
        play_x[train],
        play_y[train],
        play_x[valid],
        play_y[valid],
        groups=hokm[train],
        hidden=config.hidden,
        inputs_perm=[play_permutation(o) for o in _orders(False)],
        outputs_perm=[card_permutation(o) for o in _orders(False)],
        kind="play",
    )
    btrain, bvalid = _split(np.asarray(data["bid_game"], np.int32))
    bid_x = data["bid_x"]
    bid_y = np.asarray(data["bid_y"], np.float32)
    bid_net, bid_curve = _fit(
        torch,
        rng,
        config,
        bid_x[btrain],
        bid_y[btrain],
        bid_x[bvalid],
        bid_y[bvalid],
        groups=np.ones(int(btrain.sum()), np.bool_),
        hidden=max(32, config.hidden // 2),
        inputs_perm=[bid_permutation(o) for o in _orders(False)],
        outputs_perm=[bid_output_permutation(o) for o in _orders(False)],
        kind="bid",
    )
    pm = play_metrics(play_net, play_x[valid], play_y[valid])
    mean = np.asarray(np.nanmean(bid_y[btrain], axis=0), np.float32)
    bm = bid_metrics(bid_net, bid_x[bvalid], bid_y[bvalid], mean)
    final = {
        "play_mse": pm.mse,
        "play_top1": pm.top1,
        "play_regret": pm.regret,
        "play_first_regret": pm.first_regret,
        "play_mean_regret": pm.mean_regret,
        "bid_mse": bm.mse,
        "bid_mean_mse": bm.mean_mse,
    }
    meta: dict[str, object] = {
        "name": config.name,
        "config": asdict(config),
        "rounds": int(data["rounds"]),
        "play_records": [int(train.sum()), int(valid.sum())],
        "bid_records": [int(btrain.sum()), int(bvalid.sum())],
        "validation": final,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    save(out, play_net, bid_net, meta)
    from baloot_engine.bots.network import load as load_weights

    version = load_weights(out).version
    report = Report(
        play_curve,
        bid_curve,
        (int(train.sum()), int(valid.sum())),
        (int(btrain.sum()), int(bvalid.sum())),
        int(data["rounds"]),
        time.process_time() - started,
        out.stat().st_size,
        version,
        final,
    )
    if json_out is not None:
        json_out.write_text(
            json.dumps(
                {
                    "play": asdict(play_curve),
                    "bid": asdict(bid_curve),
                    "final": final,
                    "version": version,
                    "cpu_seconds": report.cpu_seconds,
                    "play_records": report.play_records,
                    "bid_records": report.bid_records,
                    "rounds": report.rounds,
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
    if curves is not None:
        draw_curves(report, curves)
    return report


def _fit(
    torch: Any,
    rng: np.random.Generator,
    config: TrainConfig,
    x: npt.NDArray[np.generic],
    y: npt.NDArray[np.float32],
    vx: npt.NDArray[np.generic],
    vy: npt.NDArray[np.float32],
    *,
    groups: npt.NDArray[np.bool_],
    hidden: int,
    inputs_perm: list[npt.NDArray[np.intp]],
    outputs_perm: list[npt.NDArray[np.intp]],
    kind: str,
) -> tuple[Network, Curve]:
    """Train one network; ``groups`` marks the rows whose first canonical suit is fixed (a
    Hokm's trump, the revealed card's suit), whose suits 1-3 alone are renamed."""
    nn = torch.nn
    features, outputs = x.shape[1], y.shape[1]
    model = nn.Sequential(
        nn.Linear(features, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, outputs),
    )
    optimizer = torch.optim.Adam(
        model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    steps = max(1, math.ceil(len(x) / config.batch)) * config.epochs
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=config.learning_rate, total_steps=steps
    )
    tx = torch.from_numpy(np.asarray(x, np.float32))
    legal = np.isfinite(y)
    ty = torch.from_numpy(np.where(legal, y, 0.0).astype(np.float32))
    tm = torch.from_numpy(legal.astype(np.float32))
    in_perm = torch.from_numpy(np.stack(inputs_perm).astype(np.int64))
    out_perm = torch.from_numpy(np.stack(outputs_perm).astype(np.int64))
    orders = list(itertools.permutations((0, 1, 2, 3)))
    fixed = np.asarray([i for i, o in enumerate(orders) if o[0] == 0])
    fixed_rows = torch.from_numpy(groups.astype(np.bool_))
    curve = Curve()
    for _epoch in range(config.epochs):
        model.train()
        order = torch.from_numpy(rng.permutation(len(x)).astype(np.int64))
        total, count = 0.0, 0
        for start in range(0, len(x), config.batch):
            rows = order[start : start + config.batch]
            n = len(rows)
            any_perm = torch.from_numpy(rng.integers(0, len(orders), n).astype(np.int64))
            fixed_perm = torch.from_numpy(fixed[rng.integers(0, len(fixed), n)].astype(np.int64))
            perm = torch.where(fixed_rows[rows], fixed_perm, any_perm)
            bx = torch.gather(tx[rows], 1, in_perm[perm])
            by = torch.gather(ty[rows], 1, out_perm[perm])
            bm = torch.gather(tm[rows], 1, out_perm[perm])
            predicted = model(bx)
            loss = (((predicted - by) ** 2) * bm).sum() / bm.sum()
            if kind == "play":
                # The choice rests on the cards' differences: their error counts once more.
                legal_count = bm.sum(dim=1, keepdim=True).clamp(min=1.0)
                centre_p = (predicted * bm).sum(dim=1, keepdim=True) / legal_count
                centre_y = (by * bm).sum(dim=1, keepdim=True) / legal_count
                spread = ((predicted - centre_p) - (by - centre_y)) ** 2
                loss = loss + (spread * bm).sum() / bm.sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += float(loss.detach()) * n
            count += n
        curve.train_loss.append(total / max(count, 1))
        network = _export(model)
        if kind == "play":
            metrics = play_metrics(network, vx, vy)
            curve.validation_loss.append(metrics.mse)
            curve.validation_regret.append(metrics.regret)
            curve.baseline = metrics.first_regret
        else:
            bm_ = bid_metrics(network, vx, vy, np.asarray(np.nanmean(y, axis=0), np.float32))
            curve.validation_loss.append(bm_.mse)
            curve.baseline = bm_.mean_mse
    return _export(model), curve


def _export(model: Any) -> Network:
    """The numpy network of a trained ``nn.Sequential`` of linear layers and ReLUs."""
    layers = []
    for module in model:
        if hasattr(module, "weight"):
            weights = module.weight.detach().numpy().T.astype(np.float32)
            bias = module.bias.detach().numpy().astype(np.float32)
            layers.append((weights, bias))
    return Network(layers)


def redraw(curves_json: Path, path: Path) -> None:
    """Draw the curves of a run again from the JSON it wrote (``--json``)."""
    data = json.loads(curves_json.read_text(encoding="utf-8"))
    report = Report(
        Curve(**data["play"]),
        Curve(**data["bid"]),
        (int(data["play_records"][0]), int(data["play_records"][1])),
        (int(data["bid_records"][0]), int(data["bid_records"][1])),
        int(data["rounds"]),
        float(data["cpu_seconds"]),
        0,
        str(data["version"]),
        dict(data["final"]),
    )
    draw_curves(report, path)


def draw_curves(report: Report, path: Path) -> None:
    """Draw the training and validation curves of both networks into a PNG."""
    import matplotlib as mpl

    mpl.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 3, figsize=(13, 3.8), dpi=90)
    epochs = range(1, len(report.play.train_loss) + 1)
    left, middle, right = axes
    left.plot(epochs, report.play.train_loss, label="training loss (error + spread error)")
    left.plot(epochs, report.play.validation_loss, label="validation mean squared error")
    left.set_title("card network")
    left.set_xlabel("epoch")
    left.legend()
    middle.plot(epochs, report.play.validation_regret, label="network", color="C2")
    middle.axhline(report.play.baseline, label="lowest legal card", color="C3", linestyle="--")
    middle.set_title("card network: validation regret (game points)")
    middle.set_xlabel("epoch")
    middle.set_ylim(bottom=0)
    middle.legend()
    right.plot(epochs, report.bid.train_loss, label="training")
    right.plot(epochs, report.bid.validation_loss, label="validation")
    right.axhline(report.bid.baseline, label="mean predictor", color="C3", linestyle="--")
    right.set_title("bidding network: mean squared error")
    right.set_xlabel("epoch")
    right.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


__all__ = [
    "VALIDATION_EVERY",
    "Curve",
    "Report",
    "TrainConfig",
    "draw_curves",
    "redraw",
    "train_and_export",
]
