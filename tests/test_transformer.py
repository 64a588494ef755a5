"""nn.Transformer, TransformerDecoder and TransformerDecoderLayer: Paddle 3.3.1's structure
(perf/paddle_cases/transformer.py compares values and gradients with Paddle's)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

TT = paddle.to_tensor


def test_parameter_names_follow_paddles_structure():
    names = [n for n, _ in paddle.nn.Transformer(8, 2, 1, 1, 16).named_parameters()]
    assert len(names) == 46                                       # Paddle 3.3.1: 46 as well
    assert names[0] == "encoder.layers.0.self_attn.q_proj.weight"
    assert "decoder.layers.0.cross_attn.v_proj.bias" in names and names[-1] == "decoder.norm.bias"


def test_decoder_layer_gradients_match_finite_differences():
    paddle.seed(0)
    layer = paddle.nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0)
    for p in layer.parameters():
        p.set_value(p.numpy().astype("float32"))
    layer.to(dtype="float64")
    rng = np.random.default_rng(1)
    mem = TT(rng.standard_normal((1, 3, 4)))
    check_grads(lambda t: layer(t, mem), rng.standard_normal((1, 2, 4)))


def test_incremental_decoding_with_a_cache_equals_the_causal_full_pass():
    paddle.seed(2)
    dec = paddle.nn.TransformerDecoder(paddle.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0),
                                       2)
    rng = np.random.default_rng(3)
    tgt, mem = TT(rng.standard_normal((2, 4, 8)).astype("float32")), \
        TT(rng.standard_normal((2, 5, 8)).astype("float32"))
    full = dec(tgt, mem, tgt_mask=paddle.nn.Transformer.generate_square_subsequent_mask(4))
    cache, steps = dec.gen_cache(mem), []
    for i in range(4):
        out, cache = dec(tgt[:, i:i + 1], mem, cache=cache)
        steps.append(out.numpy())
    np.testing.assert_allclose(np.concatenate(steps, axis=1), full.numpy(), rtol=1e-5,
                               atol=1e-5)


def test_square_subsequent_mask_and_argument_checks():
    m = paddle.nn.Transformer.generate_square_subsequent_mask(3).numpy()
    assert m.tolist() == [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]]
    with pytest.raises(ValueError, match="greater than 0"):
        paddle.nn.TransformerDecoderLayer(8, 2, 0)
    with pytest.raises(ValueError, match="1, 2 or 3"):
        paddle.nn.Transformer(8, 2, 1, 1, 16, weight_attr=[None] * 4)
