"""Recurrent layers and cells with the same weights in both libraries (set from numpy):
outputs, final states and input gradients, then every weight's gradient (through P.grad).
Layers run in train mode (dropout 0): Paddle 3.3.1's fused RNN kernel has no backward in
eval mode ("Tensor holds no memory"); jitgrad's is differentiable in both (README)."""

NAMES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_ho")


def cells_of(layer):
    """The cells of a layer, a wrapper or a cell, in one order in both libraries."""
    if hasattr(layer, "weight_ih"):
        return [layer]
    if hasattr(layer, "cell"):
        return [layer.cell]
    if hasattr(layer, "cell_fw"):
        return [layer.cell_fw, layer.cell_bw]
    return [c for sub in layer for c in cells_of(sub)]


def build(P, cls, args, kw, seed=0):
    layer = getattr(P.nn, cls)(*args, **kw)
    rng = np.random.default_rng(seed)
    for cell in cells_of(layer):
        for name in NAMES:
            p = getattr(cell, name, None)
            if p is not None:
                p.set_value(rng.uniform(-0.6, 0.6, list(p.shape)).astype("float32"))
    return layer


def params(layer):
    return [getattr(c, n) for c in cells_of(layer) for n in NAMES
            if hasattr(c, n) and not getattr(c, n).stop_gradient]


def run(cls, args, kw, call, train=True):
    """fn(P, *inputs) -> (outputs of the layer, flattened), for cmp; `call(layer, *ts)`."""
    def fn(P, *ts):
        layer = build(P, cls, args, kw)
        if not train:
            layer.eval()
        return call(layer, *ts)
    return fn


def weight_grads(cls, args, kw, call):
    """fn(P, *inputs) -> the gradients of every weight of sum(outputs * fixed weights)."""
    def fn(P, *ts):
        layer = build(P, cls, args, kw)
        outs = call(layer, *ts)
        flat = []
        stack = [outs]
        while stack:
            o = stack.pop()
            if isinstance(o, (list, tuple)):
                stack.extend(reversed(o))
            else:
                flat.append(o)
        wrng = np.random.default_rng(5)
        loss = None
        for o in flat:
            w = P.to_tensor(wrng.uniform(0.5, 1.5, o.shape).astype("float32"))
            s = P.sum(o * w)
            loss = s if loss is None else loss + s
        return P.grad(loss, params(layer))
    return fn


B, T, I, H = 3, 4, 5, 6
x = A((B, T, I), -1, 1)
xt = A((T, B, I), -1, 1)
lens = np.array([4, 1, 3], "int64")
plain = lambda layer, x: layer(x)                                           # noqa: E731
with_h = lambda layer, x, h: layer(x, h)                                     # noqa: E731
with_hc = lambda layer, x, h, c: layer(x, (h, c))                            # noqa: E731
seq = lambda layer, x: layer(x, None, P_lens(layer))                         # noqa: E731


def P_lens(layer):  # noqa: N802 (the sequence lengths as a tensor of the layer's library)
    lib = paddle if type(layer).__module__.startswith("paddle") else jitgrad
    return lib.to_tensor(lens)


configs = []
for cls in ("SimpleRNN", "LSTM", "GRU"):
    nst = 2 if cls == "LSTM" else 1
    configs += [
        (cls, (I, H), {}, plain, [x]),
        (cls, (I, H), {"num_layers": 2, "direction": "bidirect"}, plain, [x]),
        (cls, (I, H), {"time_major": True, "direction": "bidirectional"}, plain, [xt]),
        (cls, (I, H), {"num_layers": 2}, with_hc if nst == 2 else with_h,
         [x] + [A((2, B, H), -1, 1) for _ in range(nst)]),
        (cls, (I, H), {}, seq, [x]),
        (cls, (I, H), {"num_layers": 2, "direction": "bidirect"}, seq, [x]),
    ]
    # dropout between layers: random masks differ, so eval mode, values only
    cmp(f"nn.{cls} dropout=0.5 eval", run(cls, (I, H), {"num_layers": 3, "dropout": 0.5},
                                           plain, train=False), [x], grad=False, rtol=1e-4,
        atol=1e-5)
configs += [
    ("SimpleRNN", (I, H), {"activation": "relu", "direction": "bidirect"}, plain, [x]),
    ("SimpleRNN", (I, H), {"activation": "relu"}, seq, [x]),
    ("SimpleRNN", (I, H), {"weight_hh_attr": False}, plain, [x]),
    ("LSTM", (I, H), {"proj_size": 3}, plain, [x]),
    ("LSTM", (I, H), {"proj_size": 3, "direction": "bidirect"}, seq, [x]),
]
KNOWN = {"nn.SimpleRNN(5, 6){'weight_hh_attr': False}": "Paddle 3.3.1's fused RNN kernel "
         "raises in backward when a weight is frozen (attr False): jitgrad differentiates the "
         "others (README)"}
for cls, args, kw, call, inputs in configs:
    name = f"nn.{cls}{args}{kw}{'' if call is plain else ' ' + call.__name__}"
    cmp(name, run(cls, args, kw, call), inputs, rtol=1e-4, atol=1e-5)
    cmp(name + " weight grads", weight_grads(cls, args, kw, call), inputs, grad=False,
        rtol=1e-4, atol=1e-5)

# cells: one step, with and without states
h0, c0, x0 = A((B, H), -1, 1), A((B, H), -1, 1), A((B, I), -1, 1)
for cls, call, inputs in [
        ("SimpleRNNCell", plain, [x0]), ("SimpleRNNCell", with_h, [x0, h0]),
        ("LSTMCell", plain, [x0]), ("LSTMCell", with_hc, [x0, h0, c0]),
        ("GRUCell", plain, [x0]), ("GRUCell", with_h, [x0, h0])]:
    cmp(f"nn.{cls} {call.__name__}", run(cls, (I, H), {}, call), inputs)
    cmp(f"nn.{cls} {call.__name__} weight grads", weight_grads(cls, (I, H), {}, call),
        inputs, grad=False)
cmp("nn.SimpleRNNCell relu", run("SimpleRNNCell", (I, H), {"activation": "relu"}, plain), [x0])


# wrappers: nn.RNN / nn.BiRNN over cells (fused for built-in cells, the cell loop otherwise)
def wrapped(kind, cell, reverse=False, time_major=False, with_len=False):
    def call(P, x):
        c = build(P, cell, (I, H), {}, seed=1)
        if kind == "RNN":
            layer = P.nn.RNN(c, is_reverse=reverse, time_major=time_major)
        else:
            layer = P.nn.BiRNN(c, build(P, cell, (I, H), {}, seed=2), time_major=time_major)
        return layer(x, None, P.to_tensor(lens)) if with_len else layer(x)
    return call


for kind in ("RNN", "BiRNN"):
    for cell in ("SimpleRNNCell", "LSTMCell", "GRUCell"):
        for opts in ({}, {"reverse": True}, {"time_major": True}, {"with_len": True}):
            if kind == "BiRNN" and "reverse" in opts:
                continue
            cmp(f"nn.{kind}({cell}) {opts}", lambda P, x, k=kind, c=cell, o=opts:
                wrapped(k, c, **o)(P, x), [xt if opts.get("time_major") else x],
                rtol=1e-4, atol=1e-5)
