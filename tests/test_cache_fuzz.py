"""Random training sessions against an independent numpy oracle.

The caches behind a backward (retained Programs and their armed replays, the structural
cache and its per-model families, leaf gradients owned by a Program and written through to
a foreign `.grad`, saved values read in place) each keep state between calls. Here random
sequences of what a user does between backward calls (fresh steps, retained replays, a
freed graph, clear_grad, `.grad = None` or a tensor, optimizer steps, set_value) run on
several models of one structure, and after every action each leaf's `.grad` is compared
with a float64 oracle written out below from the closed-form rules, with Paddle's
accumulation semantics. A replay through a graph whose parameters changed since it was
recorded either raises (when it needs a changed value) or gives the gradients of the values
recorded; one through a freed graph raises.

JITGRAD_FUZZ_SEEDS=N runs N seeds instead of the default few (a longer hunt).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import jitgrad as paddle

F = paddle.nn.functional
ACTS = ("tanh", "sin", "relu", "sigmoid")


# ---- the oracle: float64, rules written out -------------------------------------------------

def _act(name, h):
    return {"tanh": np.tanh, "sin": np.sin, "relu": lambda v: np.maximum(v, 0.0),
            "sigmoid": lambda v: 1.0 / (1.0 + np.exp(-v))}[name](h)


def _act_grad(name, h):
    if name == "tanh":
        return 1.0 - np.tanh(h) ** 2
    if name == "sin":
        return np.cos(h)
    if name == "relu":
        return (h > 0).astype(np.float64)
    s = 1.0 / (1.0 + np.exp(-h))
    return s * (1.0 - s)


def oracle_grads(spec, loss_kind, params, ins):
    """{name: d loss / d name} for every parameter and for 'x'.

    `ins` are the activations jitgrad's forward computed (each layer's input, then the
    output): the rules below are applied to them, so a relu whose input rounds to the other
    side of 0 in another summation order cannot make the two disagree."""
    P = {k: v.astype(np.float64) for k, v in params.items()}
    tape = [(kind, arg, a.astype(np.float64)) for (kind, arg), a in zip(spec, ins)]
    h = ins[-1].astype(np.float64)
    dh = {"sum": np.ones_like(h), "mean": np.full_like(h, 1.0 / h.size), "sumsq": h}[loss_kind]
    grads = {k: np.zeros_like(v) for k, v in P.items()}
    for kind, arg, hin in reversed(tape):
        if kind == "linear":
            grads[f"W{arg}"] += hin.T @ dh
            grads[f"b{arg}"] += dh.sum(axis=0)
            dh = dh @ P[f"W{arg}"].T
        elif kind == "act":
            dh = dh * _act_grad(arg, hin)
        elif kind == "scale":
            grads[f"c{arg}"] += dh * hin
            dh = dh * P[f"c{arg}"]
        else:
            dh = dh + dh * _act_grad(arg, hin)
    grads["x"] = dh
    return grads


# ---- the same model in jitgrad ----------------------------------------------------------------

def forward(spec, loss_kind, params, x):
    """(loss, the activations: each layer's input, then the last layer's output)."""
    h, ins = x, []
    for kind, arg in spec:
        ins.append(h.numpy())
        if kind == "linear":
            h = paddle.matmul(h, params[f"W{arg}"]) + params[f"b{arg}"]
        elif kind == "act":
            h = _jit_act(arg, h)
        elif kind == "scale":
            h = h * params[f"c{arg}"]
        else:
            h = h + _jit_act(arg, h)
    ins.append(h.numpy())
    if loss_kind == "sum":
        return paddle.sum(h), ins
    if loss_kind == "mean":
        return paddle.mean(h), ins
    return paddle.sum(h * h) * 0.5, ins


def _jit_act(name, h):
    return {"tanh": paddle.tanh, "sin": paddle.sin, "relu": F.relu,
            "sigmoid": F.sigmoid}[name](h)


def random_spec(rng):
    """3-7 layers over (B, D) activations; parameters may be used twice (shared leaves)."""
    spec, n_lin, n_scale = [], 0, 0
    for _ in range(int(rng.integers(3, 8))):
        kind = rng.choice(["linear", "act", "act", "scale", "residual"])
        if kind == "linear":
            reuse = n_lin and rng.random() < 0.25
            spec.append(("linear", int(rng.integers(n_lin)) if reuse else n_lin))
            n_lin += not reuse
        elif kind == "scale":
            reuse = n_scale and rng.random() < 0.25
            spec.append(("scale", int(rng.integers(n_scale)) if reuse else n_scale))
            n_scale += not reuse
        else:
            spec.append((str(kind), str(rng.choice(ACTS))))
    return spec


def param_shapes(spec, B, D):
    shapes = {}
    for kind, arg in spec:
        if kind == "linear":
            shapes[f"W{arg}"], shapes[f"b{arg}"] = (D, D), (D,)
        elif kind == "scale":
            shapes[f"c{arg}"] = (B, D)
    return shapes


class Model:
    """Leaves of one model, the oracle's record of their gradients, and versions."""

    def __init__(self, rng, shapes, D):
        self.values = {k: (rng.standard_normal(s) / (np.sqrt(D) if k[0] == "W" else 2.0))
                       .astype(np.float32) for k, s in shapes.items()}
        self.leaves = {k: paddle.to_tensor(v.copy(), stop_gradient=False)
                       for k, v in self.values.items()}
        self.expect = {k: None for k in shapes}       # what .grad must hold (None or array)
        self.version = 0                              # bumped by every parameter change

    def accumulate(self, grads):
        for k, g in grads.items():
            if k in self.expect:
                self.expect[k] = g.copy() if self.expect[k] is None else self.expect[k] + g


def check(model, where):
    for k, t in model.leaves.items():
        want, got = model.expect[k], t.grad
        if want is None:
            assert got is None, f"{where}: {k}.grad should be None"
            continue
        assert got is not None, f"{where}: {k}.grad is None"
        got = got.numpy()
        scale = max(float(np.max(np.abs(want))), 1e-3)
        err = float(np.max(np.abs(got - want))) / scale
        assert err < 2e-4, f"{where}: {k}.grad off by {err:.2e} (relative to its max)"


def expect_error(fn, match, where):
    try:
        fn()
    except RuntimeError as e:
        assert match in str(e), f"{where}: {e}"
    else:
        raise AssertionError(f"{where}: no RuntimeError ({match!r})")


def run_session(seed, n_actions=40):
    rng = np.random.default_rng(seed)
    big = seed % 3 == 0                         # 128 x 128: saved values read in place
    B, D = (128, 128) if big else (int(rng.integers(1, 6)), int(rng.integers(2, 9)))
    spec, loss_kind = random_spec(rng), str(rng.choice(["sum", "mean", "sumsq"]))
    shapes = param_shapes(spec, B, D)
    if not shapes:
        spec.append(("linear", 0))
        shapes = param_shapes(spec, B, D)
    models = [Model(rng, shapes, D) for _ in range(int(rng.integers(1, 6)))]
    live, freed = [], []                        # retained graphs: (loss, model, version, grads)
    lr = 0.05 if loss_kind == "mean" else 0.05 / (B * D)      # no divergence to nan
    opts = [paddle.optimizer.SGD(lr, parameters=list(m.leaves.values())) for m in models]
    log = []
    for step in range(n_actions):
        i = int(rng.integers(len(models)))
        m = models[i]
        action = str(rng.choice(["fresh", "fresh", "fresh", "fresh_x", "retain", "replay",
                                 "replay", "free", "drop", "clear", "none", "set_grad",
                                 "sgd", "set_value", "replay_freed", "seeded", "grad_api",
                                 "opt_clear"]))
        where = f"seed {seed}, step {step}: {action} on model {i}; before: {log[-6:]}"
        log.append(f"{action}@{i}")
        x_np = rng.standard_normal((B, D)).astype(np.float32)
        if action in ("fresh", "fresh_x"):
            x = paddle.to_tensor(x_np, stop_gradient=action == "fresh")
            loss, ins = forward(spec, loss_kind, m.leaves, x)
            loss.backward()
            grads = oracle_grads(spec, loss_kind, m.values, ins)
            m.accumulate(grads)
            if action == "fresh_x":
                want = grads["x"]
                err = np.max(np.abs(x.grad.numpy() - want)) / max(np.max(np.abs(want)), 1e-3)
                assert err < 2e-4, f"{where}: x.grad off by {err:.2e}"
        elif action == "retain":
            loss, ins = forward(spec, loss_kind, m.leaves, paddle.to_tensor(x_np))
            live.append((loss, m, m.version, oracle_grads(spec, loss_kind, m.values, ins)))
            if len(live) > 4:
                live.pop(0)
        elif action in ("replay", "free") and live:
            k = int(rng.integers(len(live)))
            loss, owner, version, grads = live[k]
            try:
                loss.backward(retain_graph=action == "replay")
            except RuntimeError as e:
                # only a graph whose parameters changed since, and whose backward needs a
                # changed value (a bias's add does not), may refuse
                assert owner.version != version and "modified by an in-place operation" in \
                    str(e), f"{where}: {e}"
                live.pop(k)
            else:                               # the values recorded then, not today's
                owner.accumulate(grads)
                if action == "free":
                    freed.append(live.pop(k)[0])
            check(owner, where)
        elif action in ("seeded", "grad_api") and live:
            loss, owner, version, grads = live[int(rng.integers(len(live)))]
            if owner.version == version:
                seed_value = float(rng.choice([0.0, 2.0, -0.5]))
                seed_t = paddle.to_tensor(np.float32(seed_value))
                if action == "seeded":          # a replay with an explicit seed
                    loss.backward(seed_t, retain_graph=True)
                    owner.accumulate({k: seed_value * g for k, g in grads.items()})
                else:                           # paddle.grad: returned, .grad untouched
                    names = sorted(owner.leaves)
                    got = paddle.grad([loss], [owner.leaves[k] for k in names], [seed_t],
                                      retain_graph=True)
                    for k, g in zip(names, got):
                        want = seed_value * grads[k]
                        err = np.max(np.abs(g.numpy() - want)) / max(np.max(np.abs(want)), 1e-3)
                        assert err < 2e-4, f"{where}: paddle.grad for {k} off by {err:.2e}"
                check(owner, where)
        elif action == "opt_clear":                 # the optimizer's clear_grad, either kind
            zero = bool(rng.integers(2))
            opts[i].clear_grad(set_to_zero=zero)
            for k in m.expect:
                if m.expect[k] is not None:
                    m.expect[k] = np.zeros_like(m.expect[k]) if zero else None
        elif action == "replay_freed" and freed:
            gone = freed[int(rng.integers(len(freed)))]
            expect_error(lambda: gone.backward(retain_graph=True), "retain_graph=True", where)
        elif action == "drop" and live:
            live.pop(int(rng.integers(len(live))))
        elif action == "clear":
            for k, t in m.leaves.items():
                t.clear_grad()
                if m.expect[k] is not None:
                    m.expect[k] = np.zeros_like(m.expect[k])
        elif action == "none":
            k = str(rng.choice(sorted(m.leaves)))
            m.leaves[k].grad = None
            m.expect[k] = None
        elif action == "set_grad":
            k = str(rng.choice(sorted(m.leaves)))
            g = rng.standard_normal(shapes[k]).astype(np.float32)
            m.leaves[k].grad = paddle.to_tensor(g)
            m.expect[k] = g.astype(np.float64)
        elif action == "sgd":
            opts[i].step()
            for k, t in m.leaves.items():
                if t.grad is not None:
                    m.values[k] = m.values[k] - np.float32(lr) * t.grad.numpy()
                    m.version += 1
        elif action == "set_value":
            k = str(rng.choice(sorted(m.leaves)))
            v = (m.values[k] * np.float32(0.9)).astype(np.float32)
            m.leaves[k].set_value(v)
            m.values[k] = v
            m.version += 1
        for mm in models:
            for k, t in mm.leaves.items():       # the oracle ran on the values jitgrad holds
                np.testing.assert_array_equal(t.numpy(), mm.values[k], err_msg=where)
            check(mm, where)


SEEDS = range(int(os.environ.get("JITGRAD_FUZZ_SEEDS", "24")))


@pytest.mark.parametrize("seed", SEEDS)
def test_random_session_matches_the_oracle(seed):
    run_session(seed)
