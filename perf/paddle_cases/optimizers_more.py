"""NAdam, RAdam, ASGD, Rprop: parameters after 10 steps (float32 and float64, weight_decay,
parameter groups, an LRScheduler), the state_dict (keys with the parameter names replaced,
shapes, dtypes, values), a set_state_dict round trip, the argument checks.

The model is a quadratic, sum(A * (W - 0.5)^2) + sum(a * (b + 0.25)^2), whose gradient both
libraries compute without rounding differences, so the optimizers' float32 arithmetic is
compared on its own (jitgrad matches Paddle's CPU kernels bit for bit here); a few cases also
run the tanh model of optimizers.py, whose gradients differ in the last bits."""
# ruff: noqa: F821 (np and cmp come from perf/paddle_sweep.py)

_r = np.random.default_rng(0)
W0 = _r.standard_normal((3, 2)).astype("float32")
B0 = _r.standard_normal(2).astype("float32")
X0 = _r.standard_normal((4, 3)).astype("float32")
A0 = _r.uniform(0.2, 2.0, (3, 2)).astype("float32")
a0 = _r.uniform(0.2, 2.0, 2).astype("float32")


def _loss(P, W, b, tanh=False, dtype="float32"):
    if tanh:
        return P.mean(P.tanh(P.matmul(P.to_tensor(X0.astype(dtype)), W) + b) ** 2)
    A, a = P.to_tensor(A0.astype(dtype)), P.to_tensor(a0.astype(dtype))
    return P.sum(A * (W - 0.5) * (W - 0.5)) + P.sum(a * (b + 0.25) * (b + 0.25))


def _state(P, opt, W, b):
    """The state dict as outputs: each accumulator tensor in order, then its keys (parameter
    names -> W / b) as one string."""
    sd = opt.state_dict()
    keys = [k.replace(W.name, "W").replace(b.name, "b") for k in sd]
    return [sd[k] for k in sd if k != "LR_Scheduler"], "|".join(keys)


def _params(P, dtype):
    """Parameters (create_parameter: Paddle's parameter groups need real Parameters)."""
    W = P.create_parameter([3, 2], dtype)
    W.set_value(W0.astype(dtype))
    b = P.create_parameter([2], dtype)
    b.set_value(B0.astype(dtype))
    return W, b


def train(make_opt, steps=10, sched=None, dtype="float32", groups=None, state=False,
          tanh=False):
    def fn(P):
        W, b = _params(P, dtype)
        s = sched(P) if sched else None
        params = [{"params": [W]}, {"params": [b], **groups}] if groups else [W, b]
        opt = make_opt(P, params, s)
        lrs = []
        for _ in range(steps):
            _loss(P, W, b, tanh, dtype).backward()
            opt.step()
            opt.clear_grad()
            lrs.append(opt.get_lr())
            if s is not None:
                s.step()
        out = [W.detach(), b.detach(), P.to_tensor(np.array(lrs, "float64"))]
        if state:
            tensors, keys = _state(P, opt, W, b)
            out += tensors + [keys]
        return out
    return fn


def resume(make_opt, steps=4):
    """steps, state_dict, a new optimizer (same accumulator names: unique_name.guard) loads
    it and steps more; the parameters and the new state dict."""
    def fn(P):
        W, b = _params(P, "float32")

        def run(opt):
            for _ in range(steps):
                _loss(P, W, b).backward()
                opt.step()
                opt.clear_grad()
        with P.utils.unique_name.guard():
            opt = make_opt(P, [W, b], None)
            run(opt)
            sd = opt.state_dict()
        with P.utils.unique_name.guard():
            opt2 = make_opt(P, [W, b], None)
            opt2.set_state_dict(sd)
            run(opt2)
        return [W.detach(), b.detach()] + _state(P, opt2, W, b)[0]
    return fn


def O(name, lr=0.1, **kw):  # noqa: N802
    return lambda P, ps, s: getattr(P.optimizer, name)(learning_rate=lr if s is None else s,
                                                       parameters=ps, **kw)


OPTS = {
    "NAdam": O("NAdam"), "NAdam_wd": O("NAdam", weight_decay=0.05),
    "NAdam_args": O("NAdam", beta1=0.8, beta2=0.99, epsilon=1e-6, momentum_decay=0.1),
    "NAdam_l2": lambda P, ps, s: P.optimizer.NAdam(0.1, parameters=ps,
                                                   weight_decay=P.regularizer.L2Decay(0.05)),
    "NAdam_l1": lambda P, ps, s: P.optimizer.NAdam(0.1, parameters=ps,
                                                   weight_decay=P.regularizer.L1Decay(0.05)),
    "RAdam": O("RAdam"), "RAdam_wd": O("RAdam", weight_decay=0.05),
    "RAdam_rect": O("RAdam", beta2=0.8),           # rho_t > 5 from step 1: the rectified branch
    "RAdam_args": O("RAdam", beta1=0.5, beta2=0.9, epsilon=1e-4),
    "ASGD": O("ASGD"), "ASGD_n3": O("ASGD", batch_num=3),
    "ASGD_n3_wd": O("ASGD", batch_num=3, weight_decay=0.05),
    "ASGD_n20": O("ASGD", batch_num=20),
    "Rprop": O("Rprop"), "Rprop_small": O("Rprop", lr=0.01),
    "Rprop_args": O("Rprop", lr=0.05, learning_rate_range=(0.01, 0.2), etas=(0.3, 1.5)),
    "NAdam_clip": lambda P, ps, s: P.optimizer.NAdam(
        0.1, parameters=ps, grad_clip=P.nn.ClipGradByGlobalNorm(0.01)),
    "Rprop_clip": lambda P, ps, s: P.optimizer.Rprop(
        0.1, parameters=ps, grad_clip=P.nn.ClipGradByValue(0.001)),
}
for name, mk in OPTS.items():
    cmp(name, train(mk, state=True), [], grad=False, rtol=1e-6, atol=1e-7)
    cmp(name + "_f64", train(mk, dtype="float64", state=True), [], grad=False, rtol=1e-6,
        atol=1e-7)
for name in ("NAdam", "RAdam", "ASGD_n3", "Rprop"):      # gradients rounded differently
    cmp(name + "_tanh", train(OPTS[name], tanh=True), [], grad=False, rtol=1e-5, atol=1e-6)

GROUPS = {
    "NAdam": {"learning_rate": 0.5, "beta1": 0.7, "momentum_decay": 0.01, "weight_decay": 0.1},
    "RAdam": {"learning_rate": 0.5, "beta2": 0.85, "epsilon": 1e-3, "weight_decay": 0.1},
    "ASGD": {"learning_rate": 0.5, "weight_decay": 0.1},
    "Rprop": {"learning_rate": 0.5, "weight_decay": 0.1},
}
for name, group in GROUPS.items():
    cmp(name + "_groups", train(O(name), groups=group, state=True), [], grad=False, rtol=1e-6,
        atol=1e-7)

SCHED = {
    "StepDecay": lambda P: P.optimizer.lr.StepDecay(0.1, 2, 0.5),
    "CosineAnnealingDecay": lambda P: P.optimizer.lr.CosineAnnealingDecay(0.1, 4),
}
for name in ("NAdam", "RAdam", "ASGD"):
    for sname, sched in SCHED.items():
        cmp(f"{name}_{sname}", train(O(name, batch_num=2) if name == "ASGD" else O(name),
                                     sched=sched, state=True),
            [], grad=False, rtol=1e-6, atol=1e-7)

for name in ("NAdam", "RAdam", "ASGD_n3", "Rprop"):
    cmp(name + "_resume", resume(OPTS[name]), [], grad=False, rtol=1e-6, atol=1e-7)



def make(name, **kw):
    def fn(P):
        W = P.to_tensor(W0.copy(), stop_gradient=False)
        getattr(P.optimizer, name)(parameters=[W], **kw)
        return P.to_tensor(np.zeros(1))
    return fn


ERRORS = {
    "NAdam_lr": ("NAdam", {"learning_rate": -1.0}),
    "NAdam_eps": ("NAdam", {"epsilon": -1.0}),
    "NAdam_beta1": ("NAdam", {"beta1": 1.0}),
    "NAdam_beta2": ("NAdam", {"beta2": -0.1}),
    "NAdam_md": ("NAdam", {"momentum_decay": -1.0}),
    "NAdam_beta1_none": ("NAdam", {"beta1": None}),
    "RAdam_lr": ("RAdam", {"learning_rate": -1.0}),
    "RAdam_beta1": ("RAdam", {"beta1": 1.0}),
    "RAdam_eps": ("RAdam", {"epsilon": -1e-8}),
    "ASGD_bn0": ("ASGD", {"batch_num": 0}),
    "ASGD_bn_neg": ("ASGD", {"batch_num": -1}),
    "ASGD_bn_none": ("ASGD", {"batch_num": None}),
    "ASGD_lr_none": ("ASGD", {"learning_rate": None}),
    "Rprop_lr_none": ("Rprop", {"learning_rate": None}),
    "Rprop_lr_big": ("Rprop", {"learning_rate": 100.0}),
    "Rprop_lr_zero": ("Rprop", {"learning_rate": 0.0}),
    "Rprop_range_zero": ("Rprop", {"learning_rate": 0.01, "learning_rate_range": (0, 1)}),
    "Rprop_range_reversed": ("Rprop", {"learning_rate": 0.01,
                                       "learning_rate_range": (1, 0.001)}),
    "Rprop_etas_plus": ("Rprop", {"etas": (0.5, 1.0)}),
    "Rprop_etas_minus": ("Rprop", {"etas": (1.0, 1.2)}),
    "Rprop_etas_zero": ("Rprop", {"etas": (0, 1.2)}),
    "Rprop_etas_scalar": ("Rprop", {"etas": 0.5}),
    "Rprop_wd": ("Rprop", {"weight_decay": 0.1}),
}
for case, (name, kw) in ERRORS.items():
    cmp("raise_" + case, make(name, **kw), [], grad=False)
cmp("Rprop_sched", lambda P: P.optimizer.Rprop(
    learning_rate=P.optimizer.lr.StepDecay(0.01, 2), parameters=[P.to_tensor(W0)]), [],
    grad=False)
cmp("ok_NAdam_beta_tensor", make("NAdam", beta1=np.float32(0.8)), [], grad=False)
cmp("ok_ASGD_negative_lr", make("ASGD", learning_rate=-1.0), [], grad=False)
