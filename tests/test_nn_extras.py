"""ops/nn_extras.py and nn/extra_layers.py (perf/paddle_cases/nn_extras.py compares the
deterministic ones with Paddle 3.3.1)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

F = paddle.nn.functional
TT = paddle.to_tensor


def test_swiglu_and_rms_norm():
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    silu = lambda v: v / (1 + np.exp(-v))                      # noqa: E731
    np.testing.assert_allclose(F.swiglu(TT(x)).numpy(), silu(x[:, :2]) * x[:, 2:], rtol=1e-12)
    out, inv = F.rms_norm(TT(x), [4], weight=TT(np.array([1.0, 2.0, 1.0, 2.0])))
    r = 1 / np.sqrt((x * x).mean() + 1e-5)
    np.testing.assert_allclose(out.numpy(), x * r * [1, 2, 1, 2], rtol=1e-12)
    assert inv.shape == [1] and inv.item() == pytest.approx(r)
    check_grads(lambda t: F.rms_norm(t, [3])[0], np.random.default_rng(0).standard_normal((2, 3)),
                order=2)
    with pytest.raises(ValueError, match="trailing dims"):
        F.rms_norm(TT(x), [3])


def test_pixel_unshuffle_inverts_pixel_shuffle_and_channel_shuffle_interleaves():
    x = TT(np.arange(2 * 8 * 4 * 6, dtype="float64").reshape(2, 8, 4, 6))
    assert F.pixel_shuffle(F.pixel_unshuffle(x, 2), 2).tolist() == x.tolist()
    y = F.channel_shuffle(TT(np.arange(6.0).reshape(1, 6, 1, 1)), 2).numpy().ravel()
    assert y.tolist() == [0, 3, 1, 4, 2, 5]
    check_grads(lambda t: F.pixel_unshuffle(t, 2) * TT(np.linspace(0, 1, 96).reshape(1, 8, 2, 6)),
                np.random.default_rng(1).standard_normal((1, 2, 4, 12)))


def test_sequence_mask_and_zeropad2d():
    assert F.sequence_mask(TT([1, 3, 0]), 4).tolist() == [[1, 0, 0, 0], [1, 1, 1, 0],
                                                          [0, 0, 0, 0]]       # Paddle 3.3.1
    assert F.sequence_mask(TT([2, 1]), dtype="bool").dtype == paddle.bool
    assert F.zeropad2d(TT(np.ones((1, 1, 2, 2), "float32")), [1, 0, 0, 2]).shape == [1, 1, 4, 3]


def test_channel_dropout_zeroes_whole_channels_and_rescales():
    paddle.seed(0)
    x = TT(np.ones((20, 50, 3, 3), "float32"), stop_gradient=False)
    y = F.dropout2d(x, 0.4)
    per_channel = y.numpy().reshape(20, 50, 9)
    assert set(np.unique(per_channel)) == {0.0, np.float32(1 / 0.6)}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()          # one value a channel
    assert abs((per_channel[..., 0] == 0).mean() - 0.4) < 0.05
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), y.numpy())                   # the mask times scale
    assert F.dropout3d(TT(np.ones((2, 3, 2, 2, 2), "float32")), training=False).tolist() == \
        np.ones((2, 3, 2, 2, 2)).tolist()


def test_alpha_dropout_keeps_mean_and_variance_of_standard_normal_input():
    paddle.seed(1)
    x = np.random.default_rng(2).standard_normal(400000).astype("float32")
    y = F.alpha_dropout(TT(x), 0.2).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1.0) < 0.01
    f = F.feature_alpha_dropout(TT(np.ones((4, 6, 5), "float32")), 0.5).numpy()
    assert (f.min(-1) == f.max(-1)).all()
    layer = paddle.nn.AlphaDropout(0.3)
    layer.eval()
    assert layer(TT(x[:4])).tolist() == x[:4].tolist()
    with pytest.raises(ValueError, match=r"p must be in \[0, 1\]"):
        paddle.nn.Dropout2D(1.5)


def test_extra_losses_and_bilinear_gradients():
    rng = np.random.default_rng(7)
    lab = TT(np.array([0, 3, 1]))
    check_grads(lambda x: F.multi_margin_loss(x, lab, p=2), rng.standard_normal((3, 4)))
    check_grads(lambda x: F.dice_loss(x, TT(np.array([[[1], [0]], [[2], [1]]]))),
                rng.uniform(0.1, 1.0, (2, 2, 3)))
    check_grads(lambda a, p: F.npair_loss(a, p, TT(np.array([0.0, 1.0, 0.0]))),
                rng.standard_normal((3, 2)), rng.standard_normal((3, 2)))
    check_grads(lambda a, b, w: F.bilinear(a, b, w), rng.standard_normal((2, 3)),
                rng.standard_normal((2, 2)), rng.standard_normal((4, 3, 2)))
    x1, x2, w = rng.standard_normal((2, 3)), rng.standard_normal((2, 2)), \
        rng.standard_normal((4, 3, 2))
    want = np.einsum("ni,oij,nj->no", x1, w, x2)
    np.testing.assert_allclose(F.bilinear(TT(x1), TT(x2), TT(w)).numpy(), want, rtol=1e-12)
    layer = paddle.nn.Bilinear(3, 2, 4)
    assert [p.shape for p in layer.parameters()] == [[4, 3, 2], [1, 4]]       # Paddle 3.3.1
    with pytest.raises(ValueError, match="labels must lie"):
        F.multi_margin_loss(TT(np.ones((2, 3))), TT(np.array([0, 3])))


def test_gumbel_softmax_rrelu_lp_pool_and_dropout1d():
    paddle.seed(3)
    logits = TT(np.log(np.array([[0.2, 0.5, 0.3]] * 20000, "float32")), stop_gradient=False)
    hard = F.gumbel_softmax(logits, hard=True)
    counts = hard.numpy().sum(0) / 20000
    assert set(np.unique(hard.numpy())) == {0.0, 1.0} and np.allclose(counts, [0.2, 0.5, 0.3],
                                                                       atol=0.015)
    hard.sum().backward()                   # straight through: the soft sample's gradient
    assert np.abs(logits.grad.numpy()).max() < 1e-5      # (softmax rows sum to 1)
    x = TT(np.linspace(-2, 2, 200).astype("float32"))
    leaf = TT(np.linspace(-2, 2, 200).astype("float32"), stop_gradient=False)
    y = F.rrelu(leaf, 0.1, 0.3)
    slope = (y.numpy() / x.numpy())[x.numpy() < 0]
    assert slope.min() >= 0.1 and slope.max() <= 0.3 and len(np.unique(slope)) > 50
    y.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), (y.numpy() / x.numpy()), rtol=1e-5)
    assert F.rrelu(TT([-1.0]), 0.1, 0.3, training=False).tolist() == [pytest.approx(-0.2)]
    check_grads(lambda t: F.lp_pool2d(t, 3, 2, stride=1),
                np.random.default_rng(4).uniform(0.2, 2.0, (1, 2, 3, 3)))
    assert F.dropout1d(TT(np.ones((3, 4), "float32")), 0.5, training=False).shape == [3, 4]


def test_fold_is_unfolds_adjoint_and_max_unpool_inverts_max_pool():
    rng = np.random.default_rng(8)
    x, cols = rng.standard_normal((1, 2, 5, 6)), rng.standard_normal((1, 2 * 6, 18))
    u = F.unfold(TT(x), [2, 3], strides=[2, 1], paddings=1)
    f = F.fold(TT(cols), [5, 6], [2, 3], strides=[2, 1], paddings=1)
    assert (u.numpy() * cols).sum() == pytest.approx((x * f.numpy()).sum(), rel=1e-10)
    check_grads(lambda c: F.fold(c, [5, 6], [2, 3], strides=[2, 1], paddings=1), cols)
    with pytest.raises(ValueError, match="blocks"):
        F.fold(TT(cols), [4, 4], 2)
    img = TT(rng.standard_normal((1, 2, 4, 4)))
    pooled, mask = F.max_pool2d(img, 2, return_mask=True)
    back = F.max_unpool2d(pooled, mask, 2).numpy()
    kept = back != 0
    assert kept.sum() == 8 and np.array_equal(back[kept], img.numpy()[kept])
    check_grads(lambda t: F.max_unpool2d(t, mask, 2), pooled.numpy())


def test_temporal_shift_and_local_response_norm():
    x = np.arange(4 * 4, dtype="float64").reshape(4, 4, 1, 1) + 1       # N 2, T 2, C 4
    got = F.temporal_shift(TT(x), 2, 0.25).numpy().reshape(2, 2, 4)
    assert got.tolist() == [[[0, 6, 3, 4], [1, 0, 7, 8]],
                            [[0, 14, 11, 12], [9, 0, 15, 16]]]            # Paddle 3.3.1's rule
    assert F.temporal_shift(TT(x), 1, 0.25).numpy().reshape(4, 4)[:, :2].tolist() == [[0, 0]] * 4
    check_grads(lambda t: F.temporal_shift(t, 2, 0.25) * TT(np.linspace(1, 2, 16).reshape(
        4, 4, 1, 1)), x)
    v = np.random.default_rng(9).standard_normal((1, 4, 2))
    sq = np.pad(v * v, ((0, 0), (1, 1), (0, 0)))
    window = sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]
    np.testing.assert_allclose(F.local_response_norm(TT(v), 3, alpha=0.3).numpy(),
                               v / (1.0 + 0.1 * window) ** 0.75, rtol=1e-12)
    check_grads(lambda t: F.local_response_norm(t, 3, alpha=0.5), v)
