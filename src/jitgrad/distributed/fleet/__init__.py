"""paddle.distributed.fleet, as far as one process needs it: `fleet.utils.recompute`."""

from . import utils

__all__ = ["utils"]
