"""vm/float32_math.py's kernels give float32 of the C library's float64 function, bit for
bit, as the numpy path they replace does where numpy's float64 functions are the C
library's: edges, NaN signs, subnormals, overflow and inputs whose float64 value sits next
to a float32 rounding boundary included (perf/check_float32_exhaustive.py checks all 2^32
inputs against numpy)."""

import math

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.vm import float32_math

NAMES = ["exp", "log", "expm1", "log1p", "log2", "log10", "cosh", "sinh", "atanh", "asinh",
         "acosh", "atan", "tan"]
PUBLIC = {"exp": paddle.exp, "log": paddle.log, "expm1": paddle.expm1, "log1p": paddle.log1p,
          "log2": paddle.log2, "log10": paddle.log10, "cosh": paddle.cosh, "sinh": paddle.sinh,
          "atanh": paddle.atanh, "asinh": paddle.asinh, "acosh": paddle.acosh,
          "atan": paddle.atan, "tan": paddle.tan}
NUMPY = {"atanh": np.arctanh, "asinh": np.arcsinh, "acosh": np.arccosh, "atan": np.arctan}


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


def _numpy(name):
    return NUMPY.get(name) or getattr(np, name)


# the NaN of a log, log2 or log10 of a negative number: Paddle 3.3.1's float32 values,
# measured on this x86-64 host (numpy's own differ between its AVX2 and AVX-512 builds)
INVALID_NAN_BITS = {"log": 0xFFC00000, "log2": 0xFFC00000, "log10": 0x7FC00000}


def _numpy_path(name, x):
    with np.errstate(all="ignore"):
        out = _numpy(name)(x.astype(np.float64)).astype(np.float32)
    if name in INVALID_NAN_BITS:
        out[x < 0] = np.uint32(INVALID_NAN_BITS[name]).view(np.float32)
    return out


@pytest.mark.parametrize("name", sorted(INVALID_NAN_BITS))
def test_a_log_of_a_negative_number_is_paddles_nan_on_both_paths(name, monkeypatch):
    x = np.array([-1.0, -2.5, -1e-45, -np.inf], np.float32)
    want = np.full(4, INVALID_NAN_BITS[name], np.uint32)
    out = np.empty_like(x)
    getattr(float32_math, name)(x, out)                 # the compiled kernel
    assert out.view(np.uint32).tolist() == want.tolist()
    from jitgrad.ops import rounded
    monkeypatch.setattr(rounded, "compiled_kernels", lambda module: None)   # (numpy's path)
    got = getattr(rounded, name)(x)
    assert got.view(np.uint32).tolist() == want.tolist()


def _c_library(name, x):
    """float32 of the C library's float64 f (Python's math module calls it): numpy's float64
    value where both must round alike, math's near a float32 rounding boundary (an AVX-512
    numpy has its own float64 functions, which may differ there in the last bit)."""
    want = _numpy_path(name, x)
    with np.errstate(all="ignore"):
        r = _numpy(name)(x.astype(np.float64))
        e = np.abs(r) * 2.0 ** -40
        near = np.isfinite(r) & ((r - e).astype(np.float32) != (r + e).astype(np.float32))
    f = getattr(math, name)
    flat, xs = want.reshape(-1), x.reshape(-1)
    for i in np.flatnonzero(near.reshape(-1)):
        flat[i] = np.float32(f(float(xs[i])))
    return want


def _inputs():
    edges = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 10.0, 1e-45, -1e-45, 1.2e-38,
                      88.72, 88.73, 89.4, 89.5, -87.3, -103.9, -104.0, -0.999999, 3.4e38,
                      -3.4e38, np.inf, -np.inf, np.nan, -np.nan], np.float32)
    rng = np.random.default_rng(7)
    random_bits = rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([edges, random_bits.view(np.float32),
                           rng.uniform(-100, 100, 100_000).astype(np.float32),
                           (rng.standard_normal(100_000) * 10.0 ** rng.uniform(-12, 1, 100_000)
                            ).astype(np.float32)])


def _same_bits(got, want):
    assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("name", NAMES)
def test_kernel_gives_float32_of_the_float64_function(name):
    x = _inputs()
    out = np.empty_like(x)
    getattr(float32_math, name)(x, out)
    _same_bits(out, _c_library(name, x))


# inputs whose float64 value lies within 2^-47 of a float32 rounding boundary (found by a
# search): the kernels' rounding test doubts them, so their second pass gives these
NEAR_BOUNDARY = {
    "exp": [15.536725997924805, 5.138779640197754, -1.4971097707748413],
    "log": [7.118867874145508, 0.9999998807907104, 0.2150343358516693],
    "expm1": [15.536725997924805, -14.62062931060791, 5.138779640197754],
    "log1p": [8.472636222839355, 6.118867874145508],
    "log2": [14.282694816589355, 8.837125778198242],
    "log10": [9.019835472106934, 6.710084915161133, 8.579720497131348],
    "cosh": [12.165956497192383, 7.874551773071289, -9.647483825683594],
    "sinh": [-1.4563792943954468, -1.046798586845398, 1.046798586845398],
    "atanh": [-0.04001248627901077, 0.10751114785671234, 0.632644534111023],
    "asinh": [-3.0195682048797607, 3.0195682048797607, -13.462355613708496],
    "acosh": [17.89236068725586, 4.836079120635986],
    "atan": [-0.14396265149116516, 5.971285343170166, -8.182710647583008],
    "tan": [8.724282264709473, -4.045515537261963],
}


@pytest.mark.parametrize("name", NAMES)
def test_inputs_next_to_a_rounding_boundary_are_the_c_librarys(name):
    x = np.array(NEAR_BOUNDARY[name], np.float32)
    r = _numpy(name)(x.astype(np.float64))
    e = np.abs(r) * 2.0 ** -47
    assert np.all((r - e).astype(np.float32) != (r + e).astype(np.float32))
    out = np.empty_like(x)
    getattr(float32_math, name)(x, out)
    _same_bits(out, np.array([math.__dict__[name](float(v)) for v in x], np.float32))


def test_the_rounding_test_doubts_all_that_the_float_test_did():
    """_near_boundary (bits of r next to a float32 tie, or a float32 subnormal r) doubts
    every r the former test did, float32(r - e) != float32(r + e) with e = 2^-46 |r|: r a
    few to 300 float64 ulps from ties at every mantissa range and across binades, ties
    next to FLT_MAX's (inf's) and subnormal ones, random r; inf and NaN are not doubted."""
    rng = np.random.default_rng(5)
    f32 = rng.integers(1, 0x7F7FFFFF, 4000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    f32 = np.concatenate([f32, np.float32([1, 2, 1.9999999, 0.99999994, 2.0 ** -126,
                                           np.finfo(np.float32).max])])
    ties = f32.astype(np.float64) + np.spacing(f32).astype(np.float64) / 2
    offsets = np.concatenate([np.arange(-300, 301), rng.integers(-2 ** 40, 2 ** 40, 50)])
    r = (ties.view(np.int64)[:, None] + offsets[None, :]).reshape(-1).view(np.float64)
    r = np.concatenate([r, -r, rng.standard_normal(20000) * 10.0 ** rng.uniform(-50, 50, 20000),
                        [1e-40, -1e-45, 0.0, -0.0]])
    got = np.array([float32_math._near_boundary(v) for v in r])
    with np.errstate(all="ignore"):
        e = np.abs(r) * 2.0 ** -46
        old = ((r - e).astype(np.float32) != (r + e).astype(np.float32)) & np.isfinite(r)
    assert old.sum() > 1000 and not np.any(old & ~got)
    assert got.mean() < 0.02 + old.mean() * 2          # (not much more)
    assert not any(float32_math._near_boundary(v) for v in (np.inf, -np.inf, np.nan, 0.0))


@pytest.mark.parametrize("name", NAMES)
def test_doubted_inputs_in_any_block_of_a_large_array_are_the_c_librarys(name):
    # the kernels redo one block of float32_math._BLOCK elements per doubt: a doubted input
    # at a block's first or last element, or in the short last block, is still caught
    block = float32_math._BLOCK
    n = 3 * block + 5
    x = np.full(n, 0.75, np.float32)
    near = np.array(NEAR_BOUNDARY[name], np.float32)
    where = [0, block - 1, block, 2 * block + 7, n - 1]
    for k, pos in enumerate(where):
        x[pos] = near[k % near.size]
    out = np.empty_like(x)
    getattr(float32_math, name)(x, out)
    want = np.float32(np.array([math.__dict__[name](float(v)) for v in x[where]]))
    _same_bits(out[where], want)
    _same_bits(out, _c_library(name, x))


@pytest.mark.parametrize("name", NAMES)
def test_the_op_forward_and_gradient_use_it(name):
    rng = np.random.default_rng(3)
    low, high = {"atanh": (-0.9, 0.9), "acosh": (1.1, 4.0),
                 "tan": (-1.4, 1.4)}.get(name, (0.2, 3.0))
    data = rng.uniform(low, high, (4, 6)).astype(np.float32)
    x = paddle.to_tensor(data, stop_gradient=False)
    y = PUBLIC[name](x)
    _same_bits(y.numpy(), _c_library(name, data))
    y.sum().backward()
    slope = {"exp": np.exp, "log": lambda d: 1 / d, "expm1": np.exp,
             "log1p": lambda d: 1 / (1 + d), "log2": lambda d: 1 / (d * np.log(2)),
             "log10": lambda d: 1 / (d * np.log(10)), "cosh": np.sinh, "sinh": np.cosh,
             "atanh": lambda d: 1 / (1 - d * d), "asinh": lambda d: 1 / np.sqrt(d * d + 1),
             "acosh": lambda d: 1 / np.sqrt(d * d - 1), "atan": lambda d: 1 / (1 + d * d),
             "tan": lambda d: 1 / np.cos(d) ** 2}[name](data.astype(np.float64))
    np.testing.assert_allclose(x.grad.numpy(), slope, rtol=2e-7)


def test_cosh_and_sinh_save_each_other_as_the_derivative():
    data = np.array([-2.5, -0.3, 0.0, 0.7, 4.0], np.float32)
    for fn, other in ((paddle.cosh, "sinh"), (paddle.sinh, "cosh")):
        x = paddle.to_tensor(data, stop_gradient=False)
        fn(x).sum().backward()
        _same_bits(x.grad.numpy(), _c_library(other, data))


def test_read_only_and_empty_inputs():
    data = np.linspace(-2, 2, 12, dtype=np.float32)
    data.flags.writeable = False
    got = paddle.sinh(paddle.to_tensor(data)).numpy()
    _same_bits(got, _c_library("sinh", data))
    assert paddle.exp(paddle.to_tensor(np.zeros((0, 3), np.float32))).shape == [0, 3]


def test_strided_and_zero_d_inputs():
    data = np.random.default_rng(5).uniform(-3, 3, (6, 8)).astype(np.float32)
    view = paddle.to_tensor(data)[:, ::3]
    _same_bits(paddle.cosh(view).numpy(), _c_library("cosh", data[:, ::3]))
    scalar = paddle.to_tensor(np.float32(0.75))
    got = paddle.log1p(scalar).numpy()
    assert got.shape == ()
    _same_bits(got, _c_library("log1p", np.asarray(np.float32(0.75))))


def test_float64_inputs_keep_numpys_float64_functions():
    data = np.random.default_rng(6).uniform(0.1, 3, 50)
    for name, fn in PUBLIC.items():
        with np.errstate(all="ignore"):
            want = _numpy(name)(data)
        assert np.array_equal(fn(paddle.to_tensor(data)).numpy(), want, equal_nan=True)


def test_a_large_array_is_split_between_threads_with_the_same_bits(split_counter):
    # the kernels release the GIL: threads.split shares a big array's blocks between
    # threads; each element is computed alone, so any split gives the same values
    from jitgrad.ops import rounded
    from jitgrad.vm import threads
    paddle.warmup(quiet=True)
    x = np.random.default_rng(5).uniform(-3, 3, 20_000).astype(np.float32)
    split = rounded.exp(x)
    assert split_counter["n"] >= 1
    threads.set_num_threads(1)
    np.testing.assert_array_equal(split, rounded.exp(x))
    np.testing.assert_array_equal(split, np.exp(x.astype(np.float64)).astype(np.float32))
