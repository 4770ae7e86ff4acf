"""``python -m baloot_engine.learning``: make a corpus, train the networks, export the weights.

    python -m baloot_engine.learning corpus --out DIR --shards N [--seed S] [--workers W]
    python -m baloot_engine.learning train --corpus DIR --out FILE [--seed S] [--epochs E]
        [--shards N] [--curves PNG] [--json JSON]

``corpus`` needs numpy only; ``train`` needs the ``train`` extra (PyTorch, matplotlib, tqdm).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from baloot_engine.learning.corpus import CorpusConfig, generate
from baloot_engine.learning.training import TrainConfig, train_and_export


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m baloot_engine.learning")
    commands = parser.add_subparsers(dest="command", required=True)
    corpus = commands.add_parser("corpus", help="play and solve rounds into corpus shards")
    corpus.add_argument("--out", type=Path, required=True, help="the corpus directory")
    corpus.add_argument("--shards", type=int, required=True, help="make shards 0 … N-1")
    corpus.add_argument("--seed", type=int, default=CorpusConfig.seed)
    corpus.add_argument("--games-per-shard", type=int, default=CorpusConfig.games_per_shard)
    corpus.add_argument("--rounds-per-game", type=int, default=CorpusConfig.rounds_per_game)
    corpus.add_argument("--explore", type=float, default=CorpusConfig.explore)
    corpus.add_argument("--workers", type=int, default=1)
    train = commands.add_parser("train", help="train both networks and export their weights")
    train.add_argument("--corpus", type=Path, required=True)
    train.add_argument("--out", type=Path, required=True, help="the weights file (.npz)")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--epochs", type=int, default=TrainConfig.epochs)
    train.add_argument("--shards", type=int, default=0, help="use the first N shards (0: all)")
    train.add_argument("--hidden", type=int, default=256)
    train.add_argument("--threads", type=int, default=1)
    train.add_argument("--name", default=TrainConfig.name)
    train.add_argument("--curves", type=Path, default=None, help="draw the curves into this PNG")
    train.add_argument("--json", type=Path, default=None, help="write the curves as JSON")
    args = parser.parse_args(argv)
    if args.command == "corpus":
        config = CorpusConfig(args.seed, args.games_per_shard, args.rounds_per_game, args.explore)
        summary = generate(config, args.out, args.shards, workers=args.workers)
        print(summary.closing_note())
        return 0
    training = TrainConfig(
        seed=args.seed,
        epochs=args.epochs,
        hidden=args.hidden,
        threads=args.threads,
        name=args.name,
    )
    report = train_and_export(
        args.corpus,
        args.out,
        training,
        shards=args.shards or None,
        curves=args.curves,
        json_out=args.json,
    )
    print(report.closing_note())
    return 0


if __name__ == "__main__":
    sys.exit(main())
