"""Public op functions (Paddle names) and the Tensor methods that forward to them."""

from __future__ import annotations

import sys

from .. import tensor as _tensor
from .elementwise import (abs, add, astype, cast, clip, clone, cos, divide, exp, log, maximum,
                          minimum, multiply, neg, pow, relu, sigmoid, sin, sqrt, square,
                          subtract, tanh, where)
from .linalg import matmul
from .nn import log_softmax, softmax
from .reduce import max, mean, min, sum
from .registry import REGISTRY, defop
from .shape import (broadcast_to, expand, flatten, getitem, reshape, squeeze, t, transpose,
                    unsqueeze)
from .math import (acos, acosh, asin, asinh, atan, atan2, atanh, ceil, cosh, erf, expm1, floor,
                   lerp, log1p, log2, log10, reciprocal, round, rsqrt, sign, sinh, tan)
from .scan import cumprod, cumsum
from .stats import amax, amin, logsumexp, norm, prod, std, var

__all__ = ["abs", "add", "astype", "cast", "clip", "clone", "cos", "divide", "exp", "log",
           "maximum", "minimum", "multiply", "neg", "pow", "relu", "sigmoid", "sin", "sqrt",
           "square", "subtract", "tanh", "where", "matmul", "log_softmax", "softmax", "max",
           "mean", "min", "sum", "broadcast_to", "expand", "flatten", "getitem", "reshape",
           "squeeze", "t", "transpose", "unsqueeze", "REGISTRY", "defop",
           # ops/math.py, scan.py, stats.py
           "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "cosh", "erf",
           "expm1", "floor", "lerp", "log1p", "log2", "log10", "reciprocal", "round", "rsqrt",
           "sign", "sinh", "tan", "cumprod", "cumsum", "amax", "amin", "logsumexp", "norm",
           "prod", "std", "var"]

METHODS = {name: globals()[name] for name in __all__ if name not in ("REGISTRY", "defop")}
METHODS.update(mm=matmul, scale=lambda x, scale=1.0, bias=0.0: x * scale + bias)

_tensor._ops = sys.modules[__name__]
