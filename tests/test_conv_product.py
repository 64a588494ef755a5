"""conv2d's weight gradient is computed transposed (ops/conv_product.py): one GEMM per group
gives cols @ dY^T [R, O/G] summed over the samples, a strided read (STRIDED) puts it in the
weight's layout.
The input gradient keeps its GEMMs and COL2IM (bitwise the matmul composition's); the weight
and bias gradients agree with it to float32 rounding (another BLAS kernel order)."""

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import interpreted_and_compiled
from jitgrad.compile.lower import lower
from jitgrad.ops.im2col import im2col
from jitgrad.ops.indexing import concat
from jitgrad.ops.linalg import matmul
from jitgrad.ops.shape import reshape
from jitgrad.vm.program import OP

F = paddle.nn.functional
TT = paddle.to_tensor

CASES = {   # x shape, weight shape, bias, stride, padding, dilation, groups
    "plain": ((3, 4, 9, 8), (5, 4, 3, 3), False, 1, 1, 1, 1),
    "bias_stride": ((2, 3, 11, 10), (4, 3, 3, 2), True, 2, 0, 1, 1),
    "groups_dilation": ((3, 4, 12, 12), (6, 2, 3, 3), True, 1, 2, 2, 2),
    "more_filters_than_rows": ((2, 1, 7, 7), (12, 1, 2, 2), True, 1, 1, 1, 1),  # 12 > 5
    # 9 * 1024 * 16 per channel: blocks of 6 channels (then 2) under OpenBLAS's 100^3
    "channel_blocks": ((2, 8, 32, 32), (16, 8, 3, 3), True, 1, 1, 1, 1),
    "channel_blocks_stride": ((2, 12, 64, 63), (16, 12, 3, 3), False, 2, 1, 1, 1),
    "channel_blocks_dilation": ((3, 8, 40, 40), (16, 8, 3, 3), True, 1, 2, 2, 1),
}
OUTPUT_PIXELS = {"plain": 9 * 8, "bias_stride": 5 * 5, "groups_dilation": 12 * 12,
                 "more_filters_than_rows": 8 * 8}
BLOCKED = {"channel_blocks": [6, 2], "channel_blocks_stride": [6, 6],
           "channel_blocks_dilation": [4, 4]}


def _inputs(name, dtype="float32"):
    xs, ws, bias = CASES[name][:3]
    rng = np.random.default_rng(0)
    x = TT(rng.standard_normal(xs).astype(dtype), stop_gradient=False)
    w = TT(rng.standard_normal(ws).astype(dtype), stop_gradient=False)
    b = TT(rng.standard_normal(ws[0]).astype(dtype), stop_gradient=False) if bias else None
    return x, w, b


def _matmul_conv2d(x, w, b, stride, padding, dilation, groups):
    """conv2d as it was recorded before conv_product: im2col, matmul, reshape."""
    N, C, H, W = x.shape
    out_ch, Cg, kh, kw = w.shape
    p = ((padding, padding), (padding, padding))
    cols = im2col(x, (kh, kw), (stride, stride), (dilation, dilation), p, groups,
                  ones_row=b is not None)
    w3 = reshape(w, [groups, out_ch // groups, Cg * kh * kw])
    if b is not None:
        w3 = concat([w3, reshape(b, [groups, out_ch // groups, 1])], axis=2)
    Ho = (H + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    Wo = (W + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    return reshape(matmul(w3, cols), [N, out_ch, Ho, Wo])


def _grads(conv, name, dtype="float32"):
    x, w, b = _inputs(name, dtype)
    stride, padding, dilation, groups = CASES[name][3:]
    y = conv(x, w, b, stride, padding, dilation, groups)
    c = TT(np.random.default_rng(1).standard_normal(y.shape).astype(dtype))
    loss = (y * c).sum()
    prog = lower([loss])[0]
    loss.backward()
    return prog, [t.grad.numpy() for t in (x, w, b) if t is not None]


def _conv2d(x, w, b, stride, padding, dilation, groups):
    return F.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation,
                    groups=groups)


def _weight_gemms(prog):
    """(batches, m, n, k) of each GEMM row summing over its batches (stride of C 0)."""
    out = []
    for row in prog.code:
        if int(row[0]) >> 1 == OP["GEMM"]:
            nb, m, n, k = (int(v) for v in prog.itab[row[6]:row[6] + 4])
            if int(prog.itab[row[6] + 8]) == 0:
                out.append((nb, m, n, k))
    return out


@pytest.mark.parametrize("name", ["plain", "bias_stride", "groups_dilation"])
def test_the_weight_gradient_is_one_transposed_gemm_per_group_over_the_samples(name):
    xs, ws, bias, _, _, _, groups = CASES[name]
    rows = ws[1] * ws[2] * ws[3] + bias                 # R: the columns' rows
    prog, _ = _grads(_conv2d, name)
    # (matmul's rows were one GEMM [O, R] of m = O, or a batched one then a ROWSUM)
    assert _weight_gemms(prog) == [(xs[0], rows, ws[0] // groups, OUTPUT_PIXELS[name])] * groups


def test_more_filters_than_column_rows_keep_matmuls_orientation():
    prog, _ = _grads(_conv2d, "more_filters_than_rows")
    assert _weight_gemms(prog) == [(2, 12, 5, OUTPUT_PIXELS["more_filters_than_rows"])]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_are_the_matmul_compositions(name, dtype, fresh_cache):
    _, new = _grads(_conv2d, name, dtype)
    _, old = _grads(_matmul_conv2d, name, dtype)
    if name in BLOCKED:     # the input's: OpenBLAS's small-matrix kernel on each block
        np.testing.assert_allclose(new[0], old[0], rtol=1e-5, atol=1e-5)
    else:                   # the same products
        np.testing.assert_array_equal(new[0], old[0])
    transposed = name != "more_filters_than_rows"
    eps = np.finfo(dtype).eps
    for a, b in zip(new[1:], old[1:]):
        if transposed:      # sums of up to 4800 products, in another order: a few eps of
            np.testing.assert_allclose(a, b, rtol=100 * eps,    # the largest gradient
                                       atol=16 * eps * np.abs(b).max())
        else:
            np.testing.assert_array_equal(a, b)


def test_weight_gradient_matches_finite_differences():
    x, w, b = (t.numpy().astype(np.float64) for t in _inputs("groups_dilation"))
    stride, padding, dilation, groups = CASES["groups_dilation"][3:]
    c = np.random.default_rng(1).standard_normal((3, 6, 12, 12))

    def loss(wv):
        y = _conv2d(TT(x), TT(wv), TT(b), stride, padding, dilation, groups)
        return float((y.numpy() * c).sum())

    wt = TT(w, stop_gradient=False)
    (_conv2d(TT(x), wt, TT(b), stride, padding, dilation, groups) * TT(c)).sum().backward()
    eps, fd = 1e-6, np.zeros_like(w)
    for i in np.ndindex(w.shape):
        up, down = w.copy(), w.copy()
        up[i] += eps
        down[i] -= eps
        fd[i] = (loss(up) - loss(down)) / (2 * eps)
    np.testing.assert_allclose(wt.grad.numpy(), fd, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(BLOCKED))
def test_the_input_gradient_runs_blocks_of_channels_per_sample(name):
    xs, ws = CASES[name][:2]
    prog, _ = _grads(_conv2d, name)
    code = prog.code
    col2im = [r for r in range(len(code)) if int(code[r, 0]) >> 1 == OP["COL2IM"]]
    channels = [int(prog.itab[code[r, 6] + 1]) for r in col2im]
    assert channels == BLOCKED[name] * xs[0]
    rows = [int(prog.itab[code[r - 1, 6] + 1]) for r in col2im]     # each one's GEMM
    assert rows == [c * ws[2] * ws[3] for c in channels]


@pytest.mark.parametrize("name", sorted(BLOCKED))
def test_blocked_input_gradients_interpreted_are_the_compiled_ones(name, fresh_cache):
    # (the input's only: with 1024+ pixels BLAS splits the weight's sum over them, adding
    # each part into C, where the array rule adds each sample's whole product)
    interpreted, compiled = interpreted_and_compiled(lambda: _grads(_conv2d, name)[1])
    np.testing.assert_array_equal(interpreted[0], compiled[0])


@pytest.mark.parametrize("name, rows", [("channel_blocks", [61, 12]),
                                        ("channel_blocks_stride", [61, 47]),
                                        ("channel_blocks_dilation", [39, 34])])
def test_many_pixels_split_the_weight_gradient_into_blocks_of_rows(name, rows):
    # (16 filters, 1024+ pixels: SMALL_GEMM // (16 * pixels) rows of the columns a GEMM)
    xs, ws = CASES[name][:2]
    prog, _ = _grads(_conv2d, name)
    pixels = {"channel_blocks": 1024, "channel_blocks_stride": 1024,
              "channel_blocks_dilation": 1600}[name]
    assert _weight_gemms(prog) == [(xs[0], m, ws[0], pixels) for m in rows]


def _blocked_operands(groups, seed=2):
    rng = np.random.default_rng(seed)       # R 73 rows, 16 filters a group, S 1024
    w = rng.standard_normal((groups, 16, 73)).astype(np.float32)
    cols = rng.standard_normal((2, groups, 73, 1024)).astype(np.float32)
    return w, cols


@pytest.mark.parametrize("groups", [1, 2])
def test_the_blocked_forward_makes_the_same_calls_with_or_without_numba(groups, monkeypatch):
    from jitgrad.ops import conv_product as CP
    from jitgrad.vm import blas_lib
    paddle.warmup(quiet=True)
    w, cols = _blocked_operands(groups)
    compiled = CP._product(w, cols)
    blocks, calls = [], blas_lib.conv_forward_blocks

    def spy(wt, c, out, block):
        blocks.append(block)
        return calls(wt, c, out, block)
    monkeypatch.setattr(CP, "compiled_kernels", lambda module: None)   # (Numba not loaded)
    monkeypatch.setattr(blas_lib, "conv_forward_blocks", spy)
    np.testing.assert_array_equal(CP._product(w, cols), compiled)
    assert blocks == [61]                   # 100^3 // (16 * 1024)
    want = np.matmul(w.astype(np.float64), cols.astype(np.float64))
    np.testing.assert_allclose(compiled, want, rtol=1e-5, atol=1e-5)


def test_few_pixels_keep_numpys_product():
    from jitgrad.ops import conv_product as CP
    w, cols = _blocked_operands(1)
    cols = np.ascontiguousarray(cols[..., :512])            # S 512: one GEMM
    np.testing.assert_array_equal(CP._product(w, cols), np.matmul(w, cols))


def test_a_convolution_keeps_nothing_alive_after_its_graph_is_gone():
    # conv_product was memoised by its tensors (an lru_cache left over from a removed
    # helper): 64 outputs, their columns and graphs stayed alive, and a call with the same
    # tensors after an in-place change would have returned the old output
    import gc
    import weakref
    x = paddle.to_tensor(np.ones((2, 3, 6, 6), "float32"))
    k = paddle.to_tensor(np.ones((4, 3, 3, 3), "float32"), stop_gradient=False)
    y = paddle.nn.functional.conv2d(x, k, padding=1)
    alive = weakref.ref(y)
    del y
    gc.collect()
    assert alive() is None
