"""paddle.incubate: `paddle.incubate.autograd` (jvp, vjp, Jacobian, Hessian, forward_grad,
grad), implemented in autograd/forward_mode.py. A name jitgrad lacks says so plainly."""

import sys as _sys
import types as _types

from .autograd import forward_mode as _forward_mode

autograd = _types.ModuleType("jitgrad.incubate.autograd", _forward_mode.__doc__)
for _name in _forward_mode.__all__:
    setattr(autograd, _name, getattr(_forward_mode, _name))


def _missing(name: str) -> None:
    raise AttributeError(f"jitgrad.incubate.autograd has no {name!r}: jitgrad implements "
                         f"{', '.join(_forward_mode.__all__)} of paddle.incubate.autograd")


autograd.__getattr__ = _missing
_sys.modules.setdefault(autograd.__name__, autograd)   # from jitgrad.incubate.autograd import jvp

__all__ = ["autograd"]
