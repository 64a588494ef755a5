"""Serialization, paddle.io, Layer state/casts/hooks/containers, optimizer state and
minimize, softmax_with_cross_entropy, paddle.tensor.* (issue 15's io-layers part)."""

import io as _io

KNOWN = {
    "swce big logits": "the exact loss (2000); Paddle 3.3.1 caps it at 64",
    "double int buffer": "double() casts floating tensors only, as the docs say (3.3.1 casts "
                         "the int buffer too)",
    "astype": "astype casts parameters and buffers, as the docs say (3.3.1 leaves them)",
    "ParameterList -1": "negative indices work (Paddle 3.3.1: KeyError '-1')",
    "loader strings": "a batch without arrays is yielded (Paddle 3.3.1 yields nothing)",
    "loader collate ints": "a batch without arrays is yielded (Paddle 3.3.1 yields nothing)",
    "opt second optimizer": "a second optimizer loads the first one's state (3.3.1 asserts: "
                            "its names end in _1)",
    "cast then step": "the optimizer keeps working after Layer.to (3.3.1: dtype error)",
    "iterable loader list": "list(loader) works over an IterableDataset (3.3.1: ValueError)",
    "swce return_softmax": "the returned softmax passes its gradient back (3.3.1 drops it)",
    "swce float labels": "float hard labels work in backward too (3.3.1's backward fails)",
}

LOGITS = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 5.0], [0.5, -1.0, 2.0]], "float32")
SOFT = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [0.6, 0.2, 0.2]], "float32")


def swce(P):
    return P.nn.functional.softmax_with_cross_entropy


cmp("swce hard", lambda P, x: swce(P)(x, P.to_tensor([[2], [0], [1]])), [LOGITS])
cmp("swce ignore", lambda P, x: swce(P)(x, P.to_tensor([[2], [-100], [1]])), [LOGITS])
cmp("swce ignore 1", lambda P, x: swce(P)(x, P.to_tensor([[1], [1], [0]]), ignore_index=1),
    [LOGITS])
cmp("swce soft", lambda P, x, s: swce(P)(x, s, soft_label=True), [LOGITS, SOFT])
cmp("swce return_softmax", lambda P, x: swce(P)(x, P.to_tensor([[2], [0], [1]]),
                                                return_softmax=True), [LOGITS])
cmp("swce float labels", lambda P, x: swce(P)(x, P.to_tensor([[2.0], [0.0], [1.0]])), [LOGITS])
cmp("swce int32 labels", lambda P, x: swce(P)(x, P.to_tensor(np.array([[2], [0], [1]], "int32"))),
    [LOGITS])
cmp("swce axis 1", lambda P, x: swce(P)(x, P.to_tensor([[[1, 0]], [[2, 1]]]), axis=1),
    [A((2, 3, 2))])
cmp("swce f64", lambda P, x: swce(P)(x, P.to_tensor([[1], [0]])), [A((2, 4), dtype="float64")])
cmp("swce 1d", lambda P, x: swce(P)(x, P.to_tensor([2])), [A((3,))])
cmp("swce big logits", lambda P, x: swce(P)(x, P.to_tensor([[2]])),
    [np.array([[1000.0, 0.0, -1000.0]], "float32")])
cmp("swce 1d label for 2d", lambda P, x: swce(P)(x, P.to_tensor([2, 0, 1])), [LOGITS])
cmp("swce label out of range", lambda P, x: swce(P)(x, P.to_tensor([[3], [0], [1]])), [LOGITS])


def named(P, fn):
    with P.utils.unique_name.guard():
        return fn()


def net(P):
    """Linear(2, 3) -> Linear(3, 2) with fixed weights, an int and a float buffer."""
    class Net(P.nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = P.nn.Linear(2, 3), P.nn.Linear(3, 2)
            self.register_buffer("ids", P.to_tensor([1, 2]))
            self.register_buffer("scale", P.to_tensor([1.0, 2.0]))
            self.register_buffer("tmp", P.to_tensor([0.0]), persistable=False)

        def forward(self, x):
            return self.b(P.tanh(self.a(x))) * self.scale
    m = named(P, Net)
    for k, p in enumerate(m.parameters()):
        p.set_value((np.arange(int(np.prod(p.shape))).reshape(p.shape) % 5 / 4 - 0.5 + k / 10)
                    .astype("float32"))
    return m


X = np.sin(np.arange(8, dtype="float32")).reshape(4, 2)


def state_keys(P):
    m = net(P)
    return [str([(k, v.name if k in ("a.weight", "b.bias") else "") for k, v in
                 m.state_dict().items()])]


cmp("state_dict keys and names", state_keys, [], grad=False)


def set_state(P):
    m, src = net(P), net(P)
    for p in src.parameters():
        p.set_value(p * 2)
    res = m.set_state_dict({**src.state_dict(), "extra": P.ones([1])})
    return [str(res)] + [v for v in m.state_dict().values()]


cmp("set_state_dict", set_state, [], grad=False)


def cast(P, how):
    m = net(P)
    m(P.to_tensor(X)).sum().backward()
    getattr(m, how[0])(*how[1:])
    w = m.a.weight
    return [w, w.grad, P.to_tensor([0]) if m.ids is None else m.ids.astype("float64") * 0 +
            {"int64": 0, "float64": 1, "float32": 2, "int32": 3}[str(m.ids.dtype).split(".")[-1]],
            P.to_tensor([1.0]).astype(m.scale.dtype)]


cmp("to float64", lambda P: cast(P, ("to", None, "float64")), [], grad=False)
cmp("to cpu", lambda P: cast(P, ("to", "cpu")), [], grad=False)
cmp("double int buffer", lambda P: cast(P, ("double",)), [], grad=False)
cmp("float", lambda P: cast(P, ("float",)), [], grad=False)
cmp("astype", lambda P: cast(P, ("astype", "float64")), [], grad=False)
cmp("to gpu", lambda P: cast(P, ("to", "gpu")), [], grad=False)


def cast_then_step(P):
    m = net(P)
    opt = P.optimizer.Adam(0.1, parameters=m.parameters())
    m(P.to_tensor(X)).sum().backward()
    opt.step()
    opt.clear_grad()
    m.to(dtype="float64")
    m(P.to_tensor(X.astype("float64"))).sum().backward()
    opt.step()
    return m.parameters()


cmp("cast then step", cast_then_step, [], grad=False, rtol=1e-5)


def hooks(P, x):
    m, seen = net(P), []
    m.a.register_forward_pre_hook(lambda lay, args: (args[0] * 2,))
    h = m.b.register_forward_post_hook(lambda lay, args, out: out + 1)
    m.register_forward_pre_hook(lambda lay, a, kw: seen.append(len(a)), with_kwargs=True)
    y1 = m(x)
    h.remove()
    return [y1, m(x), P.to_tensor(seen)]


cmp("forward hooks", hooks, [X])


def containers(P):
    pl = P.nn.ParameterList([P.create_parameter([2], "float32") for _ in range(2)])
    pl[0] = P.to_tensor([1.0, 2.0, 3.0])
    ld = P.nn.LayerDict({"q": P.nn.ReLU(), "p": P.nn.Linear(2, 2)})
    ld["z"] = P.nn.Tanh()
    del ld["q"]
    return [pl[0], str(list(ld.keys())), str([n for n, _ in ld.named_parameters()]),
            str([n for n, _ in pl.named_parameters()])]


cmp("ParameterList/LayerDict", containers, [], grad=False)
cmp("ParameterList -1", lambda P: P.nn.ParameterList([P.create_parameter([2], "float32")])[-1].shape,
    [], grad=False)


def batches(P, items, **kw):
    class Items(P.io.Dataset):
        def __getitem__(self, i):
            return items[i]

        def __len__(self):
            return len(items)
    np.random.seed(3)
    return [b for b in P.io.DataLoader(Items(), **kw)]


F32 = np.array([1.0, 2.0], "float32")
cmp("loader tuples", lambda P: batches(P, [(F32 * i, np.array([i])) for i in range(5)],
                                       batch_size=2), [], grad=False)
cmp("loader numbers", lambda P: batches(P, [1.5, 2.5, 3.5], batch_size=2) +
    batches(P, [1, 2, 3], batch_size=2) + batches(P, [True, False], batch_size=2), [], grad=False)
cmp("loader dicts", lambda P: [str(sorted(b)) for b in batches(
    P, [{"x": F32, "y": i, "s": "a"} for i in range(3)], batch_size=2)], [], grad=False)
cmp("loader dict values", lambda P: [b["x"] for b in batches(
    P, [{"x": F32, "y": i} for i in range(3)], batch_size=2)], [], grad=False)
cmp("loader shuffle drop_last", lambda P: batches(P, list(range(7)), batch_size=3, shuffle=True,
                                                  drop_last=True), [], grad=False)
cmp("loader tensors", lambda P: batches(P, [P.to_tensor([1.0, 2.0])] * 3, batch_size=2),
    [], grad=False)
cmp("loader batch_size None", lambda P: batches(P, [np.ones(2)] * 2, batch_size=None), [],
    grad=False)
cmp("loader strings", lambda P: [str(b) for b in batches(P, ["a", "b", "c"], batch_size=2)], [],
    grad=False)
cmp("loader collate ints", lambda P: [str(b) for b in batches(P, [1, 2, 3], batch_size=2,
                                                              collate_fn=lambda b: b)], [],
    grad=False)
cmp("loader num_workers", lambda P: batches(P, [1, 2], batch_size=2, num_workers=-1), [],
    grad=False)


def tensor_dataset(P):
    td = P.io.TensorDataset([P.arange(6).reshape([3, 2]).astype("float32"), P.to_tensor([0, 1, 2])])
    return list(td[1]) + [b for batch in P.io.DataLoader(td, batch_size=2) for b in batch]


cmp("TensorDataset", tensor_dataset, [], grad=False)


def stream(P):
    class S(P.io.IterableDataset):
        def __iter__(self):
            return iter([np.array([i], "float32") for i in range(5)])
    return S()


cmp("iterable loader", lambda P: [b for b in P.io.DataLoader(stream(P), batch_size=2)], [],
    grad=False)
cmp("iterable loader list", lambda P: list(P.io.DataLoader(stream(P), batch_size=2)), [],
    grad=False)
cmp("random_split lengths", lambda P: str([len(s) for s in P.io.random_split(
    list(range(10)), [0.34, 0.33, 0.33])]), [], grad=False)
cmp("BatchSampler", lambda P: str(list(P.io.BatchSampler(list(range(5)), batch_size=2))), [],
    grad=False)


def train(P, make, steps):
    """Inside one unique_name guard: Paddle names accumulators at the first step, jitgrad
    when the optimizer is made; in a guard both start from _0."""
    with P.utils.unique_name.guard():
        m = net(P)
        opt = make(P, m)
        for _ in range(steps):
            (m(P.to_tensor(X)) ** 2).mean().backward()
            opt.step()
            opt.clear_grad()
    return m, opt


OPTS = {"Momentum": lambda P, m: P.optimizer.Momentum(0.1, parameters=m.parameters()),
        "Adam": lambda P, m: P.optimizer.Adam(0.1, parameters=m.parameters()),
        "RMSProp": lambda P, m: P.optimizer.RMSProp(0.1, parameters=m.parameters()),
        "Adagrad": lambda P, m: P.optimizer.Adagrad(0.1, parameters=m.parameters()),
        "Adamax": lambda P, m: P.optimizer.Adamax(0.1, parameters=m.parameters()),
        "Adadelta": lambda P, m: P.optimizer.Adadelta(0.1, parameters=m.parameters()),
        "Lamb": lambda P, m: P.optimizer.Lamb(0.1, parameters=m.parameters()),
        "Adam sched": lambda P, m: P.optimizer.Adam(P.optimizer.lr.StepDecay(0.1, 1),
                                                    parameters=m.parameters())}


def opt_state(P, make):
    _, opt = train(P, make, 2)
    sd = opt.state_dict()
    return [str(list(sd)), str(sd.get("LR_Scheduler"))] + \
        [v for k, v in sd.items() if k != "LR_Scheduler"]


for _name, _make in OPTS.items():
    cmp(f"opt state {_name}", lambda P, mk=_make: opt_state(P, mk), [], grad=False, rtol=1e-5)


def resume(P, make, fresh_names):
    """3 steps, save, then a new model and optimizer load the files and take 2 more steps:
    in a fresh unique_name guard (as in a new process), or in the same names' scope."""
    m, opt = train(P, make, 3)
    bm, bo = _io.BytesIO(), _io.BytesIO()
    P.save(m.state_dict(), bm)
    P.save(opt.state_dict(), bo)
    bm.seek(0)
    bo.seek(0)
    with P.utils.unique_name.guard():
        m2 = net(P)
        if not fresh_names:                     # a first optimizer takes the _0 names
            first = make(P, m2)
            (m2(P.to_tensor(X)) ** 2).mean().backward()
            first.step()
            first.clear_grad()
        m2.set_state_dict(P.load(bm))
        opt2 = make(P, m2)
        opt2.set_state_dict(P.load(bo))
        for _ in range(2):
            (m2(P.to_tensor(X)) ** 2).mean().backward()
            opt2.step()
            opt2.clear_grad()
    return m2.parameters()


for _name, _make in OPTS.items():
    cmp(f"opt resume {_name}", lambda P, mk=_make: resume(P, mk, True), [], grad=False,
        rtol=1e-5)
cmp("opt second optimizer", lambda P: resume(P, OPTS["Adam"], False), [], grad=False, rtol=1e-5)


def minimize(P):
    m = net(P)
    opt = P.optimizer.SGD(0.1, parameters=m.parameters())
    loss = (m(P.to_tensor(X)) ** 2).mean()
    first = opt.minimize(loss)
    loss.backward()
    ops, pairs = opt.minimize(loss, parameters=[m.a.weight, m.b.bias])
    return [str((first, ops, [p.name for p, _ in pairs]))] + [g for _, g in pairs] + \
        m.parameters()


cmp("minimize", minimize, [], grad=False)


def save_load(P, obj_fn, **kw):
    buf = _io.BytesIO()
    P.save(obj_fn(P), buf)
    buf.seek(0)
    out = P.load(buf, **kw)

    def walk(o):
        if isinstance(o, dict):
            return [str(sorted(o))] + [x for k in sorted(o) for x in walk(o[k])]
        if isinstance(o, (list, tuple)):
            return [type(o).__name__] + [x for v in o for x in walk(v)]
        if isinstance(o, np.ndarray):
            return ["ndarray", P.to_tensor(o)]
        if hasattr(o, "numpy"):          # plain tensors: Paddle names them, jitgrad does not
            return [o.name if "." in o.name else "-", o]
        return [str(o)]
    return walk(out)


cmp("save/load state_dict", lambda P: save_load(P, lambda P: net(P).state_dict()), [], grad=False)
cmp("save/load nested", lambda P: save_load(P, lambda P: {
    "m": net(P).state_dict(), "e": 3, "l": [net(P).a.bias, "s"], "t": (1.5, net(P).b.weight)}),
    [], grad=False)
cmp("save/load return_numpy", lambda P: save_load(P, lambda P: {"m": net(P).state_dict()},
                                                  return_numpy=True), [], grad=False)
cmp("save/load dtypes", lambda P: save_load(P, lambda P: [
    P.to_tensor(np.array([1, 2], "int32")), P.to_tensor(np.array([True])),
    P.to_tensor(np.array(2.5, "float64")), P.to_tensor(np.array([0.5], "float16"))]),
    [], grad=False)


cmp("fill_constant", lambda P: [P.tensor.fill_constant([2, 2], "int64", 3.7),
                                P.tensor.creation.fill_constant([2], "float32", 2.5),
                                P.tensor.manipulation.fill_constant([1], "float64", 1)],
    [], grad=False)
cmp("gaussian dtype and shape", lambda P: [
    str((str(g.dtype), g.shape, g.stop_gradient)) for g in (
        P.tensor.random.gaussian([2, 3]), P.tensor.random.gaussian([2], 1.0, 2.0, dtype="float64"))],
    [], grad=False)
cmp("tensor.math add", lambda P, x, y: P.tensor.math.add(x, y), [A((2, 3)), A((2, 3))])
cmp("tensor.manipulation reshape", lambda P, x: P.tensor.manipulation.reshape(x, [3, 2]),
    [A((2, 3))])
cmp("tensor.search argmax", lambda P, x: P.tensor.search.argmax(x, axis=1), [A((2, 3))],
    grad=False)
cmp("tensor.stat std", lambda P, x: P.tensor.stat.std(x), [A((2, 3))])
