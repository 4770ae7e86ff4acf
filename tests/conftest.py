"""Settings every test shares: Hypothesis without its per-example deadline.

The deadline is a timing check, and the tests run on shared machines where an example can take
several times its usual time; the invariants are what the tests check, the speed is measured by
the benchmarks under ``bench/``. ``HYPOTHESIS_PROFILE`` selects another registered profile.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("engine", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "engine"))
