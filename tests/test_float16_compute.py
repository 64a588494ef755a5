"""A float16 input is computed in float32 and its result rounded to float16 once.

Paddle 3.3.1's CPU build has float16 kernels for a handful of ops only (measured: sum,
trace, subtract, scale, floor, dropout, exp and rrelu forwards, erf and expm1 forward and
backward); tanh, sigmoid, softmax, layer_norm, gelu, matmul, `+` ... raise NotFound. For
those jitgrad defines the values: `op(x.astype('float32')).astype('float16')`, forward and
gradient (ops/core.in_float32 records cast -> op -> cast for every op not declared
float16_exact). Numpy's float16 arithmetic rounded every intermediate before: up to ~4000
ulps off (gelu near 0, a softmax's exp and sum, a derivative's factors).

Each case compares a float16 call against the same call in float32, rounded, by each
backward path (registry ops: eager, compiled and interpreted; public functions, some made of
several ops (core.call_in_float32): their first and their compiled backward), exactly: a
float32 path is deterministic, the same inputs give the same bits twice. Only a zero's sign
is not compared (see _bits).
"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core.tensor import Tensor
from jitgrad.ops import REGISTRY
from jitgrad.ops.core import apply
from jitgrad.ops.registry import BINARY_CASES, UNARY_CASES
from jitgrad.testing import gradients

F = paddle.nn.functional
F16, F32 = np.float16, np.float32


def _bits(a):
    """float16 bits, every NaN the same and -0 as 0: a NaN's payload is not a value, and a
    zero gradient's sign follows the float32 graph's structure (a compiled float32 backward
    multiplies a seed into the op's kernel that cast nodes keep apart)."""
    a = np.asarray(a, F16)
    return np.where(np.isnan(a), np.float16(np.nan), a + np.float16(0)).view(np.uint16)


def _rounded(a):
    return np.asarray(a, F32).astype(F16)


def _values(lo, hi, shape, rng):
    """Values in [lo, hi], a third of them in the few percent of the range nearest 0 (or
    nearest lo), where float16 intermediates lost the most."""
    n = int(np.prod(shape))
    v = rng.uniform(lo, hi, n)
    near_lo, near_hi = max(lo, -0.05 * (hi - lo)), min(hi, 0.05 * (hi - lo))
    if near_lo >= near_hi:
        near_lo, near_hi = lo, lo + 0.05 * (hi - lo)
    v[: n // 3] = rng.uniform(near_lo, near_hi, n // 3)
    return rng.permutation(v).reshape(shape).astype(F16)


def _cases(op):
    """The op's cases; an elementwise op on the default shapes gets 240 values instead."""
    default = UNARY_CASES if op.nin == 1 else BINARY_CASES
    if all("values" not in c and not c.get("attrs") and tuple(c["shapes"]) in default
           for c in op.cases):
        return [{"shapes": ((240,),) * op.nin}, op.cases[0]]
    return list(op.cases)


OPS = sorted(n for n, op in REGISTRY.items() if op.differentiable and n != "cast")


def _check_op(name, path):
    op = REGISTRY[name]
    rng = np.random.default_rng(0)
    for case in _cases(op):
        attrs = case.get("attrs", {})
        xs = [np.asarray(v, F16) for v in case["values"]] if "values" in case else \
            [_values(*op.domain, s, rng) for s in case["shapes"]]
        f = lambda *ts: apply(op, *ts, **attrs)                     # noqa: E731
        out = f(*[Tensor._make(x) for x in xs])._data
        want = f(*[Tensor._make(x.astype(F32)) for x in xs])._data
        assert out.dtype == F16, name
        assert np.array_equal(_bits(out), _bits(_rounded(want))), (name, case)
        seed = rng.uniform(-1, 1, out.shape).astype(F16)
        got = gradients(f, xs, seed, path)
        ref = gradients(f, [x.astype(F32) for x in xs], seed.astype(F32), path)
        for i, (g, r) in enumerate(zip(got, ref)):
            assert g.dtype == F16, (name, i)
            assert np.array_equal(_bits(g), _bits(_rounded(r))), (name, case, i)


@pytest.mark.parametrize("name", OPS)
def test_registry_op_float16_is_float32_rounded_once_eager(name):
    _check_op(name, "eager")


@pytest.mark.parametrize("name", OPS)
def test_registry_op_float16_is_float32_rounded_once_compiled(name):
    _check_op(name, "numba")


@pytest.mark.parametrize("name", OPS)
def test_registry_op_float16_is_float32_rounded_once_interpreted(name):
    _check_op(name, "interpret")


def test_only_ops_that_round_once_anyway_skip_the_float32_detour():
    exact = sorted(n for n, op in REGISTRY.items() if op.differentiable and not op.compute16)
    for n in exact:                       # each says why (registry.py's float16_exact)
        assert isinstance(REGISTRY[n].extra["float16_exact"], str), n
    for n in ("softmax", "log_softmax", "gelu", "silu", "tanh", "multiply", "matmul",
              "cumsum", "scatter_flat"):
        assert REGISTRY[n].compute16, n


def test_float16_tanh_gradient_near_one_is_float32s():
    # tanh' = 1 - out**2 from a float16 out: out = 0.9995 (x = 4.1) gave 0.000977 (and
    # 0.786 at x = 0.5); float32's are 0.0010945 and 0.78645, rounded 0.001095 and 0.7866
    x = paddle.to_tensor(np.array([4.1, 0.5], F16), stop_gradient=False)
    paddle.tanh(x).sum().backward()
    x32 = paddle.to_tensor(np.array([4.1, 0.5], F16).astype(F32), stop_gradient=False)
    paddle.tanh(x32).sum().backward()
    assert x.grad.numpy().tolist() == _rounded(x32.grad.numpy()).tolist()
    assert x.grad.numpy()[0] != np.float16(0.000977)


X = np.linspace(-4, 4, 16 * 20).reshape(20, 16)
X[::3] *= 0.003                          # rows near 0 (gelu, layer_norm lost most there)
P = np.linspace(0.05, 0.95, 16 * 20).reshape(20, 16)[::-1]
LABELS = np.arange(20) % 16

# public calls: name -> (function of Tensors, input arrays)
PUBLIC = {
    "softmax": (F.softmax, X), "log_softmax": (F.log_softmax, X),
    "softmax_axis0_3d": (lambda x: F.softmax(x, axis=0), X.reshape(4, 5, 16)),
    "layer_norm": (lambda x: F.layer_norm(x, 16), X),
    "layer_norm_affine": (lambda x, w, b: F.layer_norm(x, 16, weight=w, bias=b),
                          X, 1 + X[1] / 8, X[2]),
    "gelu": (F.gelu, X), "gelu_tanh": (lambda x: F.gelu(x, approximate=True), X),
    "sigmoid": (F.sigmoid, X), "silu": (F.silu, X), "tanh": (paddle.tanh, X),
    "mish": (F.mish, X), "selu": (F.selu, X), "hardswish": (F.hardswish, X),
    "glu": (F.glu, X), "group_norm": (lambda x: F.group_norm(x, 2), X.reshape(4, 4, 20)),
    "batch_norm": (lambda x: F.batch_norm(x, paddle.zeros([16], "float16"),
                                          paddle.ones([16], "float16"), training=True), X),
    "cross_entropy": (lambda x: F.cross_entropy(x, paddle.to_tensor(LABELS)), X),
    "cross_entropy_soft": (lambda x, p: F.cross_entropy(x, p, soft_label=True), X, P),
    "bce_with_logits": (lambda x, p: F.binary_cross_entropy_with_logits(x, p), X, P),
    "logsumexp": (lambda x: paddle.logsumexp(x, axis=1), X),
    "var": (lambda x: paddle.var(x, axis=1), X),
    "matmul": (paddle.matmul, X, X[:16].T.copy()),
    "multiply_broadcast": (paddle.multiply, X, X[3]),
    "divide_broadcast": (paddle.divide, X, 1 + P[0]),
    "pow_broadcast": (paddle.pow, P, 1 + P[0]),
    "cosine_similarity": (F.cosine_similarity, X, X[::-1].copy()),
    "cumsum": (lambda x: paddle.cumsum(x, axis=1), X),
    "sinc": (paddle.sinc, X),
    # public functions composed of several ops (core.call_in_float32)
    "linear": (F.linear, X, X[:16].T.copy() / 4, X[5]),
    "conv2d": (F.conv2d, X.reshape(1, 4, 5, 16), X[:2].reshape(2, 4, 2, 2)),
    "conv1d_transpose": (F.conv1d_transpose, X.reshape(1, 20, 16), X[:10].reshape(20, 2, 4)),
    "mse_loss": (F.mse_loss, X, X[::-1].copy()),
    "normalize": (F.normalize, X),
    "rms_norm": (lambda x: F.rms_norm(x, [16])[0], X),
    "local_response_norm": (lambda x: F.local_response_norm(x, 3), X.reshape(1, 4, 5, 16)),
    "lerp": (paddle.lerp, X, X[::-1].copy(), P),
    "std": (lambda x: paddle.std(x, axis=1), X),
    "sdpa": (F.scaled_dot_product_attention, X.reshape(1, 10, 4, 8), X[::-1].reshape(1, 10, 4, 8),
             X[:, ::-1].reshape(1, 10, 4, 8)),
    "interpolate_bilinear": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
                             X.reshape(1, 1, 20, 16)),
    "triplet_margin_loss": (F.triplet_margin_loss, X, X[::-1].copy(), X[:, ::-1].copy()),
    "sigmoid_focal_loss": (lambda x, p: F.sigmoid_focal_loss(x, p), X, P),
    "grid_sample": (F.grid_sample, X.reshape(1, 1, 20, 16), P[:4].reshape(1, 4, 8, 2) * 2 - 1),
}


def _public(name, dtype):
    fn, *arrays = PUBLIC[name]
    ts = [paddle.to_tensor(np.asarray(a, F16).astype(dtype), stop_gradient=False)
          for a in arrays]
    y = fn(*ts)
    seed = np.random.default_rng(1).uniform(-1, 1, y.shape).astype(F16).astype(dtype)
    (y * paddle.to_tensor(seed)).sum().backward()
    return y.numpy(), [None if t.grad is None else t.grad.numpy() for t in ts]


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_float16_call_is_its_float32_call_rounded(name):
    for _ in range(2):                    # the first backward, then the compiled one
        y16, g16 = _public(name, F16)
        y32, g32 = _public(name, F32)
        assert y16.dtype == F16
        assert np.array_equal(_bits(y16), _bits(_rounded(y32))), name
        for i, (a, b) in enumerate(zip(g16, g32)):
            if a is None and b is None:     # (a label)
                continue
            assert a.dtype == F16
            assert np.array_equal(_bits(a), _bits(_rounded(b))), (name, i)


def test_scale_keeps_paddles_two_float16_roundings():
    # Paddle 3.3.1 has a float16 scale kernel: over every finite float16 |x| < 1000 (51104
    # values) its scale(x, 0.3, 0.1) is float16(x * float16(0.3)) + float16(0.1) in float16
    # arithmetic, bit for bit (8881 differ from a float32 computation rounded once); its
    # gradient is g * float16(0.3)
    bits = np.arange(0, 65536, 7, dtype=np.uint16).view(F16)
    x16 = bits[np.isfinite(bits) & (np.abs(bits) < 1000)]
    x = paddle.to_tensor(x16, stop_gradient=False)
    y = paddle.scale(x, 0.3, 0.1)
    assert np.array_equal(_bits(y.numpy()), _bits(x16 * F16(0.3) + F16(0.1)))
    y.sum().backward()
    assert np.array_equal(_bits(x.grad.numpy()), _bits(np.full(x16.shape, F16(0.3))))


def test_rrelu_eval_keeps_paddles_float16_values():
    # Paddle 3.3.1's float16 rrelu (eval): x * float16((1/8 + 1/3) / 2) where x < 0, bit for
    # bit over all 63488 finite float16 values (7922 differ from a float32 product rounded)
    bits = np.arange(0, 65536, dtype=np.uint16).view(F16)
    x16 = bits[np.isfinite(bits)]
    y = F.rrelu(paddle.to_tensor(x16), training=False).numpy()
    want = np.where(x16 >= 0, x16, x16 * F16((1.0 / 8 + 1.0 / 3) / 2))
    assert np.array_equal(_bits(y), _bits(want))
