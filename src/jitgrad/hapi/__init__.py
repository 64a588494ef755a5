"""paddle.hapi, as Paddle 3.3.1 has it: the high-level training API `Model` (model.py) with
its callbacks (callbacks.py, also paddle.callbacks) and progress bar (progressbar.py), and
model inspection: `summary` (the per-layer table of shapes and parameter counts,
model_summary.py) and `flops` (the per-layer FLOPs table, dynamic_flops.py)."""

from . import callbacks, progressbar  # noqa: F401  (paddle.hapi.callbacks, .progressbar)
from .dynamic_flops import flops
from .model import Model
from .model_summary import summary

__all__ = ["Model", "flops", "summary"]
