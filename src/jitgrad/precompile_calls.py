"""The public calls precompile.py drives per kernel module: model-sized inputs (a 32 x 64
activation, a 2 x 3 x 16 x 16 image ...), large enough to take the compiled paths small
registry cases skip (softmax, cross_entropy and the norms from 64-256 elements on, a
per-channel scale from 4096, a constant pad from 8192), integer tensors and int32 / int64
indices where the data-moving kernels take them. Each call takes an `Inputs` for one float
dtype and returns a loss (or None when there is nothing to differentiate); precompile runs
it once under no_grad (an inference forward: some ops skip their saved factors by kernels of
their own), then its backward twice (the first backward of a new graph is interpreted, the
second runs a compiled Program, and the two use different forward kernels).

The grouping by module only orders the progress lines: a call may reach kernels of other
modules too, and whatever it compiles is compiled either way.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np


class Inputs:
    """Seeded tensors of one float dtype."""

    def __init__(self, dtype: np.dtype) -> None:
        import jitgrad
        self.P = jitgrad
        self.dt = np.dtype(dtype)
        self.rng = np.random.default_rng(0)

    def t(self, *shape: int, lo: float = -2.0, hi: float = 2.0, grad: bool = True) -> Any:
        a = self.rng.uniform(lo, hi, shape).astype(self.dt)
        return self.P.to_tensor(a, stop_gradient=not grad)

    def c(self, *shape: int, lo: float = -2.0, hi: float = 2.0) -> Any:
        return self.t(*shape, lo=lo, hi=hi, grad=False)

    def i(self, *shape: int, n: int, dtype: str = "int64") -> Any:
        return self.P.to_tensor(self.rng.integers(0, n, shape).astype(dtype))

    def ints(self, *shape: int, dtype: str = "int64") -> Any:
        return self.P.to_tensor(self.rng.integers(-50, 50, shape).astype(dtype))

    def mask(self, *shape: int) -> Any:
        return self.P.to_tensor(self.rng.uniform(0, 1, shape) < 0.5)


Call = Callable[[Inputs], Any]


_F32_MATH = ("exp", "log", "expm1", "log1p", "log2", "log10", "cosh", "sinh", "atanh", "asinh",
             "acosh", "atan", "tan")


def _unary(names: Any) -> list[Call]:
    calls: list[Call] = []
    for name, lo, hi in _UNARY:
        if name not in names:
            continue

        def f(w: Inputs, name: str = name, lo: float = lo, hi: float = hi) -> Any:
            fn = getattr(w.P, name)
            x = w.t(32, 64, lo=lo, hi=hi)
            if name == "gammainc":
                return fn(x, w.t(32, 64, lo=0.5, hi=3))
            return fn(x * w.c(64, lo=0.9, hi=1.1))
        calls.append(f)
    return calls


def _float32_math() -> list[Call]:
    return _unary(_F32_MATH)


def _special() -> list[Call]:
    return _unary({n for n, _, _ in _UNARY} - set(_F32_MATH)) + [
        lambda w: w.P.polygamma(w.t(32, 64, lo=0.5, hi=3), 1),
        lambda w: w.P.polygamma(w.t(32, 64, lo=0.5, hi=3), 2),
    ]


_UNARY = [
        ("abs", -2, 2), ("acos", -0.8, 0.8), ("acosh", 1.2, 3), ("asin", -0.8, 0.8),
        ("asinh", -2, 2), ("atan", -2, 2), ("atanh", -0.8, 0.8), ("ceil", -2, 2),
        ("cos", -2, 2), ("cosh", -2, 2), ("erf", -2, 2), ("erfinv", -0.8, 0.8),
        ("exp", -2, 2), ("expm1", -2, 2), ("floor", -2, 2), ("frac", -2, 2),
        ("lgamma", 0.5, 3), ("digamma", 0.5, 3), ("i0", -3, 3), ("i0e", -3, 3),
        ("i1", -3, 3), ("i1e", -3, 3), ("log", 0.5, 2), ("log10", 0.5, 2), ("log1p", 0, 2),
        ("log2", 0.5, 2), ("neg", -2, 2), ("reciprocal", 0.5, 2), ("round", -2, 2),
        ("rsqrt", 0.5, 2), ("sign", -2, 2), ("sin", -2, 2), ("sinh", -2, 2),
        ("sqrt", 0.5, 2), ("square", -2, 2), ("tan", -1, 1), ("tanh", -2, 2),
        ("trunc", -2, 2), ("sinc", -2, 2), ("logit", 0.1, 0.9), ("sigmoid", -2, 2),
        ("stanh", -2, 2), ("gammaln", 0.5, 3), ("deg2rad", -2, 2),
        ("rad2deg", -2, 2), ("signbit", -2, 2), ("isnan", -2, 2),
        ("nan_to_num", -2, 2), ("angle", -2, 2), ("gammainc", 0.5, 3),
]


def _binary() -> list[Call]:
    calls: list[Call] = [
        lambda w: w.P.pow(w.t(32, 64, lo=0.5, hi=2), 2.5),
        lambda w: w.P.pow(w.t(32, 64, lo=0.5, hi=2), 3),
        lambda w: w.P.pow(w.t(32, 64, lo=0.5, hi=2), w.t(32, 64)),
        lambda w: w.t(32, 64) ** 2,
        lambda w: w.P.clip(w.t(32, 64), -1.0, 1.0),
        lambda w: w.P.scale(w.t(32, 64), 2.0, 1.0),
        lambda w: w.P.remainder(w.t(32, 64), w.t(32, 64, lo=0.5, hi=2)),
        lambda w: w.t(32, 64) % 0.7,
        lambda w: w.P.floor_divide(w.t(32, 64), w.t(32, 64, lo=0.5, hi=2)),
        lambda w: w.P.cast(w.t(32, 64), "float64" if w.dt == np.float32 else "float32"),
    ]
    for name in ("add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax",
                 "fmin", "atan2", "hypot", "logaddexp", "copysign", "heaviside",
                 "nextafter"):
        def g(w: Inputs, name: str = name) -> Any:
            fn = getattr(w.P, name)
            a, b = w.t(32, 64), w.t(32, 64, lo=0.5, hi=2)
            return w.P.sum(fn(a, b)) + w.P.sum(fn(a, w.t(64))) + w.P.sum(fn(w.t(32, 1), b)) + \
                w.P.sum(fn(w.t(16, 1, 2), w.t(1, 16, 2, lo=0.5, hi=2)))   # (broadcast_op)
        calls.append(g)
    calls += [
        lambda w: w.P.ldexp(w.t(32, 64), w.ints(32, 64, dtype="int32")),
        lambda w: w.P.lerp(w.t(32, 64), w.t(32, 64), w.t(32, 64, lo=0, hi=1)),
        lambda w: w.P.lerp(w.t(32, 64), w.t(32, 64), 0.3),
        lambda w: w.P.where(w.mask(32, 64), w.t(32, 64), w.t(32, 64)),
        lambda w: w.t(32, 64) + w.t(64),                     # add_bias
        lambda w: w.t(8, 16, 8, 8) * w.t(16, 1, 1),          # per-channel scale
        lambda w: w.t(8, 16, 8, 8) + w.t(16, 1, 1),
        lambda w: w.P.isclose(w.t(32, 64), w.t(32, 64)),
        lambda w: w.P.equal(w.t(32, 64), w.t(32, 64)),
        lambda w: w.t(32, 64) > w.t(32, 64),
        _adam_steps,                                         # scale_add32 (float32 only)
    ]
    return calls


def _adam_steps(w: Inputs) -> Any:
    """Two Adam and AdamW steps on one parameter: their fused multiply-adds."""
    p = w.t(32, 64)
    for cls in (w.P.optimizer.Adam, w.P.optimizer.AdamW):
        opt = cls(learning_rate=1e-3, parameters=[p])
        for _ in range(2):
            (p * p).sum().backward()
            opt.step()
            opt.clear_grad()
    return p


def _activations() -> list[Call]:
    names = ("relu", "sigmoid", "celu", "elu", "selu", "gelu", "hardshrink", "hardsigmoid",
             "hardswish", "hardtanh", "leaky_relu", "relu6", "silu", "mish", "softplus",
             "softshrink", "softsign", "tanhshrink", "log_sigmoid", "thresholded_relu",
             "swish", "tanh", "rrelu")
    calls: list[Call] = []
    for name in names:
        def f(w: Inputs, name: str = name) -> Any:
            import jitgrad.nn.functional as F
            return getattr(F, name)(w.t(32, 64) * w.c(64, lo=0.9, hi=1.1))
        calls.append(f)

    def F() -> Any:
        import jitgrad.nn.functional as F
        return F
    calls += [
        lambda w: F().gelu(w.t(32, 64), approximate=True),
        lambda w: F().elu(w.t(32, 64), alpha=0.5),
        lambda w: F().celu(w.t(32, 64), alpha=0.5),
        lambda w: F().leaky_relu(w.t(32, 64), 0.2),
        lambda w: F().softplus(w.t(32, 64), beta=2.0, threshold=10.0),
        lambda w: F().prelu(w.t(8, 16, 4, 4), w.t(16)),
        lambda w: F().prelu(w.t(32, 64), w.t(1)),
        lambda w: F().glu(w.t(32, 64), axis=-1),
        lambda w: F().dropout(w.t(32, 64), 0.5),
        lambda w: F().alpha_dropout(w.t(32, 64), 0.5),
        lambda w: F().binary_cross_entropy_with_logits(w.t(32, 64), w.c(32, 64, lo=0, hi=1)),
        lambda w: F().binary_cross_entropy(w.P.nn.functional.sigmoid(w.t(32, 64)),
                                           w.c(32, 64, lo=0, hi=1)),
    ]
    return calls


def _numpy_exp() -> list[Call]:
    """float32 ops whose one pass computes numpy's exp (vm/numpy_exp.py; the float64 calls
    take numpy's exp) and the run-time check of that exp (numpy_exp)."""
    def F() -> Any:
        import jitgrad.nn.functional as F
        return F
    return [lambda w: F().sigmoid(w.t(32, 64)), lambda w: F().silu(w.t(32, 64)),
            lambda w: F().softplus(w.t(32, 64)), lambda w: F().softplus(w.t(32, 64), 2.0, 10.0),
            lambda w: F().log_sigmoid(w.t(32, 64)), lambda w: F().mish(w.t(32, 64)),
            lambda w: F().softmax(w.t(32, 64), axis=-1),
            lambda w: F().binary_cross_entropy_with_logits(w.t(32, 64),
                                                           w.c(32, 64, lo=0, hi=1))]


def _reductions() -> list[Call]:
    def p(w: Inputs) -> Any:
        return w.P
    calls: list[Call] = []
    for name in ("sum", "mean", "max", "min", "amax", "amin", "prod", "logsumexp", "var",
                 "std", "nansum", "nanmean", "median", "nanmedian", "all", "any",
                 "count_nonzero", "argmax", "argmin"):
        def f(w: Inputs, name: str = name) -> Any:
            fn = getattr(w.P, name)
            x = w.t(32, 64, lo=0.5, hi=2) if name == "prod" else w.t(32, 64)
            outs = [fn(x), fn(x, axis=1), fn(x, axis=0), fn(x, axis=-1, keepdim=True)]
            outs.append(fn(w.t(4, 8, 16), axis=1))
            return sum((w.P.sum(o.astype(w.dt)) for o in outs[1:]), w.P.sum(
                outs[0].astype(w.dt)))
        calls.append(f)
    calls += [
        lambda w: p(w).cumsum(w.t(32, 64), axis=1) + p(w).cumsum(w.t(32, 64), axis=0),
        lambda w: p(w).cumprod(w.t(32, 64, lo=0.5, hi=1.5), dim=1),
        lambda w: p(w).logcumsumexp(w.t(32, 64), axis=1),
        lambda w: p(w).cummax(w.t(32, 64), axis=1)[0] + p(w).cummin(w.t(32, 64), axis=1)[0],
        lambda w: p(w).diff(w.t(32, 64), axis=1),
        lambda w: p(w).quantile(w.t(32, 64), 0.3, axis=1),
        lambda w: p(w).nanquantile(w.t(32, 64), 0.3, axis=1),
        lambda w: p(w).kthvalue(w.t(32, 64), 5, axis=1)[0],
        lambda w: p(w).mode(w.t(32, 64), axis=1)[0],
        lambda w: p(w).linalg.norm(w.t(32, 64), axis=1),
        lambda w: p(w).norm(w.t(32, 64), p="fro"),
        lambda w: p(w).norm(w.t(32, 64), p=1, axis=1),
        lambda w: p(w).norm(w.t(32, 64), p=3, axis=1),
        lambda w: p(w).norm(w.t(32, 64), p=float("inf"), axis=1),
        lambda w: p(w).renorm(w.t(32, 64), 2.0, 0, 1.0),
        lambda w: p(w).trace(w.t(32, 32)),
    ]
    return calls


def _sorting() -> list[Call]:
    def P(w: Inputs) -> Any:
        return w.P
    return [
        lambda w: P(w).topk(w.t(32, 64), 5)[0] + P(w).topk(w.t(32, 64), 5, largest=False)[0],
        lambda w: P(w).topk(w.t(32, 64), 5, axis=0)[0],
        lambda w: P(w).sort(w.t(32, 64), axis=1) + P(w).sort(w.t(32, 64), descending=True),
        lambda w: P(w).sort(w.t(32, 64), axis=0),
        lambda w: P(w).argsort(w.t(32, 64), axis=1).astype(w.dt),
        lambda w: P(w).median(w.t(32, 64), axis=1),
        lambda w: P(w).median(w.t(32, 64), axis=1, mode="min")[0],
        lambda w: P(w).searchsorted(P(w).sort(w.c(64)), w.c(32)).astype(w.dt),
        lambda w: P(w).unique(w.ints(64)).astype(w.dt),
        lambda w: P(w).sort(w.ints(32, 64), axis=1).astype(w.dt),
        lambda w: P(w).topk(w.ints(32, 64, dtype="int32"), 3)[0].astype(w.dt),
    ]


def _losses() -> list[Call]:
    def F() -> Any:
        import jitgrad.nn.functional as F
        return F
    return [
        lambda w: F().softmax(w.t(32, 64), axis=-1) * w.c(32, 64),
        lambda w: F().softmax(w.t(32, 64), axis=0) * w.c(32, 64),
        lambda w: F().softmax(w.t(4, 16, 8), axis=1),
        lambda w: F().log_softmax(w.t(32, 64), axis=-1) * w.c(32, 64),
        lambda w: F().log_softmax(w.t(4, 16, 8), axis=1),
        lambda w: F().cross_entropy(w.t(32, 10), w.i(32, n=10)),
        lambda w: F().cross_entropy(w.t(32, 10), w.i(32, 1, n=10)),
        lambda w: F().cross_entropy(w.t(32, 10), w.i(32, n=10, dtype="int32")),
        lambda w: F().cross_entropy(w.t(32, 10), w.i(32, n=10), reduction="sum"),
        lambda w: F().cross_entropy(w.t(32, 10), w.i(32, n=10), reduction="none"),
        lambda w: F().cross_entropy(w.t(32, 10), w.i(32, n=10), weight=w.c(10, lo=0.5, hi=1)),
        lambda w: F().cross_entropy(w.t(32, 10), w.i(32, n=10), ignore_index=3),
        lambda w: F().cross_entropy(w.t(32, 10), w.i(32, n=10), label_smoothing=0.1),
        lambda w: F().cross_entropy(w.t(32, 10), F().softmax(w.c(32, 10)), soft_label=True),
        lambda w: F().cross_entropy(w.t(4, 10, 8), w.i(4, 8, n=10), axis=1),
        lambda w: F().cross_entropy(F().softmax(w.t(32, 10)), w.i(32, n=10),
                                    use_softmax=False),
        lambda w: F().nll_loss(F().log_softmax(w.t(32, 10)), w.i(32, n=10)),
        lambda w: F().nll_loss(F().log_softmax(w.t(32, 10)), w.i(32, n=10), reduction="sum"),
        weighted_nll_loss,
        lambda w: F().mse_loss(w.t(32, 64), w.c(32, 64)),
        lambda w: F().l1_loss(w.t(32, 64), w.c(32, 64)),
        lambda w: F().smooth_l1_loss(w.t(32, 64), w.c(32, 64)),
        lambda w: F().kl_div(F().log_softmax(w.t(32, 64)), F().softmax(w.c(32, 64))),
        lambda w: F().soft_margin_loss(w.t(32, 64), w.P.sign(w.c(32, 64))),
        lambda w: F().hinge_embedding_loss(w.t(32, 64), w.P.sign(w.c(32, 64))),
        lambda w: F().margin_ranking_loss(w.t(32, 64), w.t(32, 64), w.P.sign(w.c(32, 64))),
        lambda w: F().poisson_nll_loss(w.t(32, 64), w.c(32, 64, lo=0, hi=3)),
        lambda w: F().gaussian_nll_loss(w.t(32, 64), w.c(32, 64), w.t(32, 64, lo=0.5, hi=2)),
        lambda w: F().multi_label_soft_margin_loss(w.t(32, 64), w.P.round(w.c(32, 64, lo=0,
                                                                                 hi=1))),
        lambda w: F().cosine_embedding_loss(w.t(32, 64), w.t(32, 64),
                                            w.P.sign(w.c(32))),
        lambda w: F().triplet_margin_loss(w.t(32, 64), w.t(32, 64), w.t(32, 64)),
        lambda w: F().cosine_similarity(w.t(32, 64), w.t(32, 64)),
        lambda w: F().pairwise_distance(w.t(32, 64), w.t(32, 64)),
        lambda w: F().normalize(w.t(32, 64), axis=1),
        lambda w: F().multi_margin_loss(w.t(32, 10), w.i(32, n=10)),
        lambda w: F().sigmoid_focal_loss(w.t(32, 64), w.P.round(w.c(32, 64, lo=0, hi=1))),
        lambda w: F().huber_loss(w.t(32, 64), w.c(32, 64)) if hasattr(F(), "huber_loss")
        else None,
    ]


def weighted_nll_loss(w: Inputs) -> Any:
    """nll_loss with class weights: its total by vm/forward.py's weighted_total (the
    unweighted one takes forward_loss's fused kernel)."""
    import jitgrad.nn.functional as F
    return F.nll_loss(F.log_softmax(w.t(32, 10)), w.i(32, n=10),
                      weight=w.c(10, lo=0.5, hi=1.0))


def pads_5d(w: Inputs) -> Any:
    """Pads of an NCDHW tensor, floats and integers: their values by vm/forward_gather.py's
    pad4 (the 4-D pads above take pad_hw or numpy's copies)."""
    import jitgrad.nn.functional as F
    x = w.t(1, 2, 6, 6, 6)
    loss = F.pad(x, [1] * 6, mode="reflect") + F.pad(x, [1] * 6, mode="replicate") + \
        F.pad(x, [1] * 6, mode="circular")
    for idt in ("int32", "int64"):
        loss = loss + F.pad(w.ints(1, 2, 6, 6, 6, dtype=idt), [1] * 6,
                            mode="replicate").astype(w.dt)
    return loss


def _norms() -> list[Call]:
    def F() -> Any:
        import jitgrad.nn.functional as F
        return F
    return [
        lambda w: F().layer_norm(w.t(32, 64), 64, weight=w.t(64), bias=w.t(64)),
        lambda w: F().layer_norm(w.t(32, 64), 64),
        lambda w: F().layer_norm(w.t(4, 8, 16), [8, 16], weight=w.t(8, 16), bias=w.t(8, 16)),
        lambda w: F().batch_norm(w.t(32, 64), w.P.zeros([64], w.dt), w.P.ones([64], w.dt),
                                 weight=w.t(64), bias=w.t(64), training=True),
        lambda w: F().batch_norm(w.t(8, 4, 6, 6), w.P.zeros([4], w.dt), w.P.ones([4], w.dt),
                                 weight=w.t(4), bias=w.t(4), training=True),
        lambda w: F().batch_norm(w.t(8, 4, 6, 6), w.P.zeros([4], w.dt), w.P.ones([4], w.dt),
                                 weight=w.t(4), bias=w.t(4), training=False),
        lambda w: F().group_norm(w.t(8, 4, 6, 6), 2, weight=w.t(4), bias=w.t(4)),
        lambda w: F().instance_norm(w.t(8, 4, 6, 6), weight=w.t(4), bias=w.t(4)),
        lambda w: F().local_response_norm(w.t(2, 8, 6, 6), 3),
        lambda w: F().rms_norm(w.t(32, 64), 64, weight=w.t(64))[0]
        if hasattr(F(), "rms_norm") else None,
        lambda w: w.t(256, 256).sum() + w.t(256, 256).mean(),   # (pairwise_sum: 65536 up)
    ]


def _windows() -> list[Call]:
    def F() -> Any:
        import jitgrad.nn.functional as F
        return F
    return [
        lambda w: F().conv2d(w.t(2, 3, 16, 16), w.t(8, 3, 3, 3), w.t(8), padding=1),
        lambda w: F().conv2d(w.t(2, 3, 16, 16), w.t(8, 3, 3, 3), stride=2),
        lambda w: F().conv2d(w.t(2, 4, 16, 16), w.t(8, 2, 3, 3), groups=2, dilation=2),
        lambda w: F().conv1d(w.t(2, 3, 32), w.t(8, 3, 3), w.t(8), padding=1),
        lambda w: F().conv3d(w.t(1, 2, 6, 6, 6), w.t(4, 2, 3, 3, 3), padding=1),
        lambda w: F().conv2d_transpose(w.t(2, 4, 8, 8), w.t(4, 3, 3, 3), stride=2),
        lambda w: F().conv1d_transpose(w.t(2, 4, 16), w.t(4, 3, 3), stride=2),
        lambda w: F().max_pool2d(w.t(2, 3, 16, 16), 2),
        lambda w: F().max_pool2d(w.t(2, 3, 16, 16), 3, stride=2, padding=1),
        lambda w: F().max_pool2d(w.t(2, 3, 16, 16), 2, return_mask=True)[0],
        lambda w: F().max_pool1d(w.t(2, 3, 32), 2),
        lambda w: F().max_pool3d(w.t(1, 2, 8, 8, 8), 2),
        lambda w: F().avg_pool2d(w.t(2, 3, 16, 16), 2),
        lambda w: F().avg_pool2d(w.t(2, 3, 16, 16), 3, stride=2, padding=1),
        lambda w: F().avg_pool1d(w.t(2, 3, 32), 2),
        lambda w: F().avg_pool3d(w.t(1, 2, 8, 8, 8), 2),
        lambda w: F().adaptive_avg_pool2d(w.t(2, 3, 16, 16), 1),
        lambda w: F().adaptive_avg_pool2d(w.t(2, 3, 16, 16), 4),
        lambda w: F().adaptive_max_pool2d(w.t(2, 3, 16, 16), 4),
        lambda w: F().adaptive_avg_pool1d(w.t(2, 3, 32), 4),
        lambda w: F().interpolate(w.t(2, 3, 8, 8), scale_factor=2, mode="nearest"),
        lambda w: F().interpolate(w.t(2, 3, 8, 8), scale_factor=2, mode="bilinear"),
        lambda w: F().interpolate(w.t(2, 3, 8, 8), size=[11, 13], mode="bilinear",
                                  align_corners=True),
        lambda w: F().interpolate(w.t(2, 3, 8, 8), size=[11, 13], mode="bicubic"),
        lambda w: F().interpolate(w.t(2, 3, 16), scale_factor=2, mode="linear"),
        lambda w: F().upsample(w.t(2, 3, 8, 8), scale_factor=2, mode="nearest"),
        lambda w: F().pixel_shuffle(w.t(2, 8, 8, 8), 2),
        lambda w: F().pixel_unshuffle(w.t(2, 2, 8, 8), 2),
        lambda w: F().unfold(w.t(2, 3, 16, 16), 3, paddings=1),
        lambda w: F().fold(w.t(2, 27, 196), [16, 16], 3),
        lambda w: F().pad(w.t(2, 3, 40, 40), [1, 1, 1, 1]),
        lambda w: F().pad(w.t(2, 3, 40, 40), [1, 1, 1, 1], mode="reflect"),
        lambda w: F().pad(w.t(2, 3, 40, 40), [1, 1, 1, 1], mode="replicate"),
        lambda w: F().pad(w.t(2, 3, 40, 40), [1, 1, 1, 1], mode="circular"),
        lambda w: F().pad(w.t(2, 3, 16, 16), [1, 2, 1, 2], value=0.5),
        lambda w: F().pad(w.t(2, 3, 32), [2, 2], mode="reflect", data_format="NCL"),
        pads_5d,
        lambda w: F().pad(w.ints(2, 3, 40, 40), [1, 1, 1, 1]).astype(w.dt),
        lambda w: F().pad(w.ints(2, 3, 40, 40, dtype="int32"), [1, 1, 1, 1]).astype(w.dt),
        lambda w: F().grid_sample(w.t(2, 3, 8, 8), w.t(2, 6, 6, 2, lo=-1, hi=1)),
        lambda w: F().affine_grid(w.t(2, 2, 3), [2, 3, 8, 8]),
        lambda w: w.P.tile(w.t(2, 3, 8, 8), [1, 1, 2, 2]),
        lambda w: w.P.repeat_interleave(w.t(32, 64), 2, axis=1),
    ]


def _indexing() -> list[Call]:
    def P(w: Inputs) -> Any:
        return w.P
    calls: list[Call] = [
        lambda w: w.t(32, 64)[2:20:3, 5:],
        lambda w: w.t(32, 64)[5],
        lambda w: w.t(32, 64)[w.i(10, n=32)],
        lambda w: w.t(32, 64)[:, w.i(10, n=64)],
        lambda w: w.t(32, 64)[w.mask(32, 64)],
        lambda w: w.t(32, 64)[w.mask(32)],
        lambda w: P(w).gather(w.t(32, 64), w.i(10, n=32)),
        lambda w: P(w).gather(w.t(32, 64), w.i(10, n=64), axis=1),
        lambda w: P(w).index_select(w.t(32, 64), w.i(10, n=64), axis=1),
        lambda w: P(w).take_along_axis(w.t(32, 64), w.i(32, 5, n=64), axis=1),
        lambda w: P(w).take_along_axis(w.t(32, 64), w.i(5, 64, n=32), axis=0),
        lambda w: P(w).index_sample(w.t(32, 64), w.i(32, 5, n=64)),
        lambda w: P(w).gather_nd(w.t(32, 64), w.i(10, 2, n=32)),
        lambda w: P(w).take(w.t(32, 64), w.i(10, n=2048)),
        lambda w: P(w).masked_select(w.t(32, 64), w.mask(32, 64)),
        lambda w: P(w).masked_fill(w.t(32, 64), w.mask(32, 64), 0.5),
        lambda w: P(w).put_along_axis(w.t(32, 64), w.i(32, 5, n=64), w.t(32, 5), axis=1),
    ]
    return calls


def _scatter() -> list[Call]:
    def P(w: Inputs) -> Any:
        return w.P
    return [
        lambda w: P(w).put_along_axis(w.t(32, 64), w.i(32, 5, n=64), w.t(32, 5), axis=1,
                                      reduce="add"),
        lambda w: P(w).put_along_axis(w.t(32, 64), w.i(32, 5, n=64), w.t(32, 5), axis=1,
                                      reduce="amax"),
        lambda w: P(w).put_along_axis(w.t(32, 64), w.i(32, 5, n=64), w.t(32, 5), axis=1,
                                      reduce="amin"),
        lambda w: P(w).put_along_axis(w.t(32, 64), w.i(32, 5, n=64), w.t(32, 5), axis=1,
                                      reduce="mul"),
        lambda w: P(w).put_along_axis(w.t(32, 64), w.i(32, 5, n=64), w.t(32, 5), axis=1,
                                      reduce="mean"),
        lambda w: P(w).scatter(w.t(32, 64), w.i(10, n=32), w.t(10, 64)),
        lambda w: P(w).scatter(w.t(32, 64), w.i(10, n=32), w.t(10, 64), overwrite=False),
        lambda w: P(w).scatter_nd_add(w.t(32, 64), w.i(10, 1, n=32), w.t(10, 64)),
        lambda w: P(w).index_add(w.t(32, 64), w.i(10, n=32), 0, w.t(10, 64)),
        lambda w: P(w).index_put(w.t(32, 64), (w.i(10, n=32),), w.t(10, 64)),
        lambda w: P(w).index_fill(w.t(32, 64), w.i(10, n=32), 0, 0.5),
    ]


def _moves() -> list[Call]:
    def P(w: Inputs) -> Any:
        return w.P
    calls: list[Call] = [
        lambda w: P(w).unfold(w.t(32, 64), 1, 8, 4),
        lambda w: P(w).split(w.t(32, 64), 4, axis=1)[1],
        lambda w: P(w).chunk(w.t(32, 64), 4, axis=0)[2],
        lambda w: P(w).unbind(w.t(4, 64), axis=0)[1],
        lambda w: P(w).concat([w.t(32, 64), w.t(32, 64)], axis=1),
        lambda w: P(w).stack([w.t(32, 64), w.t(32, 64)], axis=1),
        lambda w: P(w).flip(w.t(32, 64), [1]),
        lambda w: P(w).roll(w.t(32, 64), 3, axis=1),
        lambda w: P(w).transpose(w.t(4, 8, 16), [2, 0, 1]),
        lambda w: P(w).broadcast_to(w.t(1, 64), [32, 64]),
        lambda w: P(w).expand(w.t(32, 1), [32, 64]),
        lambda w: P(w).narrow(w.t(32, 64), 1, 4, 20),
        lambda w: P(w).diagonal(w.t(32, 32)),
        lambda w: P(w).diag(w.t(32)),
        lambda w: P(w).tril(w.t(32, 32)) + P(w).triu(w.t(32, 32)),
        lambda w: P(w).nn.functional.embedding(w.i(32, n=50), w.t(50, 16)),
        lambda w: P(w).nn.functional.embedding(w.i(32, n=50, dtype="int32"), w.t(50, 16)),
        lambda w: P(w).nn.functional.one_hot(w.i(32, n=10), 10).astype(w.dt),
        lambda w: P(w).nonzero(w.mask(32, 64)).astype(w.dt),
        lambda w: P(w).where(w.mask(32, 64)).__getitem__(0).astype(w.dt),
        lambda w: P(w).bincount(w.i(64, n=10)).astype(w.dt),
        lambda w: P(w).histogram(w.c(64), bins=8).astype(w.dt),
    ]
    for idt in ("int32", "int64"):
        calls += [
            lambda w, idt=idt: w.t(32, 64)[w.i(10, n=32, dtype=idt)],
            lambda w, idt=idt: P(w).gather(w.t(32, 64), w.i(10, n=64, dtype=idt), axis=1),
            lambda w, idt=idt: P(w).index_select(w.t(32, 64), w.i(10, n=32, dtype=idt)),
            lambda w, idt=idt: P(w).take_along_axis(w.t(32, 64), w.i(32, 5, n=64, dtype=idt),
                                                    axis=1),
            lambda w, idt=idt: P(w).put_along_axis(w.t(32, 64), w.i(32, 5, n=64, dtype=idt),
                                                   w.t(32, 5), axis=1),
            lambda w, idt=idt: P(w).scatter(w.t(32, 64), w.i(10, n=32, dtype=idt),
                                            w.t(10, 64)),
        ]
        # the data-moving kernels take integer tensors too
        calls += [
            lambda w, idt=idt: w.ints(32, 64, dtype=idt)[2:20:3, 5:].astype(w.dt),
            lambda w, idt=idt: w.ints(32, 64, dtype=idt)[w.i(10, n=32)].astype(w.dt),
            lambda w, idt=idt: P(w).gather(w.ints(32, 64, dtype=idt), w.i(10, n=64),
                                           axis=1).astype(w.dt),
            lambda w, idt=idt: P(w).take_along_axis(w.ints(32, 64, dtype=idt),
                                                    w.i(32, 5, n=64), axis=1).astype(w.dt),
            lambda w, idt=idt: P(w).put_along_axis(w.ints(32, 64, dtype=idt),
                                                   w.i(32, 5, n=64),
                                                   w.ints(32, 5, dtype=idt),
                                                   axis=1).astype(w.dt),
            lambda w, idt=idt: P(w).concat([w.ints(32, 64, dtype=idt)] * 2).astype(w.dt),
            lambda w, idt=idt: P(w).flip(w.ints(32, 64, dtype=idt), [1]).astype(w.dt),
            lambda w, idt=idt: P(w).roll(w.ints(32, 64, dtype=idt), 3, axis=1).astype(w.dt),
            lambda w, idt=idt: P(w).tile(w.ints(2, 3, 8, 8, dtype=idt),
                                         [1, 1, 2, 2]).astype(w.dt),
            lambda w, idt=idt: P(w).masked_select(w.ints(32, 64, dtype=idt),
                                                  w.mask(32, 64)).astype(w.dt),
            lambda w, idt=idt: P(w).topk(w.ints(32, 64, dtype=idt), 3)[0].astype(w.dt),
            lambda w, idt=idt: P(w).max(w.ints(32, 64, dtype=idt), axis=1).astype(w.dt),
            lambda w, idt=idt: P(w).cumsum(w.ints(32, 64, dtype=idt), axis=1).astype(w.dt),
        ]
    return calls


def _linalg() -> list[Call]:
    def P(w: Inputs) -> Any:
        return w.P

    def spd(w: Inputs, n: int = 8) -> Any:
        m = w.t(n, n)
        return m @ m.T + P(w).eye(n, dtype=w.dt) * n
    return [
        lambda w: P(w).matmul(w.t(32, 64), w.t(64, 64)),
        lambda w: P(w).matmul(w.t(4, 32, 64), w.t(4, 64, 16)),
        lambda w: P(w).matmul(w.t(96, 96), w.t(96, 96)),         # the BLAS forward
        lambda w: P(w).bmm(w.t(4, 32, 64), w.t(4, 64, 16)),
        lambda w: P(w).nn.functional.linear(w.t(32, 64), w.t(64, 16), w.t(16)),
        lambda w: P(w).addmm(w.t(32, 16), w.t(32, 64), w.t(64, 16)),
        lambda w: P(w).einsum("ij,jk->ik", w.t(32, 64), w.t(64, 16)),
        lambda w: P(w).mv(w.t(32, 64), w.t(64)),
        lambda w: P(w).dot(w.t(64), w.t(64)),
        lambda w: P(w).kron(w.t(4, 8), w.t(8, 4)),
        lambda w: P(w).tensordot(w.t(4, 8, 16), w.t(16, 8), axes=1),
        lambda w: P(w).cross(w.t(32, 3), w.t(32, 3), axis=1),
        lambda w: P(w).cdist(w.t(32, 16), w.t(24, 16)),
        lambda w: P(w).dist(w.t(32, 16), w.t(32, 16)),
        lambda w: P(w).linalg.inv(spd(w)),
        lambda w: P(w).linalg.det(spd(w)),
        lambda w: P(w).linalg.slogdet(spd(w))[1],
        lambda w: P(w).linalg.solve(spd(w), w.t(8, 4)),
        lambda w: P(w).linalg.cholesky(spd(w)),
        lambda w: P(w).linalg.triangular_solve(spd(w), w.t(8, 4), upper=False),
        lambda w: P(w).linalg.triangular_solve(P(w).stack([spd(w), spd(w)]), w.t(2, 8, 4)),
        lambda w: P(w).linalg.cholesky_solve(w.t(8, 4), spd(w)),
        lambda w: P(w).linalg.qr(w.t(8, 6))[1],
        lambda w: P(w).linalg.svd(w.t(8, 6))[1],
        lambda w: P(w).linalg.eigh(spd(w))[0],
        lambda w: P(w).linalg.pinv(w.t(8, 6)),
        lambda w: P(w).linalg.lstsq(w.t(8, 6), w.t(8, 2))[0],
        lambda w: P(w).linalg.matrix_power(spd(w, 4) * 0.1, 3),
        lambda w: P(w).linalg.triangular_solve(P(w).triu(spd(w)), w.t(8, 4)),
        lambda w: P(w).linalg.cholesky_solve(w.t(8, 4), P(w).linalg.cholesky(spd(w))),
        lambda w: P(w).linalg.lu(spd(w))[0],
        lambda w: P(w).linalg.matrix_norm(w.t(8, 8)),
        lambda w: P(w).linalg.vector_norm(w.t(32, 64), axis=1),
    ]


def _outer() -> list[Call]:
    return [lambda w: w.P.outer(w.t(32), w.t(64)),
            lambda w: w.P.outer(w.t(64), w.t(1))]


CALLS: dict[str, Callable[[], list[Call]]] = {
    "float32_math": _float32_math,
    "forward_special": _special,
    "forward_binary": _binary,
    "forward_matrix": _outer,
    "forward_scatter": _scatter,
    "forward_activation": _activations,
    "forward_reduce": _reductions,
    "forward_order": _sorting,
    "forward_loss": _losses,
    "forward": _norms,
    "forward_window": _windows,
    "forward_gather": lambda: _indexing() + _moves(),
    "forward_linalg": _linalg,
    "numpy_exp": _numpy_exp,
}
