"""A convolution's input gradient runs one sample at a time (compile/interleave.py): the
batched column-gradient GEMM and its COL2IM become a pair per sample, bitwise equal to the
two-row form."""

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import interpreted_and_compiled
from jitgrad.compile import peephole
from jitgrad.compile.lower import lower

F = paddle.nn.functional
TT = paddle.to_tensor

CASES = {                            # (x shape, weight shape, conv2d keywords)
    "plain": ((3, 4, 9, 8), (5, 4, 3, 3), {"padding": 1}),
    "bias_stride": ((2, 3, 11, 10), (4, 3, 3, 2), {"stride": 2, "bias": True}),
    "groups_dilation": ((3, 4, 12, 12), (6, 2, 3, 3), {"groups": 2, "dilation": 2,
                                                        "padding": 2}),
}


def _grads(name, seed=0, text=True):
    xs, ws, kw = CASES[name]
    kw = dict(kw)
    rng = np.random.default_rng(seed)
    x = TT(rng.standard_normal(xs).astype(np.float32), stop_gradient=False)
    w = TT(rng.standard_normal(ws).astype(np.float32), stop_gradient=False)
    b = TT(rng.standard_normal(ws[0]).astype(np.float32), stop_gradient=False) \
        if kw.pop("bias", False) else None
    c = TT(rng.standard_normal(F.conv2d(x, w, b, **kw).shape).astype(np.float32))
    loss = (F.conv2d(x, w, b, **kw) * c).sum()
    text = lower([loss])[0].text() if text else ""
    loss.backward()
    return text, [t.grad.numpy() for t in (x, w, b) if t is not None]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_sample_has_its_own_gemm_and_col2im_with_the_same_bits(name, monkeypatch,
                                                                     fresh_cache):
    from jitgrad.core import config
    monkeypatch.setattr(config.SETTINGS, "interpret_new", False)    # (run the Program)
    samples = CASES[name][0][0]
    text, split = _grads(name)
    assert text.count("COL2IM") == samples
    monkeypatch.setattr(peephole, "interleave_col2im", lambda prog, protected: 0)
    paddle.cache_clear()
    text, whole = _grads(name)
    assert text.count("COL2IM") == 1
    for a, b in zip(split, whole):
        np.testing.assert_array_equal(a, b)


def test_one_sample_keeps_its_two_rows(fresh_cache):
    rng = np.random.default_rng(1)
    x = TT(rng.standard_normal((1, 2, 6, 6)).astype(np.float32), stop_gradient=False)
    w = TT(rng.standard_normal((3, 2, 3, 3)).astype(np.float32), stop_gradient=False)
    text = lower([F.conv2d(x, w).sum()])[0].text()
    assert text.count("COL2IM") == 1


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_new_structures_interpreted_conv_gradient_is_the_compiled_ones(name, fresh_cache):
    # the first backward of a new structure runs im2col's array rule (the COL2IM kernel
    # once Numba is loaded, where the vjp's scatter took 7.4 ms of an 8x16x32x32 conv2d)
    interpreted, compiled = interpreted_and_compiled(lambda: _grads(name, text=False)[1])
    for a, b in zip(interpreted, compiled):
        np.testing.assert_array_equal(a, b)
