# Learned play (baloot_engine.learning, docs/learning.md): the solved-deal corpus and the
# training of the LEARNED bot's networks. The corpus needs numpy only; the training needs the
# `train` extra (PyTorch on CPU, matplotlib, tqdm), which `make train` installs on first use:
# PyPI's Linux wheels of PyTorch bring the CUDA libraries (about 4.5 GB installed, a few
# minutes to fetch), none of which serving, the tests or CI need.
#
#   make corpus     Plays and solves LEARN_SHARDS shards of LEARN_GAMES games each into
#                   LEARN_CORPUS (kept shards are skipped: a stopped run resumes), in
#                   LEARN_WORKERS processes at the lowest priority. About 150 decisions per
#                   CPU second: a shard of 24 games is about 15 CPU seconds.
#   make train      Trains both networks on LEARN_CORPUS (LEARN_EPOCHS, LEARN_SEED) and writes
#                   the weights the package ships (service/baloot_engine/bots/learned.npz), the
#                   curves of docs/learning.md (docs/images/learning-curves.png) and their JSON.
#   make learned-bench
#                   CPU per decision of LEARNED beside STRONG and EXPERT in calibration loops
#                   (bench/bench_learned.py), then LEARNED against STRONG on mirrored deals
#                   (bench/bench_bots.py, LEARN_DEALS deal sequences, SEEDS and KAMMELNA).

LEARN_CORPUS ?= corpus
LEARN_SHARDS ?= 220
LEARN_GAMES ?= 24
LEARN_WORKERS ?= 2
LEARN_SEED ?= 1
LEARN_EPOCHS ?= 20
LEARN_DEALS ?= 100
LEARN_NAME ?= learned-2
TRAIN_STAMP := $(VENV)/.installed-train

.PHONY: corpus train learned-bench

$(TRAIN_STAMP): pyproject.toml | $(STAMP)
	$(PY) -m pip install --quiet -e '.[train]'
	@touch $@

corpus: $(STAMP) ## The solved-deal corpus: LEARN_SHARDS shards into LEARN_CORPUS (resumable).
	nice -n 19 $(PY) -m baloot_engine.learning corpus --out $(LEARN_CORPUS) \
	  --shards $(LEARN_SHARDS) --games-per-shard $(LEARN_GAMES) --seed $(LEARN_SEED) \
	  --workers $(LEARN_WORKERS)

train: $(TRAIN_STAMP) ## Train the LEARNED networks on LEARN_CORPUS; write the shipped weights and curves.
	nice -n 19 $(PY) -m baloot_engine.learning train --corpus $(LEARN_CORPUS) \
	  --out service/baloot_engine/bots/learned.npz --seed $(LEARN_SEED) \
	  --epochs $(LEARN_EPOCHS) --name $(LEARN_NAME) \
	  --curves docs/images/learning-curves.png --json docs/images/learning-curves.json

learned-bench: $(STAMP) ## LEARNED's CPU per decision beside STRONG and EXPERT, then LEARNED against STRONG.
	nice -n 19 $(PY) bench/bench_learned.py --matches 4
	nice -n 19 $(PY) bench/bench_bots.py --pairs learned:strong --deals $(LEARN_DEALS) --rules seeds
	nice -n 19 $(PY) bench/bench_bots.py --pairs learned:strong --deals $(LEARN_DEALS) --rules kammelna
