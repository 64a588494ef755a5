"""Linear ops (ops/linear.py): each states its transpose once; its eager vjp and its compiled
lowering are derived from it. For every case of every such registry op:

- the adjoint identity <op(x), g> = <x, op^T(g)> holds for the eager vjp;
- the gradient of <op^T(g), w> with respect to g, through both the eager rules and the
  compiled backward, is op(w): the transpose's own transpose (derived the same way) leads
  back to the op.
"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.autograd.eager import eager_gradients
from jitgrad.core.tensor import Tensor
from jitgrad.ops import REGISTRY
from jitgrad.ops.core import apply, out_tensor

LINEAR = sorted(name for name, op in REGISTRY.items() if "linear" in op.extra)
CASES = [(name, i) for name in LINEAR for i in range(len(REGISTRY[name].cases))]


def test_the_linear_ops():
    assert LINEAR == ["broadcast_to", "cast", "concat", "cumsum", "getitem", "mean",
                      "pad_constant", "put_flat", "reshape", "scatter_flat", "sum",
                      "take_flat", "transpose", "triangle"]


def _case(name, i, seed=0):
    op = REGISTRY[name]
    case = op.cases[i]
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal(s) for s in case["shapes"]]
    return op, case.get("attrs", {}), xs


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_adjoint_identity(name, i):
    op, attrs, xs = _case(name, i)
    leaves = [Tensor._make(x, stop_gradient=False) for x in xs]
    out = apply(op, *leaves, **attrs)
    g = np.random.default_rng(1).standard_normal(out._data.shape)
    grads = op.vjp(Tensor._make(g), out_tensor(out._node), *leaves, **attrs)
    lhs = float(np.sum(out._data * g))
    rhs = sum(float(np.sum(x * np.broadcast_to(gx._data, x.shape)))
              for x, gx in zip(xs, grads) if gx is not None)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("path", ["eager", "compiled"])
@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_transpose_of_the_transpose_is_the_op(name, i, path):
    op, attrs, xs = _case(name, i)
    leaves = [paddle.to_tensor(x, stop_gradient=False) for x in xs]
    out = apply(op, *leaves, **attrs)
    rng = np.random.default_rng(2)
    g = paddle.to_tensor(rng.standard_normal(out.shape), stop_gradient=False)
    found = eager_gradients([out], [g], targets=leaves, create_graph=True)
    ws = [rng.standard_normal(x.shape) for x in xs]
    s = sum((found[id(x)] * paddle.to_tensor(w)).sum() for x, w in zip(leaves, ws))
    if path == "eager":
        dg = eager_gradients([s], [None], targets=[g])[id(g)]
    else:
        (dg,) = paddle.grad(s, [g])
    if not op.cases[i].get("piecewise"):
        want = apply(op, *[Tensor._make(w) for w in ws], **attrs)
        np.testing.assert_allclose(dg.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
        return
    # linear once its winners are chosen (put_flat's extremes): the transpose of the
    # transpose is the derivative, along ws (central differences, no winner changing)
    def at(t):
        return apply(op, *[Tensor._make(x + t * w) for x, w in zip(xs, ws)], **attrs).numpy()
    np.testing.assert_allclose(dg.numpy(), (at(1e-6) - at(-1e-6)) / 2e-6, rtol=1e-7,
                               atol=1e-9)


def test_a_basic_slice_shares_one_read_only_index_map_per_shape_and_key():
    # (each step recomputed it and recopied it into the Program's tables)
    x = paddle.to_tensor(np.arange(12.0).reshape(3, 4), stop_gradient=False)
    a, b, c = x[:, 1:3], x[:, 1:3], x[1]
    assert a._node.saved[0] is b._node.saved[0] and not a._node.saved[0].flags.writeable
    assert a._node.saved[0].tolist() == [1, 2, 5, 6, 9, 10]
    assert c._node.saved[0].tolist() == [4, 5, 6, 7]
    (a.sum() * 2 + c.sum()).backward()
    assert x.grad.tolist() == [[0, 2, 2, 0], [1, 3, 3, 1], [0, 2, 2, 0]]
    i = x[np.array([0, 2])]
    assert i._node.saved[0].flags.writeable       # an index array's map: the graph's own
