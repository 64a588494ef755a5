"""Repeated backward calls agree across paths: fast path (Numba), reference, eager rules.

Paddle's accumulation rules (C.15, D.21, E.26) must hold call after call, whatever the
compiled path caches between calls (retained Programs, structurally cached Programs, leaf
gradients owned by the arena). Mixed float32/float64 graphs included (A.3).
"""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor
F = paddle.nn.functional


def loss_of(kind, x, w):
    c64 = TT(np.array([[0.5, -1.0, 2.0]]))
    if kind == "tanh_matmul":
        return paddle.sum(paddle.tanh(paddle.matmul(x, w)))
    if kind == "float64_constant":
        return paddle.sum((x * c64) ** 2) + paddle.mean(w)
    if kind == "softmax_cast":
        return paddle.sum(F.softmax(x, axis=1) * x.astype("float64")) + paddle.sum(w * w)
    if kind == "shared_interior":
        h = paddle.exp(x)
        return paddle.sum(h * 2 * h) + paddle.sum(paddle.matmul(x, w))
    return paddle.sum(paddle.maximum(x, x * 0.5) + paddle.clip(x, -0.5, 0.5)) + \
        paddle.sum(w[0] * 3)


def run_scenario(scenario, kind, arrays, dtypes, create_graph):
    make = lambda: [TT(a, dtype=d, stop_gradient=False)           # noqa: E731
                    for a, d in zip(arrays, dtypes)]
    snap = lambda ts: [t.grad.numpy() for t in ts]                 # noqa: E731
    xs, out = make(), []
    if scenario == "retained_replays":
        loss = loss_of(kind, *xs)
        for _ in range(3):
            loss.backward(retain_graph=True, create_graph=create_graph)
            out.append(snap(xs))
    elif scenario == "rebuilt_graphs_fresh_leaves":
        for _ in range(3):
            xs = make()
            loss_of(kind, *xs).backward(create_graph=create_graph)
            out.append(snap(xs))
    elif scenario == "rebuilt_graphs_grad_and_clear_between":
        for i in range(3):
            loss = loss_of(kind, *xs)
            if i == 1:
                out.append([g.numpy() for g in paddle.grad(loss, xs, retain_graph=True,
                                                            create_graph=create_graph)])
            loss.backward(create_graph=create_graph)
            out.append(snap(xs))
            if i == 1:
                for t in xs:
                    t.clear_grad()
    else:                                             # a user-installed grad, then replays
        loss = loss_of(kind, *xs)
        xs[0].grad = TT(np.ones((2, 3)), dtype=dtypes[0])
        for _ in range(2):
            loss.backward(retain_graph=True, create_graph=create_graph)
            out.append(snap(xs))
    return out


KINDS = ["tanh_matmul", "float64_constant", "softmax_cast", "shared_interior", "kinks"]
SCENARIOS = ["retained_replays", "rebuilt_graphs_fresh_leaves",
             "rebuilt_graphs_grad_and_clear_between", "user_grad_then_replays"]


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float64"),
                                    ("float32", "float64")])
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("kind", KINDS)
def test_repeated_backward_calls_agree_with_the_eager_rules(kind, scenario, dtypes):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((2, 3)), rng.standard_normal((3, 2))]
    want = run_scenario(scenario, kind, arrays, dtypes, create_graph=True)
    for vm_name in ("numba", "reference"):
        with paddle.vm.using(vm_name):
            got = run_scenario(scenario, kind, arrays, dtypes, create_graph=False)
        assert len(got) == len(want)
        for call, (gs, ws) in enumerate(zip(got, want)):
            for g, w in zip(gs, ws):
                assert g.dtype == w.dtype, (vm_name, call)
                tol = 1e-5 if g.dtype == np.float32 else 1e-12
                np.testing.assert_allclose(g, w, rtol=tol, atol=tol,
                                           err_msg=f"{vm_name}, call {call}")


def test_rebuilt_graphs_are_freed_by_each_backward():
    # D.19 on every rebuild (graph-structure caches included): the second backward raises
    # and adds nothing.
    for _ in range(3):
        x = TT([1.0, 2.0], stop_gradient=False)
        y = (paddle.exp(x) * x).sum()
        y.backward()
        with pytest.raises(RuntimeError, match="retain_graph=True"):
            y.backward()
        with pytest.raises(RuntimeError, match="retain_graph=True"):
            paddle.grad(y, x)
        np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]) * [2.0, 3.0], rtol=1e-6)
