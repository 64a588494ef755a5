"""Public op functions (Paddle names) and the Tensor methods that forward to them."""

from __future__ import annotations

import functools
import sys
import types
from typing import Any

from ..core import dtypes as _dtypes
from ..core import tensor as _tensor
from ..core import tensor_operators as _tensor_operators
from .elementwise import (abs, add, astype, cast, clip, clone, cos, divide, exp, log, maximum,
                          minimum, multiply, neg, pow, relu, sigmoid, sin, sqrt, square,
                          subtract, tanh, where)
from .elementwise import power  # noqa: F401  (the operator x ** y: Tensor.__pow__)
from .linalg import matmul
from .nn import log_softmax, softmax_compat as softmax   # (F.softmax: nn.softmax, axis -1)
from .reduce import max, mean, min, sum
from .registry import REGISTRY, defop
from .shape import (expand, flatten, getitem, reshape, squeeze, t, transpose,
                    unsqueeze)
from .shape import broadcast_to_new as broadcast_to     # (a new tensor: shape.py)
from .math import (acos, acosh, asin, asinh, atan, atan2, atanh, ceil, cosh, erf, expm1, floor,
                   lerp, log1p, log2, log10, reciprocal, round, rsqrt, sign, sinh, tan)
from .math import floor_mod, heaviside, mod, remainder
from .math import deg2rad, frac, logaddexp, logit, nan_to_num, rad2deg, trunc
from .order_stats import median, nanmedian, nanquantile, quantile
from .stats import nanmean, nansum
from .composites import dist, inner, slice, strided_slice, unstack
from .attribute import assign, mm, rank, scale     # and shape: jitgrad/__init__.py
from .scan import cumprod, cumsum
from .stats import amax, amin, logsumexp, matrix_norm, norm, prod, std, var, vector_norm
from .indexing import (chunk, concat, flip, gather, index_select, masked_select, pad,
                       put_along_axis, repeat_interleave, roll, split, stack, take_along_axis,
                       tile, tril, triu, unbind)
from .inplace import INPLACE, copy_, data_view, detach_, set_data, set_value, setitem
from .matrix import (bmm, cholesky, diag, diagonal, dot, einsum, inverse, mv, outer, solve,
                     trace)
from .determinant import det, slogdet
from .decompositions import eigh, eigvalsh, svd, svdvals
from .qr import qr
from .least_squares import lstsq, matrix_power
from .pinv import pinv
from .search import (all, allclose, any, argmax, argmin, argsort, bitwise_and, bitwise_or,
                     bitwise_xor, count_nonzero, equal, equal_all, floor_divide, greater_equal,
                     greater_than, is_tensor, isclose, isfinite, isinf, isnan, less_equal,
                     less_than, logical_and, logical_not, logical_or, logical_xor, nonzero,
                     not_equal, numel, sort, topk, unique)
from .composites import (addmm, cdist, cross, diff, expand_as, gather_nd, index_add, kron,
                         masked_fill, meshgrid, moveaxis, rot90, scatter, scatter_nd_add)
from .creation import (arange, eye, full, full_like, linspace, normal, ones, ones_like, rand,
                       randint, randn, randperm, seed, uniform, zeros, zeros_like)
from .creation import (as_tensor, asarray, from_numpy, manual_seed, rand_like, randint_like,
                       randn_like, standard_normal)
from .creation import get_rng_state, set_rng_state
from . import aliases as _aliases, assemble as _assemble, lookup as _lookup
from . import numeric as _numeric, special as _special
from .special import digamma, erfinv, gammainc, gammaincc, gammaln, lgamma, polygamma
from .bessel import i0, i0e, i1, i1e
from .numeric import (cumulative_trapezoid, fmax, fmin, hypot, isneginf, isposinf, isreal,
                      logcumsumexp, logspace, renorm, signbit, sinc, stanh, trapezoid, vander)
from .lookup import (bincount, bucketize, cummax, cummin, index_fill, index_sample, isin,
                     kthvalue, mode, searchsorted, take, tril_indices, triu_indices)
from .assemble import (add_n, atleast_1d, atleast_2d, atleast_3d, broadcast_shape,
                       broadcast_tensors, column_stack, diag_embed, diagflat, dsplit, dstack,
                       hsplit, hstack, narrow, row_stack, tensor_split, tensordot, vsplit, vstack)
from .aliases import (cat, clamp, concatenate, div, empty, empty_like, eq, ge, greater, gt, le,
                      less, lt, matrix_transpose, mul, ne, negative, permute, positive, ravel,
                      reverse, sub, swapaxes, swapdims, true_divide)
from . import activation as _activation, linear_embedding as _common, loss as _loss  # noqa: F401
from . import recurrent as _recurrent  # noqa: F401,E402  (the fused LSTM/GRU/RNN ops)

__all__ = ["abs", "add", "astype", "cast", "clip", "clone", "cos", "divide", "exp", "log",
           "maximum", "minimum", "multiply", "neg", "pow", "relu", "sigmoid", "sin", "sqrt",
           "square", "subtract", "tanh", "where", "matmul", "log_softmax", "softmax", "max",
           "mean", "min", "sum", "broadcast_to", "expand", "flatten", "getitem", "reshape",
           "squeeze", "t", "transpose", "unsqueeze", "REGISTRY", "defop",
           # ops/math.py, scan.py, stats.py
           "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "cosh", "erf",
           "expm1", "floor", "lerp", "log1p", "log2", "log10", "reciprocal", "round", "rsqrt",
           "sign", "sinh", "tan", "cumprod", "cumsum", "amax", "amin", "logsumexp", "norm",
           "prod", "std", "var", "remainder", "mod", "floor_mod",
           # ops/attribute.py (paddle.shape is bound in jitgrad/__init__.py: ops.shape is
           # the module of shape ops)
           "assign", "mm", "rank", "scale",
           # ops/indexing.py, inplace.py
           "chunk", "concat", "flip", "gather", "index_select", "masked_select", "pad",
           "put_along_axis", "repeat_interleave", "roll", "split", "stack", "take_along_axis",
           "tile", "tril", "triu", "unbind", "setitem", "set_value",
           # ops/matrix.py
           "bmm", "cholesky", "det", "diag", "diagonal", "dot", "einsum", "inverse", "mv",
           "outer", "slogdet", "solve", "trace",
           # ops/search.py, more.py
           "all", "allclose", "any", "argmax", "argmin", "argsort", "bitwise_and", "bitwise_or",
           "bitwise_xor", "count_nonzero", "equal", "equal_all", "floor_divide",
           "greater_equal", "greater_than", "is_tensor", "isclose", "isfinite", "isinf",
           "isnan", "less_equal", "less_than", "logical_and", "logical_not", "logical_or",
           "logical_xor", "nonzero", "not_equal", "numel", "sort", "topk", "unique",
           "addmm", "cdist", "cross", "diff", "expand_as", "gather_nd", "heaviside",
           "index_add", "kron", "logit", "masked_fill", "meshgrid", "moveaxis", "rot90",
           "scatter", "scatter_nd_add"]
__all__ += [n for n in _aliases.NAMES if n not in ("empty", "empty_like")]   # ops/aliases.py
__all__ += _assemble.NAMES
__all__ += [n for n in _lookup.NAMES if not n.endswith("_indices")]
__all__ += _numeric.NAMES + _special.NAMES + ["i0", "i0e", "i1", "i1e"]
from . import more_manipulation as _more_manipulation, more_math as _more_math  # noqa: E402
for _more in (_more_math, _more_manipulation):
    globals().update({_n: getattr(_more, _n) for _n in _more.NAMES})
    __all__ += _more.NAMES
__all__ += ["deg2rad", "frac", "logaddexp", "nan_to_num", "rad2deg", "trunc", "median",
            "nanmean", "nanmedian", "nanquantile", "nansum", "quantile", "dist", "inner", "slice",
            "strided_slice", "unstack"]
__all__ += ["eigvalsh"]          # ops/decompositions.py; the others are paddle.linalg's
CREATION = ["arange", "eye", "full", "full_like", "linspace", "normal", "ones", "ones_like",
            "rand", "randint", "randn", "randperm", "seed", "uniform", "zeros", "zeros_like",
            "empty", "empty_like", "tril_indices", "triu_indices", "logspace",
            "manual_seed", "standard_normal", "rand_like", "randn_like", "randint_like",
            "as_tensor", "asarray", "from_numpy", "get_rng_state", "set_rng_state"]
from . import windows as _windows  # noqa: E402  (paddle.hann_window ...: functions only)
globals().update({_n: getattr(_windows, _n) for _n in _windows.NAMES})
CREATION += _windows.NAMES


def _multi_dot(x: list, name: str | None = None) -> Tensor:
    """linalg.multi_dot: x[0] @ x[1] @ ... (Paddle's parameter name, x)."""
    return functools.reduce(matmul, x)


METHODS = {name: globals()[name] for name in __all__ if name not in ("REGISTRY", "defop")}
__all__ += CREATION
linalg = types.SimpleNamespace(                 # paddle.linalg.*
    inv=inverse, det=det, slogdet=slogdet, solve=solve, cholesky=cholesky, norm=norm,
    vector_norm=vector_norm, matrix_norm=matrix_norm,
    matmul=matmul, multi_dot=_multi_dot,
    eigh=eigh, eigvalsh=eigvalsh, svd=svd, svdvals=svdvals, qr=qr, pinv=pinv, lstsq=lstsq,
    matrix_power=matrix_power)
METHODS.update(qr=qr, pinv=pinv, lstsq=lstsq, matrix_power=matrix_power)   # as Paddle's
METHODS.update(mm=matmul, scale=scale)


def _reshape_method(x, *shape, name=None, **kwargs):
    """x.reshape([2, 3]), x.reshape(2, 3) and x.reshape(shape=[2, 3]), as Paddle's."""
    if "shape" in kwargs:
        if shape:
            raise TypeError("reshape() got the shape both by position and as shape=")
        shape = (kwargs.pop("shape"),)
    if kwargs:
        raise TypeError(f"reshape() got an unexpected keyword argument {next(iter(kwargs))!r}")
    if not shape:
        raise TypeError("reshape() needs a shape")
    return reshape(x, shape[0] if len(shape) == 1 else list(shape))


def _astype_method(x: Any, dtype: Any) -> Any:
    """x.astype(dtype): x itself when it has that dtype already (Paddle 3.3.1: a leaf stays
    the leaf whose .grad fills); paddle.cast always makes a new tensor."""
    if _dtypes.to_dtype(dtype).np == x._data.dtype:
        return x
    return astype(x, dtype)


METHODS.update(reshape=_reshape_method, astype=_astype_method)
METHODS.update(_aliases.METHODS)
from . import bitwise as _bitwise, more_indexing as _more_indexing  # noqa: E402
from . import sampling as _sampling  # noqa: E402
from .inplace_more import METHOD_ONLY, MORE_INPLACE  # noqa: E402
for _more in (_bitwise, _more_indexing, _sampling):
    globals().update({_n: getattr(_more, _n) for _n in _more.NAMES})
    __all__ += _more.NAMES
    if _more is not _sampling:          # (Paddle's samplers are functions only, but for
        METHODS.update({_n: getattr(_more, _n) for _n in _more.NAMES})     # multinomial)
METHODS["multinomial"] = _sampling.multinomial
from . import tensor_methods as _tensor_methods  # noqa: E402
from .tensor_methods import grad_fn  # noqa: E402,F401  (Tensor.grad_fn)
get_strides = _tensor_methods.METHODS["get_strides"]
conj, angle = _tensor_methods.conj, _tensor_methods.angle   # (paddle.conj / paddle.angle)
__all__ += ["conj", "angle"]
METHODS.update(_tensor_methods.METHODS)
INPLACE.update(MORE_INPLACE)
METHODS.update(INPLACE)
METHODS.update(copy_=copy_, detach_=detach_)     # (methods only, as in Paddle)
_FUNCTIONS = {_n: _f for _n, _f in INPLACE.items() if _n not in METHOD_ONLY}
globals().update(_FUNCTIONS)        # paddle.add_(x, y) works too
__all__ += sorted(_FUNCTIONS)

_tensor._ops = _tensor_operators.OPS = sys.modules[__name__]

# Public names check their Tensor arguments (a list or numpy array gets a TypeError naming
# the argument); METHODS above do not, their receiver is always a Tensor (those taking
# Paddle's keyword aliases get param_aliases' wrapper instead, at the end).
from .core import check_tensor_args as _check_tensor_args  # noqa: E402
for _name in __all__:
    if callable(globals().get(_name)) and not isinstance(globals()[_name], type):
        globals()[_name] = _check_tensor_args(globals()[_name])

from . import more_linalg as _more_linalg  # noqa: E402  (paddle.linalg's; methods as Paddle's)
vars(linalg).update({_n: getattr(_more_linalg, _n) for _n in _more_linalg.NAMES})
vars(linalg).update({_n: globals()[_n] for _n in ("cross", "diagonal", "matrix_transpose",
                                                   "vecdot")})
METHODS.update({_n: getattr(_more_linalg, _n) for _n in _more_linalg.METHOD_NAMES})
from ..core.namespace import from_simple as _from_simple  # noqa: E402
linalg = _from_simple("jitgrad.linalg", "linalg", linalg,
                      "Paddle's paddle.linalg: the linear algebra jitgrad implements.")

# Paddle 3.3.1's torch-style keyword aliases on the Tensor methods that take them there
# (x.sum(dim=0), x.add(other=y): core/param_aliases.METHOD_ALIASES); the others stay bare.
from ..core import param_aliases as _param_aliases  # noqa: E402
_param_aliases.install_methods(METHODS, _tensor.Tensor)

# ... and every plain-function method on the class now (Tensor.__getattr__ would bind each
# at its first use): `paddle.Tensor.sum(x)` and `hasattr(paddle.Tensor, "astype")` work, as
# in Paddle
for _name, _fn in METHODS.items():
    if isinstance(_fn, types.FunctionType) and not hasattr(_tensor.Tensor, _name):
        setattr(_tensor.Tensor, _name, _fn)
