"""Elementwise primitives: forward, gradient rule in jitgrad ops, and kernel lowering.

Transcendental derivatives are computed in the forward pass (`save`) so the compiled
backward only multiplies: Numba's sin/cos/exp are scalar and 3-5x slower than numpy's.
"""

from __future__ import annotations

import builtins
from fractions import Fraction
from math import isfinite as _isfinite, prod as _prod
from typing import Any, Callable

import numpy as np

from ..core.tensor import Tensor, bind_operators
from .core import (_KERNELS, NO_ATTRS, apply_internal, apply_xy, binary_operands,
                   checks_own_tensor_args, compiled_input, compiled_kernels, const, float_input,
                   tensor_arg_error)
from .derivative import Select, Weight, apply_unary, binary, numpy_function, unary
from . import rounded
from .linear import linear, step
from .registry import ADDS, SELECTS, OpDef
from ..core import dtypes, tape
from ..core.param_aliases import UNSET, input_x
from ..core.torch_kwargs import out_param
from ..core.quiet import quiet


def _mask(t: Tensor, m: np.ndarray) -> Tensor:
    """A constant 0/1 (or weight) tensor in t's dtype: its derivative is zero."""
    return const(m, t._data.dtype)


# ---- unary -------------------------------------------------------------------------------

neg_op = unary("neg", np.negative, lambda m, x, out: -1.0, quiet=False, float16_exact=SELECTS)
square_op = unary("square", np.square, lambda m, x, out: 2.0 * x, quiet=False)
sqrt_op = unary("sqrt", np.sqrt, lambda m, x, out: 0.5 / out, domain=(0.3, 3.0))


exp_op = unary("exp", rounded.exp, lambda m, x, out: out)
log_op = unary("log", rounded.log, lambda m, x, out: 1.0 / x, domain=(0.3, 3.0))
# m.exp / m.log in a derivative's saved factor: the ops' own forwards, correctly rounded as
# on the eager path (create_graph) and in Paddle
numpy_function("exp", exp_op.forward)
numpy_function("log", log_op.forward)

abs_op = unary("abs", np.abs, lambda m, x, out: m.sign(x), quiet=False,
               float16_exact=SELECTS)

tanh_op = unary("tanh", np.tanh, lambda m, x, out: 1.0 - out * out, quiet=False)

sin_op = unary("sin", np.sin, lambda m, x, out: m.cos(x), quiet=False)
cos_op = unary("cos", np.cos, lambda m, x, out: -m.sin(x), quiet=False)


_ONE_ZERO = {np.dtype(t): (t(1), t(0)) for t in (np.float32, np.float64)}  # (~0.2 us each)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp of a non-positive number only: no overflow warnings for large |x|.
    # (1 or e) / (1 + e): one division, the same values as choosing between two. The
    # numerator where(x >= 0, 1, e) as max(e, x >= 0), the same values since e <= 1: ~2.5x
    # quicker than np.where on a mixed mask (nan stays nan: maximum propagates it)
    found = compiled_input("forward_activation", x)
    if found is not None:           # the same passes compiled around numpy's exp (2048
        #                             float32: 6.2 -> 4.3 us; two kernel calls ~0.3 us each)
        kernels, d = found
        flat = d.reshape(-1)
        e = np.empty_like(flat)         # (exp(-|x|), then the output in place)
        if d.dtype is _F32 and numpy_exp_emulated():      # (one pass, numpy's exp)
            kernels.sigmoid_fused(flat, e)
            return e.reshape(d.shape)
        kernels.neg_abs(flat, e)
        np.exp(e, out=e)
        kernels.sigmoid(flat, e, *_ONE_ZERO[d.dtype])
        return e.reshape(d.shape)
    e = np.exp(-np.abs(x))
    one = x.dtype.type(1)
    return np.divide(np.maximum(e, (x >= 0).astype(x.dtype)), e + one)


_EXP_EMULATED: list = []        # [whether numpy's float32 exp is the kernels' _numpy_exp32]


def numpy_exp_emulated() -> bool:
    """Whether vm/numpy_exp.py's emulation of numpy's float32 exp gives np.exp's bits here,
    checked once (once Numba is loaded; False before) on ~200k values (the exp's whole
    range, its saturation and denormal edges, random bits, NaN, infinities, signed zeros):
    numpy's AVX512F and AVX2 bodies do, another exp (the C library's expf) would differ in
    many of them. The kernels calling it (sigmoid, silu, softmax rows) then take numpy's
    exp inside their one pass."""
    if not _EXP_EMULATED:
        kernels = compiled_kernels("numpy_exp")
        if kernels is None:
            return False
        rng = np.random.default_rng(7)
        edges = np.array([88.72283935546875, -103.97208404541015625, 88.3762626647949,
                          -87.33654, -126 * np.log(2), -149 * np.log(2)], np.float32)
        near = (edges[:, None].view(np.int32) + np.arange(-64, 65, dtype=np.int32)).view(
            np.float32)
        x = np.concatenate([
            np.linspace(-110, 95, 1 << 16, dtype=np.float32), near.ravel(),
            rng.uniform(-1, 1, 1 << 15).astype(np.float32),
            rng.integers(0, 2 ** 32, 1 << 16, dtype=np.uint64).astype(np.uint32).view(
                np.float32),
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45],
                     np.float32)])
        with np.errstate(all="ignore"):
            want = np.exp(x)
        got = np.empty_like(x)
        kernels.numpy_exp(x, got)
        _EXP_EMULATED.append(got.tobytes() == want.tobytes())
    return _EXP_EMULATED[0]


_ONE32 = np.float32(1)


def exp_neg_abs(kernels: Any, flat: np.ndarray, out: np.ndarray, beta: Any = None) -> None:
    """out = np.exp(-|z|) for a 1-D contiguous float32/float64 flat, z = beta * flat in its
    dtype (beta None: flat itself), numpy's values: one compiled pass for float32 once
    numpy_exp_emulated (vm/numpy_exp.py's exp_neg_abs), else vm/forward_activation.py's
    neg_abs (softplus_parts) then numpy's exp. kernels: vm.forward_activation."""
    if flat.dtype is _F32 and numpy_exp_emulated():
        compiled_kernels("numpy_exp").exp_neg_abs(flat, out, _ONE32 if beta is None else beta,
                                                  beta is not None)
        return
    if beta is None:
        kernels.neg_abs(flat, out)
    else:
        kernels.softplus_parts(flat, out, beta, True)
    np.exp(out, out=out)


sigmoid_op = unary("sigmoid", _sigmoid, lambda m, x, out: out * (1.0 - out), quiet=False)

def _compiled_forward() -> Any:
    """vm.forward when the compiled interpreter is loaded (Numba imported), else None."""
    return compiled_kernels("forward")


def _relu(x: np.ndarray) -> np.ndarray:
    # the compiled loop at every size once Numba is loaded (numpy's maximum checks for NaN:
    # 2048 float32 1.8 vs 0.8 us with the allocation, 16 elements 0.9 vs 0.65)
    if x.dtype.char in "fd" and x.flags.c_contiguous and x.size:
        kernels = _KERNELS.get("forward") or _compiled_forward()
        if kernels is not None:
            out = np.empty(x.shape, x.dtype)
            kernels.relu(x.reshape(-1), out.reshape(-1))
            return out
    return np.maximum(x, 0).astype(x.dtype, copy=False)


def _mul_channels(x: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """x * w for a float x (N, C, ...) of at least 4096 elements and w (C, 1, ...) (a
    per-channel scale) by the compiled kernel, the same values; None when it does not
    apply."""
    shape, ws = x.shape, w.shape
    if x.size < 4096 or len(ws) < 2 or ws[0] != shape[1] or w.size != ws[0] or \
            x.dtype.char not in "fd" or w.dtype is not x.dtype or not x.flags.c_contiguous:
        return None
    kernels = _compiled_forward()
    if kernels is None:
        return None
    C = ws[0]
    K = x.size // (shape[0] * C)
    out = np.empty(shape, x.dtype)
    kernels.mul_channels(x.reshape(-1), np.ascontiguousarray(w).reshape(-1), shape[0], C, K,
                         out.reshape(-1))
    return out


def _row_broadcast(kinds: tuple, d: np.ndarray, e: np.ndarray) -> np.ndarray | None:
    """d op e by the compiled row kernel when one operand's shape (leading 1s aside) is a
    proper trailing part of the other's (a bias row, a per-feature scale) and both are
    C-contiguous float32 or float64 of one dtype: numpy's values bit for bit; None when it
    does not apply. kinds: vm/forward.row_op's code for d op e, and for e op d. (Written
    for the matrix-and-row case: each check costs ~0.05 us of a ~0.7 us call.)"""
    dt = d.dtype
    if dt is not _F32 and dt is not _F64:
        return None
    nd, ne = d.ndim, e.ndim
    if nd == 2 and ne == 1:
        big, small, kind = d, e, kinds[0]
    elif nd == 1 and ne == 2:
        big, small, kind = e, d, kinds[1]
    else:
        return _rows_nd(kinds, d, e)
    if big.shape[1] != small.shape[0] or not (big.flags.c_contiguous and
                                              small.flags.c_contiguous):
        return None
    kernels = _KERNELS.get("forward") or _compiled_forward()
    if kernels is None or big.size == 0:
        return None
    out = _empty(big.shape, dt)
    kernels.row_op(big, small, out, kind)
    return out


def _rows_nd(kinds: tuple, d: np.ndarray, e: np.ndarray) -> np.ndarray | None:
    """_row_broadcast for other ranks: (8, 8, 16, 16) and (16, 16), (2, 3) and (1, 3)."""
    if d.size >= e.size:
        big, small, kind = d, e, kinds[0]
    else:
        big, small, kind = e, d, kinds[1]
    shape, lead = small.shape, 0
    while lead < len(shape) and shape[lead] == 1:
        lead += 1
    k = len(shape) - lead
    if k == 0 or len(shape) > big.ndim or k >= big.ndim or big.shape[-k:] != shape[lead:] \
            or not (big.flags.c_contiguous and small.flags.c_contiguous):
        return None
    kernels = _KERNELS.get("forward") or _compiled_forward()
    n = small.size
    if kernels is None or n == 0:
        return None
    out = _empty(big.shape, big.dtype)
    kernels.row_op(big.reshape(-1, n), small.reshape(-1), out.reshape(-1, n), kind)
    return out


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_empty = np.empty


# (shape of x, shape of y) -> _broadcast_plan's (output shape, grid) or None
_BROADCAST_PLANS: dict = {}
# below this many output elements numpy's broadcast loop is as quick as the kernel's call
_BROADCAST_MIN = 128


def _broadcast_plan(xs: tuple, ys: tuple) -> tuple | None:
    """(output shape, grid) for vm/forward_binary.py's broadcast kernels, C-contiguous
    operands of shapes xs and ys: the output's axes of size 1 dropped, adjacent axes along
    which both operands step as one merged, at most four left (padded with leading 1s);
    grid = sizes, then x's and y's element strides. None when the shapes do not broadcast
    (numpy's message then), more than four axes remain, or the output is small. numpy's
    loop calls its inner loop once per run of the innermost axis, slowly for short runs:
    (64, 1, 2) - (1, 64, 2) float32 35 us against the kernel's 10, (64, 1) - (1, 512) 9
    against 3, (16, 1, 3) - (1, 16, 3) 3.3 against 2.4 (with this call's overhead)."""
    try:
        shape = np.broadcast_shapes(xs, ys)
    except ValueError:
        return None
    if _prod(shape) < _BROADCAST_MIN:
        return None
    nd = len(shape)
    sx = _contiguous_strides((1,) * (nd - len(xs)) + tuple(xs))
    sy = _contiguous_strides((1,) * (nd - len(ys)) + tuple(ys))
    dims: list = []                         # [size, x stride, y stride], outer first
    for n, a, b in zip(shape, sx, sy):
        if n == 1:
            continue
        if dims and dims[-1][1] == a * n and dims[-1][2] == b * n:
            dims[-1] = [dims[-1][0] * n, a, b]
        else:
            dims.append([n, a, b])
    if len(dims) > 4:
        return None
    dims = [[1, 0, 0]] * (4 - len(dims)) + dims
    grid = np.array([d[0] for d in dims] + [d[1] for d in dims] + [d[2] for d in dims],
                    dtype=np.int64)
    return shape, grid


def _plan_of(xs: tuple, ys: tuple) -> tuple | None:
    """_broadcast_plan(xs, ys), kept per pair of shapes (a training loop asks every step)."""
    key = (xs, ys)
    plan = _BROADCAST_PLANS.get(key, False)
    if plan is False:
        if len(_BROADCAST_PLANS) > 256:
            _BROADCAST_PLANS.clear()
        plan = _BROADCAST_PLANS[key] = _broadcast_plan(xs, ys)
    return plan


def _contiguous_strides(small: tuple) -> list:
    """Element strides of a C-contiguous array of shape `small`, 0 along its axes of size 1
    (broadcast ones)."""
    out, step = [0] * len(small), 1
    for i in range(len(small) - 1, -1, -1):
        out[i] = step if small[i] != 1 else 0
        step *= small[i]
    return out


def _broadcast_kernel(d: np.ndarray, e: np.ndarray) -> tuple | None:
    """(vm.forward_binary, d, e C-contiguous, the output's shape, the kernels' grid) for
    two shapes _broadcast_plan takes and operands compiled_input takes; else None."""
    plan = _plan_of(d.shape, e.shape)
    if plan is None:
        return None
    found = compiled_input("forward_binary", d, e)
    if found is None:
        return None
    return (*found, *plan)


def _short_broadcast(kind: int, d: np.ndarray, e: np.ndarray) -> np.ndarray | None:
    """d op e (row_op's kind 0-3: +, -, *, /) for two shapes that broadcast ((N, 1, D)
    against (1, N, D)) by vm/forward_binary.py's broadcast_op: numpy's values bit for bit,
    one IEEE operation per element; None when it does not apply (_broadcast_plan)."""
    found = _broadcast_kernel(d, e)
    if found is None:
        return None
    k, d, e, shape, grid = found
    out = _empty(shape, d.dtype)
    k.broadcast_op(d.reshape(-1), e.reshape(-1), out.reshape(-1), grid, kind)
    return out


relu_op = unary("relu", _relu, lambda m, x, out: m.mask(m.data(out) > 0), quiet=False,
                float16_exact=SELECTS)


def _fpow(x: np.ndarray, p: Any) -> np.ndarray:
    """np.power(x, p): for a float x and an integral p as |x|^p with x's sign for odd p,
    since numpy's float power of a negative base is ~60 ns an element (~40x its positive
    one). Equal to np.power except rarely 1 ulp (numpy's negative-base path rounds
    differently from its positive one, e.g. float32 (-7.1) ** -2)."""
    if x.dtype.kind == "f" and float(p).is_integer() and -2 ** 53 < p < 2 ** 53:
        if p == 2 and _power_two_is_square(x.dtype):
            # numpy's power of 2 is its square: |x|^2 as x * x with the sign cleared in
            # place, which only a NaN has (-nan squared stays -nan; |x|^2 is +nan), without
            # the abs array and np.power's dispatch (8192 float64 ~2 us where they took ~7)
            r = x * x
            return np.abs(r, out=r) if r.ndim else np.abs(r)
        if p == 3 and x.dtype == _F32:
            return cube32(x)
        out = np.power(np.abs(x), x.dtype.type(p))
        return np.copysign(out, x) if int(p) % 2 else out
    return np.power(x, x.dtype.type(p))


def cube32(x: np.ndarray) -> np.ndarray:
    """x ** 3 of float32 x, correctly rounded: |x|^3 in float64 (|x| |x| is exact, one
    rounding after), rounded to float32, given x's sign; where that float64 is a float32 tie
    or a subnormal one, the exact cube (Fraction) rounded. numpy's float32 power is 1 ulp
    off for ~20% of inputs on AVX-512 (SVML's), Paddle 3.3.1's for ~4% (the correctly
    rounded cube is nearer Paddle's values than numpy's is); x ** 2 is x * x, also exact.
    vm/forward_binary.py's pow_scalar_cube32 computes the same values in one pass."""
    v = np.asarray(x, np.float32)
    a = np.abs(v).astype(np.float64).reshape(-1)
    c = a * a * a
    with np.errstate(over="ignore"):
        out = c.astype(np.float32)                      # (inf from FLT_MAX + ulp / 2 on)
    doubt = ((c.view(np.uint64) & 0x1FFFFFFF) == 0x10000000) | ((c < 2.0 ** -126) & (c > 0))
    for i in np.flatnonzero(doubt):
        out[i] = _nearest_float32(Fraction(float(a[i])) ** 3)
    out = np.copysign(out.reshape(v.shape), v)
    return out if isinstance(x, np.ndarray) else out[()]


_F32_LIMIT = Fraction(2 ** 128 - 2 ** 103)      # FLT_MAX + half its ulp: inf from here on


def _nearest_float32(q: Fraction) -> np.float32:
    """The float32 nearest q >= 0, ties to the even one."""
    if q >= _F32_LIMIT:
        return np.float32(np.inf)
    f = np.float32(float(q))
    cands = [c for c in (np.nextafter(f, np.float32(0)), f, np.nextafter(f, np.float32(np.inf)))
             if np.isfinite(c)]
    return min(cands, key=lambda c: (builtins.abs(Fraction(float(c)) - q),
                                     int(np.array(c).view(np.uint32)) & 1))


def _pow_scalar_deriv(m: Any, x: Any, out: Any, p: float) -> Any:
    """d/dx x^p = p x^(p-1) (x^(p-1) as the forward computes powers: _fpow)."""
    if p == 0:
        return 0.0
    if p == 1:
        return 1.0
    return p * m.pow(x, p - 1)


numpy_function("pow", _fpow)

pow_scalar_op = unary(
    "pow_scalar", _fpow, _pow_scalar_deriv, domain=(0.3, 2.0),
    cases=tuple({"shapes": s, "attrs": {"p": p}} for s in (((), ), ((4,),))
                for p in (3.0, 0.5, -1.5)))

clip_op = unary(
    "clip", lambda x, lo, hi: np.clip(x, lo, hi).astype(x.dtype, copy=False),
    Select(lambda m, x, out, lo, hi: (m.data(x) >= lo) & (m.data(x) <= hi)), quiet=False,
    float16_exact=SELECTS,
    cases=({"shapes": ((6,),), "attrs": {"lo": -0.5, "hi": 0.7}},
           {"shapes": ((),), "attrs": {"lo": -0.5, "hi": 0.7}}),
    compiled=("clamp", lambda t, lo, hi: (t(lo), t(hi), True, t(1), t(0))))

cast_op = linear(
    "cast", grad_reads=(), forward=lambda x, dtype: x.astype(dtype) if dtype != np.float16
    else dtypes.to_dtype_array(x, dtype),
    transpose=lambda n, dtype: step(cast_op, dtype=n.dtypes[0]),
    into=lambda b, dest, src, dtype: b.contribute(dest, src.shape, "AXPY", src),
    cases=({"shapes": ((3,),), "attrs": {"dtype": np.float64}},
           {"shapes": ((),), "attrs": {"dtype": np.float64}}))

clone_op = unary("clone", lambda x: x.copy(), lambda m, x, out: 1.0, quiet=False,
                 float16_exact=SELECTS)


# ---- binary ------------------------------------------------------------------------------

add_op = binary("add", np.add, lambda m, x, y, out: 1.0, lambda m, x, y, out: 1.0,
                quiet=False, float16_exact=ADDS)
subtract_op = binary("subtract", np.subtract, lambda m, x, y, out: 1.0,
                     lambda m, x, y, out: -1.0, quiet=False, float16_exact=ADDS)
multiply_op = binary("multiply", np.multiply, lambda m, x, y, out: y,
                     lambda m, x, y, out: x, quiet=False)
divide_op = binary("divide", np.true_divide, lambda m, x, y, out: 1.0 / y,
                   lambda m, x, y, out: -out / y, domain=(0.5, 2.0),
                   grad_reads=(0, 1, "out"))     # Paddle's divide_grad keeps x as well


def _pow_dx(m, x, y, out):
    """y x^(y-1), 0 where y = 0 (Paddle 3.3.1, measured: a negative base with an integral
    exponent has its ordinary derivative, -4 at x = -2, y = 2; nan with a fractional one;
    +-inf at x = 0 with y < 1)."""
    return m.where(m.data(y) == 0, 0.0, y * x ** (y - 1.0))


def _pow_dy(m, x, y, out):
    """out log(x), 0 where x = 0 and y >= 0 (Paddle 3.3.1: nan for a negative base, -inf at
    x = 0 with y < 0)."""
    return m.where((m.data(x) == 0) & (m.data(y) >= 0), 0.0, out * m.log(x))


pow_op = binary("pow", np.power, _pow_dx, _pow_dy, domain=(0.5, 2.0))

_ONE = {np.dtype(t): t(1) for t in (np.float32, np.float64)}     # (made once: ~0.2 us each)
# What a compiled kernel gets for an output it is told not to write (a factor no input
# needs): an empty array of the dtype. (Not another argument: an array given twice, one of
# them written, sends the loop to its scalar version, ~3x slower.)
NO_ARRAY = {np.dtype(t): np.empty(0, t) for t in (np.float32, np.float64)}
_GRAD = tape.MODE


def _integral(p: float) -> bool:
    """_fpow's test: an integral float exponent takes |x|^p (with x's sign when odd)."""
    return float(p).is_integer() and -2 ** 53 < p < 2 ** 53


# (p, dtype) -> what _pow_scalar_compiled passes numpy and its kernel for that exponent, or
# None (the numpy path): a training loop's x ** 3 asks for one plan every step
_POW_PLANS: dict = {}


def _pow_plan(p: float, dt: np.dtype) -> tuple | None:
    """(p, p - 1 in dt, whether _fpow takes |x| for each and gives x's sign back to each);
    None for p 0 or 1 (a constant factor) or p not finite in dt."""
    tp, tq = dt.type(p), dt.type(p - 1)        # (quiet: _pow_scalar_compiled's caller)
    if p == 0 or p == 1 or not _isfinite(tp):
        return None
    ip, iq = _integral(p), _integral(p - 1)
    return tp, tq, ip, iq, ip and int(p) % 2 == 1, iq and int(p - 1) % 2 == 1


@quiet
def _pow_scalar_compiled(x: Tensor, p: float) -> tuple | None:
    """(out, saved) of pow_scalar for a float32 or float64 x needing a gradient once Numba
    is loaded: numpy's two powers (_fpow's np.power calls of p, and of p - 1 for the factor:
    its fast paths and SVML included) and one compiled pass for the signs and the factor's
    p * (vm/forward_binary.py): _fpow's and _pow_scalar_deriv's values bit for bit, without
    their abs, copysign and multiply passes (2048 float32, x ** 3: ~15 -> ~9 us, ~5 of it
    np.power and np.abs). None: the numpy path (p 0 or 1, whose factor is a constant; p
    not finite in x's dtype)."""
    if x._stop_gradient or not _GRAD.grad_enabled:
        return None
    found = compiled_input("forward_binary", x._data)
    if found is None:
        return None
    k, d = found
    key = (p, d.dtype)
    plan = _POW_PLANS.get(key)
    if plan is None:
        if key in _POW_PLANS or not _isfinite(p):
            return None
        if len(_POW_PLANS) > 256:
            _POW_PLANS.clear()
        plan = _POW_PLANS[key] = _pow_plan(p, d.dtype)
        if plan is None:
            return None
    tp, tq, ip, iq, odd, odd_q = plan
    if tp == 2:         # x * x (np.power's square, of |x| too) and 2 * x (x ** 1 is x)
        return d * d, (d * tp,)
    v = d.reshape(-1)
    a = np.abs(v) if ip or iq else v
    cube32_ = tp == 3 and d.dtype == _F32              # (cube32's values, not np.power's)
    if tq == 2 and _power_two_is_square(d.dtype):      # x ** 3: the factor's |x| ** 2
        if cube32_:
            out = np.empty_like(v)
            k.pow_scalar_cube32(v, out, a, tp)          # (one pass: no np.power call)
        else:
            out = np.power(a, tp)
            k.pow_scalar_cube(v, out, a, tp)            # (a becomes the factor)
        return out.reshape(d.shape), (a.reshape(d.shape),)
    out = cube32(v) if cube32_ else np.power(a if ip else v, tp)
    f = cube32(v) if tq == 3 and d.dtype == _F32 else np.power(a if iq else v, tq)
    k.pow_scalar(v, out, f, odd, odd_q, tp)
    return out.reshape(d.shape), (f.reshape(d.shape),)


_SQUARES: dict = {}             # dtype -> whether np.power(x, 2) is x * x here


def _power_two_is_square(dt: np.dtype) -> bool:
    """Whether numpy's np.power(x, 2) with a scalar exponent 2 gives x * x (its fast path
    for that exponent, numpy 2.x), checked once per dtype on random values (SVML's power
    of a strided 2 is not x * x for some, tests/test_forward_binary.py's _svml_squares)
    and on exact ties of x * x (odd mantissas m with m * m one bit too long): then
    vm/forward_binary.py's pow_scalar_cube squares instead of calling np.power."""
    found = _SQUARES.get(dt)
    if found is None:
        rng = np.random.default_rng(3)
        x = (np.abs(rng.standard_normal(1 << 12)) * 3).astype(dt)
        lo, hi = (4097, 5793) if dt == _F32 else (94906267, 134217728)  # 2^12..2^12.5 (2^26.5..)
        ties = np.arange(lo, hi, 2 * ((hi - lo) // 1024) + 2, dtype=np.float64)
        x = np.concatenate([x, (ties * 2.0 ** -20).astype(dt)])
        with np.errstate(all="ignore"):
            found = _SQUARES[dt] = bool(np.array_equal(np.power(x, dt.type(2)), x * x))
    return found


@quiet
def _pow_compiled(x: Tensor, y: Tensor) -> tuple | None:
    """(out, saved) of pow for two C-contiguous float32 or float64 tensors of one shape once
    Numba is loaded: numpy's power for the output (the numpy path's np.power call, on the
    same arrays), its x ** (y - 1) for _pow_dx and its log (in float64 for float32 x) for
    _pow_dy, each only for an input needing a gradient, between two compiled loops
    (vm/forward_binary.py) instead of ~12 numpy passes: _pow_dx's and _pow_dy's values bit
    for bit. Other layouts take the numpy path: np.power takes fast paths (x * x for an
    exponent 2 ...) for a zero-stride exponent, where a contiguous copy would not."""
    on = tape.is_grad_enabled()
    nx, ny = on and not x._stop_gradient, on and not y._stop_gradient
    d, e = x._data, y._data
    if not (nx or ny) or d.shape != e.shape or not (d.flags.c_contiguous and
                                                   e.flags.c_contiguous):
        return None
    found = compiled_input("forward_binary", d, e)
    if found is None:
        return None
    k = found[0]
    dt = d.dtype
    out = np.power(d, e)
    v, u = d.reshape(-1), e.reshape(-1)
    ym1 = np.empty(e.shape, dt)
    w = np.empty(u.size, np.float64)
    k.pow_parts(v, u, ym1.reshape(-1), w, _ONE[dt])
    if nx:          # (a new array, as `x ** (y - 1.0)`: for one element, np.power given
        #             out=ym1 takes its SVML loop where the numpy path takes x * x for 2)
        ym1 = np.power(d, ym1)
    if ny:
        np.log(w, out=w)
    dx, dy = np.empty(e.shape, dt), np.empty(e.shape, dt)
    k.pow_slopes(v, u, out.reshape(-1), ym1.reshape(-1), w, dx.reshape(-1), dy.reshape(-1))
    return out, (dx if nx else None, dy if ny else None)


def _tie_weight(m: Any, x: Any, y: Any, bigger: bool) -> np.ndarray:
    """x's share of max(x, y)'s (min's) gradient, in m's dtype at the broadcast shape: 1
    where x wins, 0.5 each on a tie, 0 where it loses or either is nan. (win + win-or-tie)
    / 2: three numpy passes and one in place, nothing in float64."""
    a, b = m.data(x), m.data(y)
    w = np.add(a > b, a >= b, dtype=m.dtype) if bigger else \
        np.add(a < b, a <= b, dtype=m.dtype)
    w *= 0.5
    return w


# (y's share is its own tie weight, not 1 - x's: where either is nan neither gets any, as in
# Paddle 3.3.1)
# (the loser's weight is 0: it gets 0 whatever arrives, an inf or NaN too; Weight)
maximum_op = binary(
    "maximum", np.maximum, Weight(lambda m, x, y, out: _tie_weight(m, x, y, True)),
    Weight(lambda m, x, y, out: _tie_weight(m, y, x, True)), quiet=False,
    float16_exact=SELECTS)

minimum_op = binary(
    "minimum", np.minimum, Weight(lambda m, x, y, out: _tie_weight(m, x, y, False)),
    Weight(lambda m, x, y, out: _tie_weight(m, y, x, False)), quiet=False,
    float16_exact=SELECTS)


def _where_mask(m, out, cond):
    shape = m.data(out).shape
    return cond if cond.shape == shape else np.broadcast_to(cond, shape)


where_op = binary(
    "where", lambda x, y, cond: np.where(cond, x, y),
    Select(lambda m, x, y, out, cond: _where_mask(m, out, cond)),
    Select(lambda m, x, y, out, cond: ~_where_mask(m, out, cond)), bound_attrs=("cond",),
    float16_exact=SELECTS,
    # its gradient is the condition (an attribute): x and y may change in place before the
    # backward, as in Paddle 3.3.1, whose where_grad does not keep them either
    grad_reads=(),
    quiet=False, cases=tuple({"shapes": s, "attrs": {"cond": np.array([True, False, True])}}
                for s in (((3,), (3,)), ((2, 3), (1, 3)))) +
    ({"shapes": ((), ()), "attrs": {"cond": np.array(False)}},))


# ---- public functions ----------------------------------------------------------------------

def _public_unary(op: OpDef, float_only: bool, takes_out: bool = False
                  ) -> Callable[[Tensor], Tensor]:
    """The public function of a one-input op without attributes. It checks its argument
    itself (checks_own_tensor_args, require_float's message): these run on every step of
    small training loops, where a wrapper layer and a helper call are a visible part of
    the op's cost. `takes_out`: Paddle 3.3.1's torch-style out= (x.exp(out=t) too), read
    here (a positional-or-keyword default: the method has no wrapper to read it in)."""
    opname = op.name

    def public(x: Tensor = UNSET, name: str | None = None, *, input: Tensor = UNSET
               ) -> Tensor:
        if input is not UNSET or x is UNSET:
            x = input_x(opname, x, input)
        if isinstance(x, Tensor):
            if x._data.dtype.kind == "f" or not float_only:
                return apply_xy(op, x)
            return apply_xy(op, float_input(x, opname))   # int, bool: float32 (Paddle)
        raise tensor_arg_error(opname, "x", x)

    def public_out(x: Tensor = UNSET, name: str | None = None, out: Tensor | None = None, *,
                   input: Tensor = UNSET) -> Tensor:
        if input is not UNSET or x is UNSET:
            x = input_x(opname, x, input)
        if isinstance(x, Tensor):
            if x._data.dtype.kind == "f" or not float_only:
                y = apply_xy(op, x)
            else:
                y = apply_xy(op, float_input(x, opname))   # int, bool: float32 (Paddle)
            return y if out is None else out_param(opname, out, y)
        raise tensor_arg_error(opname, "x", x)
    if takes_out:
        public = public_out
    public.__name__ = public.__qualname__ = opname
    public.__doc__ = f"Elementwise {opname}" + (" of a float tensor." if float_only else ".")
    # torch's input= read here (input_x), not by an alias wrapper: ~0.2 us of a ~2 us op
    public.param_aliases = {"input": "x"}   # type: ignore[attr-defined]
    return checks_own_tensor_args(public)


neg = _public_unary(neg_op, float_only=False)
square = _public_unary(square_op, float_only=False)
abs = _public_unary(abs_op, float_only=False, takes_out=True)
relu = _public_unary(relu_op, float_only=False)
sqrt = _public_unary(sqrt_op, float_only=True, takes_out=True)
exp = _public_unary(exp_op, float_only=True, takes_out=True)
log = _public_unary(log_op, float_only=True, takes_out=True)
tanh = _public_unary(tanh_op, float_only=True, takes_out=True)
sin = _public_unary(sin_op, float_only=True, takes_out=True)
cos = _public_unary(cos_op, float_only=True, takes_out=True)
sigmoid = _public_unary(sigmoid_op, float_only=True, takes_out=True)


def clip(x: Tensor, min: float | None = None, max: float | None = None,
         name: str | None = None, out: Tensor | None = None) -> Tensor:
    """Clamp to [min, max]; the gradient is 1 inside the closed interval, bounds included.
    out: Paddle 3.3.1's torch-style out= (read here: x.clip has no wrapper)."""
    lo = -np.inf if min is None else float(min)
    hi = np.inf if max is None else float(max)
    if not lo <= hi:            # (also a NaN bound: it made every value NaN)
        raise ValueError(f"clip: min ({lo}) is larger than max ({hi})" if lo > hi else
                         f"clip: min and max must not be NaN, got {lo} and {hi}")
    if x._data.dtype.kind in "iu" and (type(min) is float or type(max) is float):
        x = astype(x, dtypes.default_float())   # Paddle 3.3.1: clip(int, 0.5, 2) is float32
    y = apply_unary(clip_op, x, {"lo": lo, "hi": hi})
    return y if out is None else out_param("clip", out, y)


def astype(x: Tensor, dtype: Any) -> Tensor:
    dt = dtypes.to_dtype(dtype).np
    if dt == x._data.dtype:
        return apply_internal(clone_op, x)
    if dt.kind != "f":
        return Tensor._make(x._data.astype(dt))     # ints and bools carry no gradient
    return apply_internal(cast_op, x, dtype=dt)


cast = astype


def clone(x: Tensor, name: str | None = None) -> Tensor:
    return apply_internal(clone_op, x)


def _public_binary(op: OpDef, kinds: tuple, true_divide: bool = False,
                   large_bias: Callable | None = None, zero_dim: bool = True,
                   bias_min: int = 0, repeats: bool = False) -> Callable[[Any, Any], Tensor]:
    """The public function of a two-input op without attributes: Paddle's promotion
    (binary_operands), which leaves two Tensors of one dtype as they are (but for ints under
    true division), so that case, the common one, skips it. Operands of different shapes
    where one is a row of the other take _row_broadcast (`kinds`); `large_bias(d, e)` may
    compute an array of at least `bias_min` elements with an operand of one dim less (a
    per-channel scale), else None. `repeats` makes the operator `t * seq`: a str, list or
    tuple y gets NotImplemented (only once promotion has refused it), so Python repeats it
    by t's __index__, as Paddle 3.3.1's `paddle.to_tensor(3) * [0]` is [0, 0, 0]."""
    plain_ufunc = op.save is None and not op.forward_saves

    def public(x: Any, y: Any, name: str | None = None, *, alpha: Any = 1,
               rounding_mode: str | None = None) -> Tensor:
        if alpha != 1 or rounding_mode is not None:     # (Paddle 3.x's keywords: rare)
            return _binary_keywords(public, op.name, x, y, alpha, rounding_mode)
        if isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype is y._data.dtype \
                and (not true_divide or x._data.dtype.kind == "f"):
            d, e = x._data, y._data
            if plain_ufunc and d.shape != e.shape:
                out = _row_broadcast(kinds, d, e)
                if out is None:
                    out = _short_broadcast(kinds[0], d, e)
                if out is not None:
                    return apply_xy(op, x, y, NO_ATTRS, out)
                if d.ndim == e.ndim + 1:
                    # numpy's ufuncs set up operands of unequal ndim slowly (~0.5 us for
                    # (1, 32) + (32,), ~0.3 with a leading 1 added to the view); the same
                    # values, and numpy's own message when the shapes do not fit
                    if large_bias is not None and d.size >= bias_min:
                        out = large_bias(d, e)
                        if out is not None:
                            return apply_xy(op, x, y, NO_ATTRS, out)
                    try:
                        out = op.forward(d, e[None])
                    except ValueError:
                        return apply_xy(op, x, y)
                    return apply_xy(op, x, y, NO_ATTRS, out)
            return apply_xy(op, x, y)
        try:
            x, y = binary_operands(x, y, true_divide, zero_dim)
        except TypeError:
            if repeats and isinstance(y, (str, list, tuple)):
                return NotImplemented
            raise
        return apply_xy(op, x, y)
    public.__name__ = public.__qualname__ = op.name
    public.__doc__ = f"Elementwise {op.name}, with broadcasting and Paddle's dtype promotion."
    return public


def _binary_keywords(fn: Callable, opname: str, x: Any, y: Any, alpha: Any,
                     rounding_mode: str | None) -> Tensor:
    """add/subtract's alpha (x + alpha * y) and divide's rounding_mode ('trunc' or 'floor':
    the quotient rounded, in the inputs' dtype for integers), as Paddle 3.x."""
    if alpha != 1:
        if opname not in ("add", "subtract"):
            raise TypeError(f"{opname}() got an unexpected keyword argument 'alpha'")
        y = multiply(y, alpha)
    if rounding_mode is None:
        return fn(x, y)
    if opname != "divide":
        raise TypeError(f"{opname}() got an unexpected keyword argument 'rounding_mode'")
    from .math import trunc
    from .search import floor_divide
    if rounding_mode == "floor":
        return floor_divide(x, y)
    if rounding_mode != "trunc":
        raise ValueError(f"divide: rounding_mode must be None, 'trunc' or 'floor', got "
                         f"{rounding_mode!r}")
    q = trunc(fn(x, y))
    kinds = {t._data.dtype.kind for t in (x, y) if isinstance(t, Tensor)}
    if kinds and kinds <= set("iu"):              # integers in: integers out, as Paddle
        return astype(q, (x if isinstance(x, Tensor) else y)._data.dtype)
    return q


add = _public_binary(add_op, (0, 0))
subtract = _public_binary(subtract_op, (1, 4))
multiply = _public_binary(multiply_op, (2, 2), large_bias=_mul_channels, bias_min=4096)
_multiply_operator = _public_binary(multiply_op, (2, 2), large_bias=_mul_channels,
                                    bias_min=4096, repeats=True)     # Tensor.__mul__
divide = _public_binary(divide_op, (3, 5), true_divide=True)


def _public_minmax(op: OpDef) -> Callable[[Any, Any], Tensor]:
    """_public_binary(op, zero_dim=False) for maximum and minimum, whose output and both tie
    weights (_tie_weight's, at the inputs' shape) come from one compiled pass for two
    float32 or float64 tensors of one shape when a gradient is needed and Numba is loaded
    (vm/forward_binary.py; 32 x 64 float32 with the recording: ~13 -> ~4 us)."""
    opname = op.name

    def public(x: Any, y: Any, name: str | None = None) -> Tensor:
        if isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype is y._data.dtype:
            d, e = x._data, y._data
            nx, ny = not x._stop_gradient, not y._stop_gradient
            if (nx or ny) and d.shape == e.shape and _GRAD.grad_enabled:
                found = compiled_input("forward_binary", d, e)
                if found is not None:
                    k, d, e = found
                    dt = d.dtype
                    out = np.empty(d.shape, dt)
                    wx = np.empty(d.shape, dt) if nx else None
                    wy = np.empty(d.shape, dt) if ny else None
                    getattr(k, opname)(d.reshape(-1), e.reshape(-1), out.reshape(-1),
                                     wx.reshape(-1) if nx else NO_ARRAY[dt],
                                     wy.reshape(-1) if ny else NO_ARRAY[dt], nx, ny)
                    return apply_xy(op, x, y, NO_ATTRS, out, (wx, wy))
            elif (nx or ny) and _GRAD.grad_enabled:
                found = _minmax_broadcast(opname == "maximum", d, e, nx, ny)
                if found is not None:
                    return apply_xy(op, x, y, NO_ATTRS, *found)
            return apply_xy(op, x, y)
        x, y = binary_operands(x, y, False, False)
        return apply_xy(op, x, y)
    public.__name__ = public.__qualname__ = opname
    public.__doc__ = f"Elementwise {opname}, with broadcasting and Paddle's dtype promotion."
    return public


def _minmax_broadcast(greater: bool, d: np.ndarray, e: np.ndarray, nx: bool, ny: bool
                      ) -> tuple | None:
    """(out, (wx, wy)) of maximum (minimum unless greater) for two shapes that broadcast,
    by vm/forward_binary.py's broadcast_minmax: the output and _tie_weight's weights at the
    output's shape, each only when needed, in one pass (numpy's comparisons, adds and
    selects each loop over the broadcast: (64, 1, 2) against (1, 64, 2) float32 ~230 ->
    ~15 us); None when it does not apply (_broadcast_plan)."""
    found = _broadcast_kernel(d, e)
    if found is None:
        return None
    k, d, e, shape, grid = found
    dt = d.dtype
    out = np.empty(shape, dt)
    wx = np.empty(shape, dt) if nx else None
    wy = np.empty(shape, dt) if ny else None
    k.broadcast_minmax(d.reshape(-1), e.reshape(-1), out.reshape(-1),
                       wx.reshape(-1) if nx else NO_ARRAY[dt],
                       wy.reshape(-1) if ny else NO_ARRAY[dt], nx, ny, grid, greater)
    return out, (wx, wy)


maximum = _public_minmax(maximum_op)        # (Paddle promotes these as usual)
minimum = _public_minmax(minimum_op)


def _reflected(op: OpDef, true_divide: bool = False, repeats: bool = False
               ) -> Callable[[Tensor, Any], Tensor]:
    """Tensor's reflected operator for op: `y.__rsub__(x)` is x - y (`1 - t`), without a
    forwarding call to the public function. `repeats` (`*`): a str, list or tuple x gets
    NotImplemented, so Python repeats it by t's __index__ (`[0] * t`, `'ab' * t` of a 0-d
    integer t), as Paddle 3.3.1 does."""
    def reflected(y: Tensor, x: Any) -> Tensor:
        try:
            x, y = binary_operands(x, y, true_divide, zero_dim=True)
        except TypeError:
            if repeats and isinstance(x, (str, list, tuple)):
                return NotImplemented
            raise
        return apply_xy(op, x, y)
    reflected.__name__ = reflected.__qualname__ = f"r{op.name}"
    return reflected


def pow(x: Any, y: Any, name: str | None = None) -> Tensor:
    """paddle.pow(x, y) and x.pow(y): x ** y, except that an integer or bool x with a float
    exponent keeps its dtype and the exponent is truncated, as in Paddle 3.3.1
    (`paddle.pow(int64 [3, 5], 2.9)` is int64 [9, 25]; pow_ too); the operator `x ** 2.9`
    is float32 there and here (power)."""
    if isinstance(x, Tensor) and isinstance(y, (float, np.floating)) \
            and x._data.dtype.kind in "biu":
        y = int(y)
    return power(x, y)


# x ** 2's node attributes: one dict, never written (core.NO_ATTRS)
_SQUARE_ATTRS = {"p": 2.0}


def power(x: Any, y: Any) -> Tensor:
    """x ** y, the operator; a Python-number exponent records a cheaper single-input op."""
    if isinstance(x, Tensor) and isinstance(y, (int, float, np.integer, np.floating)) \
            and not isinstance(y, bool):
        if x._data.dtype.kind != "f":
            if not (isinstance(y, float) or y < 0):
                if x._data.dtype.kind == "b":       # (numpy's bool power is int8)
                    x = Tensor._make(x._data.astype(np.int64))
                return apply_internal(pow_scalar_op, x, p=y)
            x = Tensor._make(x._data.astype(np.float32))
        p = float(y)
        found = _pow_scalar_compiled(x, p)
        if found is None:
            if p == 2.0 and x._data.dtype.kind == "f":     # x ** 2: _fpow's x * x, direct
                d = x._data
                return apply_xy(pow_scalar_op, x, None, _SQUARE_ATTRS, d * d)
            return apply_internal(pow_scalar_op, x, p=p)
        return apply_xy(pow_scalar_op, x, None, {"p": p}, *found)
    x, y = binary_operands(x, y, zero_dim=True)
    xd, yd = x._data, y._data
    if xd.dtype.kind in "iu" and yd.dtype.kind in "iu" and yd.size and yd.min() < 0:
        # an int to a negative int power: through float64, truncated toward zero, as
        # Paddle 3.3.1 (2 ** -1 is 0, (-1) ** -1 is -1; numpy refuses); no gradient
        with np.errstate(all="ignore"):
            r = np.trunc(np.power(xd.astype(np.float64), yd))
        return Tensor._make(np.nan_to_num(r).astype(np.result_type(xd, yd)))
    found = _pow_compiled(x, y)
    if found is None:
        return apply_internal(pow_op, x, y)
    return apply_xy(pow_op, x, y, NO_ATTRS, *found)


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """Pick x where condition holds, else y; the condition carries no gradient. Without x
    and y, the coordinates of condition's nonzero elements: nonzero(as_tuple=True)."""
    if x is None and y is None:
        from .search import nonzero     # (search imports this module)
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    cond = np.asarray(condition._data if isinstance(condition, Tensor) else condition)
    if cond.dtype != np.bool_:
        raise TypeError(f"where: condition must be a bool tensor, got {cond.dtype}")
    if not isinstance(x, (Tensor, np.ndarray)) and not isinstance(y, (Tensor, np.ndarray)):
        # two Python scalars of one type, as Paddle 3.3.1: where(c, 1, 0) is int64,
        # where(c, 1.0, 0.0) the default float, where(c, True, False) bool
        if type(x) is not type(y) or type(x) not in (bool, int, float):
            raise TypeError(f"where: x and y are {type(x).__name__} and "
                            f"{type(y).__name__}; give two numbers of one type or a Tensor")
        dt = np.bool_ if type(x) is bool else np.int64 if type(x) is int else \
            dtypes.default_float().np
        x, y = Tensor._make(np.asarray(x, dt)), Tensor._make(np.asarray(y, dt))
    elif type(x) is float or type(y) is float:
        # Paddle 3.3.1 makes a Python float a default-float tensor and promotes the two:
        # where(c, x_float16, 0.1) is float32, the 0.1 a float32 one
        t = y if type(x) is float else x
        wide = dtypes.default_float().np
        if isinstance(t, Tensor) and t._data.dtype == np.float16 and wide != t._data.dtype:
            t = astype(t, wide)
            x, y = (x, t) if type(x) is float else (t, y)
    x, y = binary_operands(x, y)
    d, e = x._data, y._data
    nx, ny = not x._stop_gradient, not y._stop_gradient
    full = cond.shape
    if (nx or ny) and (d.shape == full or not d.ndim) and (e.shape == full or not e.ndim) \
            and _GRAD.grad_enabled:
        # output and the two masks (_where_mask's, at the output's shape) from one compiled
        # pass, once Numba is loaded, for x and y of the condition's shape or 0-d
        # (masked_fill's value) (vm/forward_binary.py; 32 x 64 float32: ~11 -> ~5 us)
        found = compiled_input("forward_binary", d, e)
        if found is not None:
            k, d, e = found
            dt = d.dtype
            out = np.empty(full, dt)
            wx = np.empty(full, dt) if nx else None
            wy = np.empty(full, dt) if ny else None
            k.where_pick(np.ascontiguousarray(cond).reshape(-1), d.reshape(-1), e.reshape(-1),
                         out.reshape(-1), wx.reshape(-1) if nx else NO_ARRAY[dt],
                         wy.reshape(-1) if ny else NO_ARRAY[dt], nx, ny)
            return apply_xy(where_op, x, y, {"cond": cond}, out, (wx, wy))
    return apply_internal(where_op, x, y, cond=cond)


bind_operators(__neg__=neg, __abs__=abs, __add__=add, __sub__=subtract,
               __mul__=_multiply_operator, __truediv__=divide)
bind_operators(__radd__=_reflected(add_op), __rsub__=_reflected(subtract_op),
               __rmul__=_reflected(multiply_op, repeats=True),
               __rtruediv__=_reflected(divide_op, true_divide=True))
