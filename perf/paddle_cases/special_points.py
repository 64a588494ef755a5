# Unary ops at special points: the infinities, +-0, nan, tiny and huge values, and the kinks.
# Each op's values and gradient (weighted sum, so one element's inf or nan leaves the others'
# gradients alone) against Paddle 3.3.1. The known ones are README's deliberate differences.
import numpy as np

PTS = np.array([-np.inf, -10, -2, -1, -0.5, -0.0, 0.0, 0.5, 1, 2, 10, np.inf, np.nan,
                1e-30, -1e-30, 88.0, 100.0], "float32")
FINITE = PTS[np.isfinite(PTS)]

KNOWN = {
    "points.abs": "abs'(+-inf) is +-1 (Paddle: NaN)",
    "points.acosh": "acosh'(inf) is 0 (Paddle: NaN)",
    "points.asinh": "asinh'(+-inf) is 0 (Paddle: NaN)",
    "points.digamma": "digamma'(inf) is 0 (Paddle: NaN)",
    "points.erfinv": "erfinv outside [-1, 1] is NaN, as numpy (Paddle: +-inf)",
    "points.sqrt": "sqrt(inf) is inf (Paddle: NaN), sqrt(-0.0) is -0.0 (IEEE; Paddle: 0)",
    "points.sinc": "sinc(+-inf) and sinc(nan) are NaN, as numpy (Paddle: 1)",
    "points.F.relu": "relu(nan) is NaN, as torch (Paddle: 0)",
    "points.F.selu": "selu'(nan) is NaN (Paddle: the scale)",
    "points.F.celu": "celu'(x) is 1 for large x (Paddle: NaN from x = 100 on, an overflow)",
    "points.F.silu": "silu'(inf) is NaN (Paddle: inf; the limit is 1)",
    "points.F.softshrink": "softshrink(+-inf) is +-inf (Paddle: NaN)",
    "points.F.hardshrink": "hardshrink'(nan) is 1 (Paddle: 0)",
    "points.F.hardswish": "hardswish'(+-inf) is 0 and 1, hardswish'(nan) 0 (Paddle: NaN)",
    "points.F.leaky_relu": "leaky_relu'(nan) is the slope (Paddle: 0)",
    "points.F.log_sigmoid": "log_sigmoid(-inf) is -inf (Paddle: NaN)",
    "points.F.thresholded_relu": "thresholded_relu(-inf) is 0 (Paddle: NaN)",
}

TOP = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh",
       "digamma", "erf", "erfinv", "exp", "expm1", "floor", "lgamma", "log", "log10", "log1p",
       "log2", "logit", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh",
       "sqrt", "square", "tan", "tanh", "trunc", "frac", "sinc", "neg", "deg2rad", "rad2deg",
       "nan_to_num"]
NN = ["relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "mish", "softplus", "softsign",
      "softshrink", "hardshrink", "hardswish", "hardsigmoid", "hardtanh", "leaky_relu",
      "log_sigmoid", "tanhshrink", "thresholded_relu", "swish", "sigmoid", "tanh"]

for name in TOP:
    cmp(f"points.{name}", lambda P, a, n=name: getattr(P, n)(a), [PTS])
for name in NN:
    cmp(f"points.F.{name}", lambda P, a, n=name: getattr(P.nn.functional, n)(a), [PTS])
cmp("points.F.gelu_tanh", lambda P, a: P.nn.functional.gelu(a, approximate=True), [PTS])
cmp("points.pow_tensor", lambda P, a, b: P.pow(a, b),
    [np.repeat(FINITE[:8], 4), np.tile(np.array([2.0, 2.5, 0.0, -1.0], "float32"), 8)])

# Binary ops on every pair of -inf, -2, -0.0, 0.0, 1.5, inf, nan.
KNOWN.update({
    "bpoints.hypot": "hypot with an infinite side is inf, as IEEE and numpy (Paddle: NaN)",
    "bpoints.logaddexp": "logaddexp at infinities: the limits (Paddle: NaN)",
    "bpoints.heaviside": "heaviside(nan, y) is NaN, as numpy (Paddle: 0)",
    "bpoints.remainder": "remainder's d/dy at infinite operands: -floor_divide(x, y), "
                         "numpy's (Paddle: -floor(x / y))",
})
_V = np.array([-np.inf, -2, -0.0, 0.0, 1.5, np.inf, np.nan], "float32")
_BX, _BY = (a.ravel().copy() for a in np.meshgrid(_V, _V))
for name in ["add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin",
             "atan2", "remainder", "hypot", "pow", "logaddexp", "heaviside", "floor_divide"]:
    cmp(f"bpoints.{name}", lambda P, a, b, n=name: getattr(P, n)(a, b), [_BX, _BY])
