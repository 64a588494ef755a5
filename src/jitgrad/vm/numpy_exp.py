"""numpy's float32 exp as a Numba helper, for kernels that would otherwise call np.exp
between two loops of their own (vm/forward_activation.py's sigmoid and silu, vm/forward.py's
softmax rows): numpy's simd_exp_FLOAT (numpy/_core/src/umath/loops_exponent_log.dispatch
.c.src, its AVX512F and AVX2/FMA3 bodies: Cody-Waite reduction, a 5/2 rational function,
scalef) step for step in float32 with its FMAs, no fastmath (reassociation would fold the
rounding step): the same bits as np.exp for all 2^32 float32 inputs on the AVX-512 host
(perf/check_numpy_exp_exhaustive.py). ops/elementwise.py's numpy_exp_emulated checks once
that numpy's exp here is that one (another build's or CPU's, the C library's expf for one,
is not: the callers then keep numpy's pass).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm_ir
from numba import types
from numba.extending import intrinsic

from ._numba import jit


def _f32(bits: int) -> np.float32:
    return np.array([bits], np.uint32).view(np.float32)[0]


_EXP_C1, _EXP_C2 = _f32(0xBF317200), _f32(0xB5BFBE8E)        # -ln2 in two parts
_EXP_MAGIC, _EXP_LOG2E = _f32(0x4B400000), _f32(0x3FB8AA3B)   # 1.5 * 2^23, log2(e)
_EXP_P = [_f32(b) for b in (0x3F800000, 0x3F39CBD5, 0x3E7D4C58, 0x3D517D8C, 0x3BDD7159,
                            0x3A053DD8)]
_EXP_P0, _EXP_P1, _EXP_P2, _EXP_P3, _EXP_P4, _EXP_P5 = _EXP_P
_EXP_Q0, _EXP_Q1, _EXP_Q2 = (_f32(b) for b in (0x3F800000, 0xBE8C6857, 0x3CB0E832))
_EXP_XMAX, _EXP_XMIN = np.float32(88.72283935546875), np.float32(-103.97208404541015625)
_F32_ZERO, _F32_ONE = np.float32(0), np.float32(1)
_F32_NAN, _F32_INF = np.float32(np.nan), np.float32(np.inf)     # (numpy's NaN: +, quiet)


@intrinsic
def _fma32(typingctx, a, b, c):  # pragma: no cover - compiled
    """a * b + c in float32, rounded once (LLVM's fma)."""
    def codegen(context, builder, signature, args):
        return builder.fma(*args)
    return types.float32(types.float32, types.float32, types.float32), codegen


@intrinsic
def _float32_from_bits(typingctx, n):  # pragma: no cover - compiled
    """The float32 whose bits are the int32 n (a bitcast: vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llvm_ir.FloatType())
    return types.float32(types.int32), codegen


@jit(inline="always", fastmath=False)
def _numpy_exp32(v):  # pragma: no cover - compiled
    """numpy's float32 exp of the float32 v: NaN gives +nan, from xmax up inf, to xmin down
    0; scalef's poly 2^q (one rounding) as two float32 products, the first exact (2^-126 <=
    2^n1 <= 2^127) and the second rounding (2^n2 = 1, 2 at q = 128, 2^-24 below -126)."""
    nan = v != v
    x = _F32_ZERO if nan else v
    big = x >= _EXP_XMAX
    small = x <= _EXP_XMIN
    x = _F32_ZERO if (nan or big or small) else x
    q = x * _EXP_LOG2E
    q = (q + _EXP_MAGIC) - _EXP_MAGIC
    x = _fma32(q, _EXP_C1, x)
    x = _fma32(q, _EXP_C2, x)
    x = _fma32(q, _F32_ZERO, x)
    num = _fma32(_EXP_P5, x, _EXP_P4)
    num = _fma32(num, x, _EXP_P3)
    num = _fma32(num, x, _EXP_P2)
    num = _fma32(num, x, _EXP_P1)
    num = _fma32(num, x, _EXP_P0)
    den = _fma32(_EXP_Q2, x, _EXP_Q1)
    den = _fma32(den, x, _EXP_Q0)
    poly = num / den
    n = np.int32(q)
    n2 = np.int32(-24) if n < -126 else (np.int32(1) if n > 127 else np.int32(0))
    r = (poly * _float32_from_bits((n - n2 + 127) << 23)) * _float32_from_bits((n2 + 127) << 23)
    r = _F32_NAN if nan else r
    r = _F32_INF if big else r
    return _F32_ZERO if small else r


@jit(fastmath=False)
def numpy_exp(x, out):  # pragma: no cover - compiled
    """out = numpy's exp of float32 x (the emulation's check, and perf/'s)."""
    for i in range(x.size):
        out[i] = _numpy_exp32(x[i])


@jit(fastmath=False)
def exp_neg_abs(x, a, beta, scaled):  # pragma: no cover - compiled
    """a = numpy's exp(-|z|) of float32 x, z = beta x (x itself unless scaled) in float32:
    vm/forward_activation.py's neg_abs (softplus_parts) and np.exp in one pass (softplus,
    log_sigmoid, mish, binary_cross_entropy_with_logits; ops/elementwise.py's exp_neg_abs)."""
    for i in range(x.size):
        z = beta * x[i] if scaled else x[i]
        a[i] = _numpy_exp32(-abs(z))
