"""(being written): Layer forms of ops/losses_seq.py, ops/losses_sampled.py and
ops/pool_fractional.py, as name -> class in NAMES."""

from __future__ import annotations

NAMES: dict = {}
