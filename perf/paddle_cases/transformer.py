"""nn/transformer.py against Paddle 3.3.1: the same weights (set by name from a seeded
generator) in both libraries, dropout off."""
import numpy as np


def _seeded(P, model):
    rng = np.random.default_rng(7)
    for _, p in sorted(model.named_parameters()):
        p.set_value(rng.uniform(-0.3, 0.3, p.shape).astype("float32"))
    return model


def _t(P, nb, act="relu"):
    return _seeded(P, P.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, normalize_before=nb,
                                       activation=act))


_src, _tgt = A((2, 5, 8)), A((2, 4, 8))
for _nb in (False, True):
    cmp(f"Transformer_nb{_nb}", lambda P, s, t, nb=_nb: (lambda m: m(s, t, tgt_mask=m.generate_square_subsequent_mask(4)))(_t(P, nb)), [_src, _tgt])
cmp("Transformer_gelu_masks", lambda P, s, t: (lambda m: m(s, t, src_mask=P.to_tensor(np.tril(np.ones((5, 5), "float32"))), memory_mask=P.to_tensor(np.ones((4, 5), "bool"))))(_t(P, False, "gelu")), [_src, _tgt])
cmp("TransformerDecoderLayer", lambda P, t, m: _seeded(P, P.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0))(t, m), [_tgt, _src])
cmp("TransformerDecoder_norm", lambda P, t, m: _seeded(P, P.nn.TransformerDecoder(P.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, normalize_before=True), 2, P.nn.LayerNorm(8)))(t, m), [_tgt, _src])


def _cached(P, t, m):
    dec = _seeded(P, P.nn.TransformerDecoder(P.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2))
    cache = dec.gen_cache(m)
    outs = []
    for i in range(3):
        o, cache = dec(t[:, i:i + 1], m, cache=cache)
        outs.append(o)
    return outs


cmp("TransformerDecoder_cache", _cached, [_tgt, _src])
