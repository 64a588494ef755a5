"""Optimizers and schedulers: parameters after 5 steps of a small model, and the rates."""

_r = np.random.default_rng(0)
W0 = _r.standard_normal((3, 2)).astype("float32")
B0 = _r.standard_normal(2).astype("float32")
X0 = _r.standard_normal((4, 3)).astype("float32")


def train(make_opt, steps=5, sched=None):
    def fn(P):
        W = P.to_tensor(W0.copy(), stop_gradient=False)
        b = P.to_tensor(B0.copy(), stop_gradient=False)
        s = sched(P) if sched else None
        opt = make_opt(P, [W, b], s)
        x, lrs = P.to_tensor(X0), []
        for _ in range(steps):
            loss = P.mean(P.tanh(P.matmul(x, W) + b) ** 2)
            loss.backward()
            opt.step()
            opt.clear_grad()
            lrs.append(opt.get_lr())
            if s is not None:
                s.step()
        return W.detach(), b.detach(), P.to_tensor(np.array(lrs, "float64"))
    return fn


def O(name, **kw):  # noqa: N802
    return lambda P, ps, s: getattr(P.optimizer, name)(learning_rate=0.1 if s is None else s,
                                                       parameters=ps, **kw)


OPTS = {
    "SGD": O("SGD"), "SGD_wd": O("SGD", weight_decay=0.01),
    "Momentum": O("Momentum", momentum=0.9),
    "Momentum_nesterov": O("Momentum", momentum=0.9, use_nesterov=True),
    "Adam": O("Adam"), "Adam_wd": O("Adam", weight_decay=0.01), "AdamW": O("AdamW"),
    "AdamW_wd": O("AdamW", weight_decay=0.1),
    "Adam_clip": lambda P, ps, s: P.optimizer.Adam(0.1, parameters=ps,
                                                   grad_clip=P.nn.ClipGradByGlobalNorm(0.01)),
    "SGD_clipnorm": lambda P, ps, s: P.optimizer.SGD(0.1, parameters=ps,
                                                     grad_clip=P.nn.ClipGradByNorm(0.01)),
    "RMSProp": O("RMSProp"), "RMSProp_centered": O("RMSProp", momentum=0.5, centered=True),
    "Adagrad": O("Adagrad"), "Adamax": O("Adamax"), "Adadelta": O("Adadelta"),
    "Lamb": O("Lamb"),
}
for name, mk in OPTS.items():
    cmp(name, train(mk), [], grad=False, rtol=1e-5)

SCHED = {
    "StepDecay": lambda P: P.optimizer.lr.StepDecay(0.1, 2, 0.5),
    "MultiStepDecay": lambda P: P.optimizer.lr.MultiStepDecay(0.1, [1, 3], 0.5),
    "ExponentialDecay": lambda P: P.optimizer.lr.ExponentialDecay(0.1, 0.9),
    "CosineAnnealingDecay": lambda P: P.optimizer.lr.CosineAnnealingDecay(0.1, 4),
    "PiecewiseDecay": lambda P: P.optimizer.lr.PiecewiseDecay([2, 4], [0.1, 0.05, 0.01]),
    "LinearWarmup": lambda P: P.optimizer.lr.LinearWarmup(0.1, 3, 0.0, 0.1),
    "LambdaDecay": lambda P: P.optimizer.lr.LambdaDecay(0.1, lambda e: 0.5 ** e),
    "NoamDecay": lambda P: P.optimizer.lr.NoamDecay(16, 2, 1.0),
    "PolynomialDecay": lambda P: P.optimizer.lr.PolynomialDecay(0.1, 4, 0.01),
    "PolynomialDecay_cycle": lambda P: P.optimizer.lr.PolynomialDecay(0.1, 2, 0.01, cycle=True),
    "InverseTimeDecay": lambda P: P.optimizer.lr.InverseTimeDecay(0.1, 0.5),
    "NaturalExpDecay": lambda P: P.optimizer.lr.NaturalExpDecay(0.1, 0.5),
    "OneCycleLR": lambda P: P.optimizer.lr.OneCycleLR(0.1, 8),
    "CyclicLR": lambda P: P.optimizer.lr.CyclicLR(0.01, 0.1, 2),
}
for name, sched in SCHED.items():
    cmp(name, train(lambda P, ps, s: P.optimizer.SGD(learning_rate=s, parameters=ps), 7, sched),
        [], grad=False, rtol=1e-6)
