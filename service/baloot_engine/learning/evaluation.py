"""How well a model fits a corpus, with numpy alone (the serving forward pass).

:func:`play_metrics` measures the card-play network on card records: its mean squared error on
the legal cards' labels, the share of decisions where its card is one the true deal values
best, and its *regret*: how much less the card it picks is worth on the true deal than the
best card, in game points at x1 (the label's unit is 26 of them). Perfect play on the true deal
is not reachable from what a seat sees, so a regret of 0 is not the aim; the regret of other
choosers on the same records (the first legal card, a random one) are the baselines.
:func:`bid_metrics` gives the bidding network's mean squared error against the contract
tables, beside that of predicting the training mean.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from baloot_engine.bots.network import Network

UNIT: Final = 26
"""Game points in one label unit (the corpus's :data:`~baloot_engine.learning.corpus.UNIT`)."""


class PlayMetrics(NamedTuple):
    """The card-play network on a set of card records."""

    records: int
    mse: float
    top1: float
    regret: float  # game points at x1 lost to the true deal's best card, per decision
    first_regret: float  # the same for the lowest legal card (a fixed baseline chooser)
    mean_regret: float  # the same for a card drawn at random among the legal ones


class BidMetrics(NamedTuple):
    """The bidding network on a set of bid records."""

    records: int
    mse: float
    mean_mse: float  # predicting each output's mean over the records


def _batches(n: int, size: int = 4096) -> range:
    return range(0, n, size)


def predict(network: Network, x: npt.NDArray[np.generic]) -> npt.NDArray[np.float32]:
    """The network's outputs for each row of ``x`` (in batches)."""
    out = np.empty((len(x), network.outputs), np.float32)
    for start in _batches(len(x)):
        out[start : start + 4096] = network(np.asarray(x[start : start + 4096], np.float32))
    return out


def play_metrics(
    network: Network, x: npt.NDArray[np.generic], y: npt.NDArray[np.float32]
) -> PlayMetrics:
    """The card-play metrics of ``network`` on features ``x`` and labels ``y`` (NaN: illegal)."""
    if not len(x):
        return PlayMetrics(0, float("nan"), float("nan"), float("nan"), float("nan"), float("nan"))
    legal = np.isfinite(y)
    labels = np.where(legal, y, 0.0)
    predicted = predict(network, x)
    mse = float(((predicted - labels) ** 2)[legal].mean())
    best = np.where(legal, y, -np.inf).max(axis=1)
    chosen = np.where(legal, predicted, -np.inf).argmax(axis=1)
    worth = labels[np.arange(len(y)), chosen]
    first = legal.argmax(axis=1)
    first_worth = labels[np.arange(len(y)), first]
    mean_worth = labels.sum(axis=1) / legal.sum(axis=1)
    return PlayMetrics(
        len(x),
        mse,
        float((worth >= best - 1e-6).mean()),
        float((best - worth).mean() * UNIT),
        float((best - first_worth).mean() * UNIT),
        float((best - mean_worth).mean() * UNIT),
    )


def bid_metrics(
    network: Network,
    x: npt.NDArray[np.generic],
    y: npt.NDArray[np.float32],
    mean: npt.NDArray[np.float32] | None = None,
) -> BidMetrics:
    """The bidding metrics of ``network`` on features ``x`` and labels ``y`` (NaN: a pass's
    worth where the seat did not pass); ``mean`` is the baseline's prediction (default: the
    records' own mean)."""
    if not len(x):
        return BidMetrics(0, float("nan"), float("nan"))
    predicted = predict(network, x)
    known = np.isfinite(y)
    baseline = np.nanmean(y, axis=0) if mean is None else mean
    return BidMetrics(
        len(x),
        float(((predicted - y) ** 2)[known].mean()),
        float(((baseline - y) ** 2)[known].mean()),
    )


__all__ = ["UNIT", "BidMetrics", "PlayMetrics", "bid_metrics", "play_metrics", "predict"]
