"""Attention: F.scaled_dot_product_attention, nn.MultiHeadAttention and the Transformer
encoder. Values recorded from Paddle 3.3.1 (perf/paddle_cases/attention.py compares many
more calls), gradients against finite differences to second order, the program cache."""

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.testing import check_grads

TT = paddle.to_tensor


def _mha():
    """Paddle-probe weights: sorted parameter i = linspace(-0.5, 0.5) * (1 + 0.1 i)."""
    m = paddle.nn.MultiHeadAttention(4, 2, need_weights=True)
    for i, (_, p) in enumerate(sorted(m.named_parameters(), key=lambda kv: kv[0])):
        k = int(np.prod(p.shape))
        p.set_value((np.linspace(-0.5, 0.5, k) * (1 + 0.1 * i)).reshape(p.shape)
                    .astype("float32"))
    return m


X = np.array([[[0.5, -1.0, 0.25, 2.0], [1.5, 0.25, -0.5, 0.0], [-0.75, 1.0, 1.0, -1.0]]],
             "float32")
MASK = np.array([[True, False, True], [True, True, False], [False, True, True]])


def test_multi_head_attention_with_a_bool_mask_matches_paddle():
    """Measured on Paddle 3.3.1: False is masked ((m - 1) * 1e9 added), need_weights
    appends the [B, heads, L, S] softmax weights."""
    m = _mha()
    x = TT(X, stop_gradient=False)
    out, w = m(x, attn_mask=TT(MASK))
    np.testing.assert_allclose(out.numpy()[0], [[0.3658336, 1.1215948, 1.877356, 2.6331172],
                                                [1.416828, 1.5285412, 1.6402543, 1.751967],
                                                [1.0301744, 1.1729258, 1.3156773, 1.4584286]],
                               rtol=1e-5)
    np.testing.assert_allclose(w.numpy()[0, 1], [[0.9381518, 0, 0.0618482],
                                                 [0.2569601, 0.7430398, 0],
                                                 [0, 0.4327295, 0.5672706]], rtol=1e-5)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[0, 2], [0.4193239, 0.4922092, 0.5650946,
                                                      0.63798], rtol=1e-5)
    np.testing.assert_allclose(m.q_proj.weight.grad.numpy()[0],
                               [-0.2005547, -0.2657935, 2.2488594, 2.3354697], rtol=1e-4)


def test_int_and_bool_masks_are_the_same_mask():
    m = _mha()
    x = TT(X)
    a = m(x, attn_mask=TT(MASK))[0]
    b = m(x, attn_mask=TT(MASK.astype("int64")))[0]
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_return_structure_follows_need_weights_and_cache():
    x = paddle.randn([2, 3, 4])
    plain = paddle.nn.MultiHeadAttention(4, 2)
    assert isinstance(plain(x), paddle.Tensor)
    _, cache = plain(x, cache=plain.gen_cache(x))
    assert cache.k.shape == [2, 2, 3, 2] and isinstance(cache, plain.Cache)
    weighted = paddle.nn.MultiHeadAttention(4, 2, need_weights=True)
    _, w, static = weighted(x, cache=weighted.gen_cache(x, x, type=weighted.StaticCache))
    assert w.shape == [2, 2, 3, 3] and isinstance(static, weighted.StaticCache)


def test_incremental_decoding_equals_a_causal_mask():
    """A growing Cache, one query at a time, sees exactly what a lower-triangular mask
    lets the whole sequence see."""
    m = paddle.nn.MultiHeadAttention(4, 2)
    x = paddle.randn([1, 4, 4])
    cache, steps = m.gen_cache(x), []
    for t in range(4):
        out, cache = m(x[:, t:t + 1], cache=cache)
        steps.append(out)
    full = m(x, attn_mask=TT(np.tril(np.ones((4, 4), bool))))
    np.testing.assert_allclose(paddle.concat(steps, 1).numpy(), full.numpy(), rtol=1e-5,
                               atol=1e-6)


def test_sdpa_causal_matches_paddle():
    """Measured on Paddle 3.3.1: layout [batch, seq, heads, head_dim], top-left causal."""
    q = TT(np.linspace(-1, 1, 12).reshape(1, 3, 1, 4).astype("float32"), stop_gradient=False)
    k = TT(np.linspace(1, -0.5, 12).reshape(1, 3, 1, 4).astype("float32"))
    o = F.scaled_dot_product_attention(q, k, k, is_causal=True)
    np.testing.assert_allclose(o.numpy()[0, :, 0], [[1, 0.8636364, 0.7272728, 0.590909],
                                                    [0.7272728, 0.5909091, 0.4545454,
                                                     0.3181818],
                                                    [0.7163989, 0.5800352, 0.4436716,
                                                     0.307308]], rtol=1e-5)
    o.sum().backward()
    np.testing.assert_allclose(q.grad.numpy()[0, :, 0, 0], [0, 0.1487603, 0.2954686],
                               rtol=1e-5, atol=1e-7)


def test_sdpa_causal_mask_does_not_leak_at_large_scores():
    """Paddle 3.3.1 adds -1e4 above the diagonal: scores 2e5 apart leak through it (the
    first query gets the second value, 20). Here the mask is -inf."""
    q = TT(np.full((1, 2, 1, 1), 1e5, "float32"))
    k = TT(np.array([-1.0, 1.0], "float32").reshape(1, 2, 1, 1))
    v = TT(np.array([10.0, 20.0], "float32").reshape(1, 2, 1, 1))
    assert F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy().ravel().tolist() \
        == [10.0, 20.0]


def test_sdpa_row_with_every_position_masked_is_nan_as_in_paddle():
    q = paddle.randn([1, 2, 1, 4])
    mask = TT(np.array([[True, True], [False, False]]))
    out = F.scaled_dot_product_attention(q, q, q, attn_mask=mask).numpy()
    assert np.isfinite(out[0, 0]).all() and np.isnan(out[0, 1]).all()


def test_sdpa_repeats_key_heads_for_grouped_queries():
    q, k, v = paddle.randn([2, 3, 4, 2]), paddle.randn([2, 5, 2, 2]), paddle.randn([2, 5, 2, 2])
    got = F.scaled_dot_product_attention(q, k, v)
    rep = [paddle.repeat_interleave(t, 2, axis=2) for t in (k, v)]
    np.testing.assert_allclose(got.numpy(), F.scaled_dot_product_attention(q, *rep).numpy(),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="heads"):
        F.scaled_dot_product_attention(q, k, v, enable_gqa=False)


def test_sdpa_gradients_match_finite_differences_to_second_order():
    rng = np.random.default_rng(0)
    mask = rng.uniform(-1, 0, (1, 2, 3, 4))

    def f(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=TT(mask), scale=0.7)

    check_grads(f, rng.uniform(-1, 1, (1, 3, 2, 2)), rng.uniform(-1, 1, (1, 4, 2, 2)),
                rng.uniform(-1, 1, (1, 4, 2, 2)), order=2)
    check_grads(lambda q: F.scaled_dot_product_attention(q, q, q, is_causal=True),
                rng.uniform(-1, 1, (3, 1, 2)), order=2)


def test_encoder_layer_gradients_match_finite_differences_to_second_order():
    paddle.set_default_dtype("float64")
    try:
        layer = paddle.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, activation="gelu",
                                                  normalize_before=True)
    finally:
        paddle.set_default_dtype("float32")
    rng = np.random.default_rng(1)
    mask = TT(np.tril(np.ones((3, 3), bool)))
    check_grads(lambda x: layer(x, mask), rng.uniform(-1, 1, (1, 3, 4)), order=2,
                rtol=1e-4, atol=1e-6)


def test_encoder_stacks_fresh_layers_of_the_same_configuration():
    """Paddle builds layers 2..n from the first one's arguments: new weights, not copies."""
    first = paddle.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, activation="gelu")
    enc = paddle.nn.TransformerEncoder(first, 3, paddle.nn.LayerNorm(4))
    assert enc.layers[0] is first and len(enc.layers) == 3
    assert enc.layers[2].linear1.weight.shape == [4, 8]
    assert enc.layers[2].activation is F.gelu
    assert not np.array_equal(enc.layers[1].linear1.weight.numpy(), first.linear1.weight.numpy())
    names = [n for n, _ in enc.named_parameters()]
    assert names[0] == "layers.0.self_attn.q_proj.weight" and names[-1] == "norm.bias"


def test_encoder_training_steps_reuse_one_cached_program(fresh_cache):
    enc = paddle.nn.TransformerEncoder(
        paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
    opt = paddle.optimizer.AdamW(learning_rate=1e-3, parameters=enc.parameters())
    for _ in range(3):
        x = paddle.randn([2, 5, 8])
        mask = TT(np.random.default_rng(0).random((2, 1, 5, 5)) > 0.2)
        enc(x, mask).mean().backward()
        opt.step()
        opt.clear_grad()
    info = paddle.cache_info()
    assert (info.misses, info.hits) == (1, 2)


@pytest.mark.parametrize("call, error", [
    (lambda: paddle.nn.MultiHeadAttention(6, 4), ValueError),
    (lambda: paddle.nn.TransformerEncoderLayer(4, 2, 0), ValueError),
    (lambda: paddle.nn.TransformerEncoderLayer(4, 2, 8, activation="swishy"), ValueError),
    (lambda: F.scaled_dot_product_attention(paddle.randn([1, 2, 1, 2]),
                                            paddle.randn([1, 2, 1, 2]),
                                            paddle.randn([1, 2, 1, 2]),
                                            attn_mask=TT(np.ones((2, 2), "int64"))), TypeError),
    (lambda: F.scaled_dot_product_attention(paddle.randn([2, 1, 2]), paddle.randn([1, 2, 1, 2]),
                                            paddle.randn([1, 2, 1, 2])), ValueError),
])
def test_bad_arguments_raise_errors_naming_them(call, error):
    with pytest.raises(error):
        call()
