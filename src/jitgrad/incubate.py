"""paddle.incubate: `paddle.incubate.autograd` (jvp, vjp, Jacobian, Hessian, forward_grad,
grad), implemented in autograd/forward_mode.py, and the older names of paddle.geometric's
segment reductions and graph_send_recv. A name jitgrad lacks says so plainly."""

import sys as _sys
import types as _types

from .autograd import forward_mode as _forward_mode
from .geometric import (segment_max, segment_mean, segment_min, segment_sum,
                        send_u_recv as _send_u_recv)

autograd = _types.ModuleType("jitgrad.incubate.autograd", _forward_mode.__doc__)
for _name in _forward_mode.__all__:
    setattr(autograd, _name, getattr(_forward_mode, _name))


def _missing(name: str) -> None:
    raise AttributeError(f"jitgrad.incubate.autograd has no {name!r}: jitgrad implements "
                         f"{', '.join(_forward_mode.__all__)} of paddle.incubate.autograd")


autograd.__getattr__ = _missing
_sys.modules.setdefault(autograd.__name__, autograd)   # from jitgrad.incubate.autograd import jvp



def graph_send_recv(x, src_index, dst_index, pool_type: str = "sum", out_size=None,
                    name=None):
    """paddle.incubate.graph_send_recv: paddle.geometric.send_u_recv's older name."""
    return _send_u_recv(x, src_index, dst_index, pool_type, out_size)


__all__ = ["autograd", "segment_sum", "segment_mean", "segment_max", "segment_min",
           "graph_send_recv"]
