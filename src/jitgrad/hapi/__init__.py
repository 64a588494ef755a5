"""paddle.hapi's model inspection: `summary` (the per-layer table of shapes and parameter
counts, model_summary.py) and `flops` (the per-layer FLOPs table, dynamic_flops.py), as
Paddle 3.3.1 has them. `paddle.Model` and the callbacks are not in jitgrad."""

from .dynamic_flops import flops
from .model_summary import summary

__all__ = ["summary", "flops"]
