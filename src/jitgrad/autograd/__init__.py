"""paddle.autograd: backward, grad, PyLayer, saved-tensor hooks, Jacobian and Hessian.

Only the public API is exported here; the machinery lives in this package's modules
(backward.py the front door, functional.py Jacobians, py_layer.py PyLayer, debug.py and
graph_dot.py the graph dumps, display.py the notebook picture).
"""

from ..ops.saved_hooks import saved_tensors_hooks
from .api import backward, grad
from .display import graphviz
from .functional import Hessian, Jacobian, hessian, jacobian
from .py_layer import PyLayer, PyLayerContext

# reachable as paddle.autograd.no_grad etc. (Paddle 3.3.1), though not in its public list
from ..core.grad_mode import enable_grad, no_grad, set_grad_enabled  # noqa: F401
from ..core.tape import is_grad_enabled  # noqa: F401

Function = PyLayer      # paddle.autograd.Function is PyLayer itself (Paddle 3.3.1)

__all__ = ["backward", "grad", "PyLayer", "PyLayerContext", "Function", "saved_tensors_hooks",
           "jacobian", "hessian", "Jacobian", "Hessian", "graphviz"]


def __dir__() -> list[str]:
    return sorted(__all__)
