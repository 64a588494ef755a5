"""scaled_dot_product_attention, MultiHeadAttention and the Transformer encoder, with the
same weights in both libraries (set from numpy by parameter name): outputs, attention
weights, caches and input gradients, then every weight's gradient (through P.grad)."""

import zlib


def build(P, cls, args, kw):
    layer = getattr(P.nn, cls)(*args, **kw)
    for name, p in layer.named_parameters():
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        p.set_value(rng.uniform(-0.5, 0.5, list(p.shape)).astype("float32"))
    return layer


def flat(outs):
    if isinstance(outs, (list, tuple)):
        return [o for item in outs for o in flat(item)]
    return [outs]


def run(cls, args, kw, call):
    def fn(P, *ts):
        layer = build(P, cls, args, kw)
        layer.eval()        # dropout off (attention dropout included)
        return call(P, layer, *ts)
    return fn


def weight_grads(cls, args, kw, call):
    def fn(P, *ts):
        layer = build(P, cls, args, kw)
        layer.eval()
        wrng, loss = np.random.default_rng(5), None
        for o in flat(call(P, layer, *ts)):
            if o.stop_gradient:
                continue
            s = P.sum(o * P.to_tensor(wrng.uniform(0.5, 1.5, o.shape).astype("float32")))
            loss = s if loss is None else loss + s
        params = [p for _, p in sorted(layer.named_parameters(), key=lambda kv: kv[0])]
        return P.grad(loss, params)
    return fn


B, L, S, E, NH = 2, 3, 4, 8, 2
q, k, v = A((B, L, E), -1, 1), A((B, S, 6), -1, 1), A((B, S, 5), -1, 1)
bool_mask = A((B, 1, L, S), dtype="bool")
bool_mask[..., 0] = True
int_mask = bool_mask.astype("int64")
float_mask = A((B, NH, L, S), -2, 0)


def T(P, a):  # noqa: N802 (a constant of P's library)
    return P.to_tensor(a)


def decode(m, x):
    """Step by step with a growing Cache, as a decoder does: every step's output."""
    cache, outs = m.gen_cache(x), []
    for t in range(x.shape[1]):
        out, cache = m(x[:, t:t + 1], None, None, None, cache)
        outs.append(out)
    return outs + [cache.k, cache.v]


cases = [
    ("self", (E, NH), {}, lambda P, m, x: m(x), [q]),
    ("self need_weights", (E, NH), {"need_weights": True}, lambda P, m, x: m(x), [q]),
    ("kdim vdim", (E, NH), {"kdim": 6, "vdim": 5, "need_weights": True},
     lambda P, m, x, y, z: m(x, y, z), [q, k, v]),
    ("bool mask", (E, NH), {"kdim": 6, "vdim": 5},
     lambda P, m, x, y, z: m(x, y, z, T(P, bool_mask)), [q, k, v]),
    ("int mask", (E, NH), {"kdim": 6, "vdim": 5},
     lambda P, m, x, y, z: m(x, y, z, T(P, int_mask)), [q, k, v]),
    ("float mask", (E, NH), {"kdim": 6, "vdim": 5, "need_weights": True},
     lambda P, m, x, y, z: m(x, y, z, T(P, float_mask)), [q, k, v]),
    ("no bias", (E, NH), {"bias_attr": False}, lambda P, m, x: m(x), [q]),
    ("dropout eval", (E, NH), {"dropout": 0.5}, lambda P, m, x: m(x), [q]),
    ("incremental cache, 3 steps", (E, NH), {}, lambda P, m, x: decode(m, x), [q]),
    ("cache from projected k, v", (E, NH), {},
     lambda P, m, x: m(x[:, 2:], None, None, None,
                       m.gen_cache(*m.compute_kv(x[:, :2], x[:, :2]))), [q]),
    ("empty cache", (E, NH), {}, lambda P, m, x: m(x, None, None, None, m.gen_cache(x)), [q]),
    ("static cache", (E, NH), {"kdim": 6, "vdim": 5},
     lambda P, m, x, y, z: m(x, None, None, None, m.gen_cache(y, z, type=m.StaticCache)),
     [q, k, v]),
]
for name, args, kw, call, inputs in cases:
    cmp(f"nn.MultiHeadAttention {name}", run("MultiHeadAttention", args, kw, call), inputs)
    cmp(f"nn.MultiHeadAttention {name} weight grads",
        weight_grads("MultiHeadAttention", args, kw, call), inputs, grad=False)

src = A((B, L, E), -1, 1)
src_mask = A((B, 1, L, L), dtype="bool")
src_mask[..., 0] = True
enc = [
    ("post-norm", (E, NH, 16), {"dropout": 0.0}, lambda P, m, x: m(x)),
    ("pre-norm gelu", (E, NH, 16), {"normalize_before": True, "activation": "gelu"},
     lambda P, m, x: m(x, T(P, src_mask))),
    ("float mask", (E, NH, 16), {}, lambda P, m, x: m(x, T(P, float_mask[:, :, :, :L]))),
    ("no bias, own attrs", (E, NH, 16), {"bias_attr": [False, True]}, lambda P, m, x: m(x)),
    ("cache", (E, NH, 16), {}, lambda P, m, x: m(x, None, m.gen_cache(x))),
]
for name, args, kw, call in enc:
    cmp(f"nn.TransformerEncoderLayer {name}", run("TransformerEncoderLayer", args, kw, call),
        [src], rtol=1e-4, atol=1e-5)
    cmp(f"nn.TransformerEncoderLayer {name} weight grads",
        weight_grads("TransformerEncoderLayer", args, kw, call), [src], grad=False,
        rtol=1e-4, atol=1e-5)


def encoder(P, x, mask=None):
    layer = P.nn.TransformerEncoderLayer(E, NH, 16, normalize_before=True)
    model = P.nn.TransformerEncoder(layer, 2, P.nn.LayerNorm(E))
    for name, p in model.named_parameters():
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        p.set_value(rng.uniform(-0.5, 0.5, list(p.shape)).astype("float32"))
    model.eval()
    return model(x, None if mask is None else T(P, mask))


cmp("nn.TransformerEncoder 2 layers + norm", encoder, [src], rtol=1e-4, atol=1e-5)
cmp("nn.TransformerEncoder bool mask", lambda P, x: encoder(P, x, src_mask), [src],
    rtol=1e-4, atol=1e-5)

# F.scaled_dot_product_attention: [batch, seq, heads, head_dim]
Q, K, V = A((B, L, NH, 4), -1, 1), A((B, S, NH, 4), -1, 1), A((B, S, NH, 4), -1, 1)
K1, V1 = A((B, S, 1, 4), -1, 1), A((B, S, 1, 4), -1, 1)
m2 = A((L, S), dtype="bool")
m2[:, 0] = True
sdpa = lambda P, *ts, **kw: P.nn.functional.scaled_dot_product_attention(*ts, **kw)  # noqa
for name, fn, inputs in [
        ("plain", lambda P, q, k, v: sdpa(P, q, k, v), [Q, K, V]),
        ("causal", lambda P, q, k, v: sdpa(P, q, k, v, is_causal=True), [Q, K, V]),
        ("causal square", lambda P, q, k, v: sdpa(P, q, k, v, is_causal=True), [Q, Q, Q]),
        ("bool mask", lambda P, q, k, v: sdpa(P, q, k, v, T(P, m2)), [Q, K, V]),
        ("float mask", lambda P, q, k, v, m: sdpa(P, q, k, v, m),
         [Q, K, V, A((B, NH, L, S), -1, 1)]),
        ("mask ignored when causal", lambda P, q, k, v: sdpa(P, q, k, v, T(P, float_mask),
                                                             is_causal=True), [Q, K, V]),
        ("scale", lambda P, q, k, v: sdpa(P, q, k, v, scale=0.3), [Q, K, V]),
        ("3-D", lambda P, q, k, v: sdpa(P, q, k, v), [Q[0], K[0], V[0]]),
        ("grouped query heads", lambda P, q, k, v: sdpa(P, q, k, v), [Q, K1, V1]),
        ("dropout off in eval", lambda P, q, k, v: sdpa(P, q, k, v, dropout_p=0.5,
                                                        training=False), [Q, K, V]),
        ("float64", lambda P, q, k, v: sdpa(P, q, k, v),
         [Q.astype("float64"), K.astype("float64"), V.astype("float64")])]:
    cmp(f"F.scaled_dot_product_attention {name}", fn, inputs)
