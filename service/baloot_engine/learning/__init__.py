"""Learned play: the solved-deal corpus, the training of the networks, their export.

* :mod:`~baloot_engine.learning.corpus` plays rounds with the bots and labels every decision
  with the exact solver (numpy only);
* :mod:`~baloot_engine.learning.training` trains the card-play and bidding networks with
  PyTorch on CPU (the ``train`` extra) and exports them to the numpy weights file the LEARNED
  level serves from (:mod:`baloot_engine.bots.network`).

``python -m baloot_engine.learning --help`` (or ``make train``) runs both; docs/learning.md
describes the corpus, the encoding, the networks and their measured figures.
"""
