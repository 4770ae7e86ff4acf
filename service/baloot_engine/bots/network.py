"""The learned level's networks at serving time: numpy only, weights shipped in the package.

A network is a small multilayer perceptron (dense layers, ReLU between them, a linear output).
Its weights are trained elsewhere (:mod:`baloot_engine.learning.training`, PyTorch, the
``train`` extra) and exported to one ``.npz`` file; serving needs nothing but numpy. The file
the package ships is :data:`WEIGHTS_FILE` (``bots/learned.npz``); it holds two networks,
``play`` (card-play features → the value of each of the 32 canonical cards) and ``bid``
(bidding features → the value of each contract for each buyer), and a JSON ``meta`` record
(what they were trained on, with which command and seed).

The model's version, :attr:`Model.version`, is the ``name`` of its meta record and the first
12 hex digits of the SHA-256 of the file, so two files never share one: what a record or an
analysis names when it says which learned model played.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from baloot_engine.bots.features import BID_OUTPUTS, BID_SIZE, PLAY_SIZE

WEIGHTS_FILE: Final = Path(__file__).with_name("learned.npz")
"""The weights shipped with the package."""

Array = npt.NDArray[np.float32]


class Network:
    """A multilayer perceptron: ``layers`` of (weights ``in × out``, bias ``out``)."""

    __slots__ = ("layers",)

    def __init__(self, layers: list[tuple[Array, Array]]) -> None:
        if not layers:
            raise ValueError("a network has at least one layer")
        for (weights, bias), following in zip(layers, [*layers[1:], None], strict=True):
            if weights.ndim != 2 or bias.shape != (weights.shape[1],):
                raise ValueError("a layer is a 2-D weight matrix and a bias of its width")
            if following is not None and following[0].shape[0] != weights.shape[1]:
                raise ValueError("each layer's input is the previous layer's output")
        self.layers = [
            (np.ascontiguousarray(w, np.float32), np.ascontiguousarray(b, np.float32))
            for w, b in layers
        ]

    @property
    def inputs(self) -> int:
        """The width of an input vector."""
        return int(self.layers[0][0].shape[0])

    @property
    def outputs(self) -> int:
        """The width of an output vector."""
        return int(self.layers[-1][0].shape[1])

    @property
    def parameters(self) -> int:
        """How many numbers the network holds."""
        return sum(int(w.size + b.size) for w, b in self.layers)

    def __call__(self, x: Array) -> Array:
        """The outputs of one input vector, or of a batch (one row each)."""
        last = len(self.layers) - 1
        for index, (weights, bias) in enumerate(self.layers):
            x = x @ weights + bias
            if index < last:
                np.maximum(x, 0.0, out=x)
        return x


class Model(NamedTuple):
    """The two networks of the learned level, and what names them."""

    play: Network
    bid: Network
    version: str
    meta: dict[str, object]


def save(path: Path, play: Network, bid: Network, meta: dict[str, object]) -> None:
    """Write a weights file (numpy's ``.npz``, compressed; no pickled object in it)."""
    arrays: dict[str, npt.NDArray[np.generic]] = {
        "meta": np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
    }
    for name, network in (("play", play), ("bid", bid)):
        for index, (weights, bias) in enumerate(network.layers):
            arrays[f"{name}.{index}.w"] = weights.astype(np.float32)
            arrays[f"{name}.{index}.b"] = bias.astype(np.float32)
    with path.open("wb") as out:
        np.savez_compressed(out, allow_pickle=False, **arrays)


def load(path: Path = WEIGHTS_FILE) -> Model:
    """Read a weights file written by :func:`save`."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:12]
    with np.load(path, allow_pickle=False) as arrays:
        meta = json.loads(bytes(arrays["meta"]).decode())
        if not isinstance(meta, dict):
            raise TypeError(f"{path}: the meta record is not a JSON object")
        networks = {}
        for name in ("play", "bid"):
            layers = []
            index = 0
            while f"{name}.{index}.w" in arrays:
                layers.append((arrays[f"{name}.{index}.w"], arrays[f"{name}.{index}.b"]))
                index += 1
            networks[name] = Network(layers)
    shapes = {
        "play": (PLAY_SIZE, 32, networks["play"]),
        "bid": (BID_SIZE, BID_OUTPUTS, networks["bid"]),
    }
    for name, (inputs, outputs, network) in shapes.items():
        if (network.inputs, network.outputs) != (inputs, outputs):
            raise ValueError(
                f"{path}: the {name} network maps {network.inputs} values to "
                f"{network.outputs}; the features need {inputs} to {outputs}"
            )
    version = f"{meta.get('name', 'learned')}+{digest}"
    return Model(networks["play"], networks["bid"], version, meta)


@cache
def shipped() -> Model:
    """The model of :data:`WEIGHTS_FILE`, read once per process."""
    return load(WEIGHTS_FILE)


def model_version() -> str:
    """The version of the shipped model (see the module's documentation)."""
    return shipped().version


CACHES: Final = {"learned_model": shipped}
"""The bounded caches of this module, by their metric label (``server/caches.py``)."""

__all__ = ["WEIGHTS_FILE", "Model", "Network", "load", "model_version", "save", "shipped"]
