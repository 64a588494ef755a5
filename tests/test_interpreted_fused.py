"""A new structure's first backward runs the array rules of the fused ops that had only a
Tensor rule (their vjp, run on Tensors by ops/core.vjp_on_arrays): bce, bce_logits, prod,
cumprod, linscan, cross. Each gives the compiled Program's gradient bit for bit (the same
products as its lowered rows), the finite-difference gradient in float64, and never calls
the vjp."""

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import interpreted_and_compiled
from jitgrad.core import config
from jitgrad.ops.core import apply
from jitgrad.ops.registry import REGISTRY
from jitgrad.ops.scan import linscan_op

F = paddle.nn.functional
RNG = np.random.default_rng(25)


def _u(lo, hi, *shape):
    return RNG.uniform(lo, hi, shape)


LABELS = np.array([[0, 1, 1, 0], [1, 1, 0, 0], [0.3, 0.5, 0.9, 0], [1, 0, 0, 1]])
ZEROS = np.array([[0.5, 0.0, 1.5, -2.0], [1.2, 0.0, 0.0, 0.8], [0.0, -0.6, 1.1, 0.9]])

# name -> (the op whose rule runs, the inputs (all leaves), the output of their Tensors)
CASES = {
    # (the losses' label takes no gradient: the op's own rule for it is tested through apply)
    "bce_loss": ("bce", (_u(0.05, 0.95, 3, 4),),
                 lambda p: F.binary_cross_entropy(p, paddle.to_tensor(LABELS[:3], dtype=p.dtype))),
    "bce": ("bce", (_u(0.05, 0.95, 3, 4), _u(0, 1, 3, 4)),
            lambda p, y: apply(REGISTRY["bce"], p, y)),
    "bce_logits_loss": ("bce_logits", (_u(-3, 3, 4, 4),), lambda x: (
        F.binary_cross_entropy_with_logits(x, paddle.to_tensor(LABELS, dtype=x.dtype),
                                           reduction="sum"))),
    "bce_logits": ("bce_logits", (_u(-3, 3, 3, 4), _u(0, 1, 3, 4)),
                   lambda x, y: apply(REGISTRY["bce_logits"], x, y)),
    "prod_last": ("prod", (_u(0.5, 1.5, 3, 4),), lambda x: paddle.prod(x, axis=-1)),
    "prod_first_keepdim": ("prod", (_u(0.5, 1.5, 3, 4),),
                           lambda x: paddle.prod(x, axis=0, keepdim=True)),
    "prod_all_with_zeros": ("prod", (ZEROS[:, 2:],), lambda x: paddle.prod(x)),
    "prod_rows_with_zeros": ("prod", (ZEROS,), lambda x: paddle.prod(x, axis=1)),
    "cumprod_rows_with_zeros": ("cumprod", (ZEROS,), lambda x: paddle.cumprod(x, 1)),
    "cumprod_columns": ("cumprod", (_u(-1.5, 1.5, 4, 3, 2),), lambda x: paddle.cumprod(x, 1)),
    "cumprod_reverse": ("cumprod", (_u(-1.5, 1.5, 3, 5),), lambda x: apply(
        REGISTRY["cumprod"], x, axis=1, reverse=True)),
    "linscan": ("linscan", (_u(-1, 1, 3, 5), _u(-1, 1, 3, 5)),
                lambda a, b: apply(linscan_op, a, b, axis=1, reverse=False)),
    "linscan_reverse_columns": ("linscan", (_u(-1, 1, 4, 2), _u(-1, 1, 4, 2)),
                                lambda a, b: apply(linscan_op, a, b, axis=0, reverse=True)),
    "cross_last": ("cross", (_u(-2, 2, 4, 3), _u(-2, 2, 4, 3)),
                   lambda x, y: paddle.cross(x, y, axis=1)),
    "cross_middle": ("cross", (_u(-2, 2, 2, 3, 2), _u(-2, 2, 2, 3, 2)),
                     lambda x, y: paddle.cross(x, y, axis=1)),
}
WEIGHTS: dict = {}


def _loss(name, tensors):
    """sum(op(...) * fixed weights): each output element gets its own gradient."""
    out = CASES[name][2](*tensors)
    w = WEIGHTS.setdefault(name, RNG.uniform(-1, 1, out.shape))
    return (out * paddle.to_tensor(w.astype(out.numpy().dtype))).sum()


def _grads(name, dtype="float32"):
    ts = [paddle.to_tensor(a.astype(dtype), stop_gradient=False) for a in CASES[name][1]]
    _loss(name, ts).backward()
    return [t.grad.numpy() for t in ts]


def _finite_differences(name, eps=1e-6):
    arrays = [a.astype(np.float64) for a in CASES[name][1]]

    def f():
        with paddle.no_grad():
            return float(_loss(name, [paddle.to_tensor(a) for a in arrays]).numpy())
    found = []
    for a in arrays:
        d = np.zeros(a.shape)
        for i in np.ndindex(a.shape):
            keep = a[i]
            a[i] = keep + eps
            up = f()
            a[i] = keep - eps
            down = f()
            a[i] = keep
            d[i] = (up - down) / (2 * eps)
        found.append(d)
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_interpreted_rule_gives_the_compiled_gradient_bitwise(name, fresh_cache):
    interpreted, compiled = interpreted_and_compiled(lambda: _grads(name))
    for a, b in zip(interpreted, compiled):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_interpreted_rule_gives_finite_differences(name, fresh_cache, monkeypatch):
    monkeypatch.setattr(config.SETTINGS, "interpret_new", True)
    paddle.warmup(quiet=True)
    found = _grads(name, "float64")
    assert paddle.cache_info().interpreted == 1
    for a, b in zip(found, _finite_differences(name)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_interpreted_backward_runs_the_array_rule_not_the_vjp(name, fresh_cache,
                                                                   monkeypatch):
    op = REGISTRY[CASES[name][0]]
    ran = []

    def tensor_rule(*args, **kw):
        raise AssertionError(f"{name}: the interpreted backward ran the vjp")

    def array_rule(node, g, want):
        ran.append(node.op.name)
        return rule(node, g, want)
    rule = op.interp
    assert rule is not None, f"{op.name} has no array rule"
    monkeypatch.setattr(op, "vjp", tensor_rule)
    monkeypatch.setattr(op, "interp", array_rule)
    monkeypatch.setattr(config.SETTINGS, "interpret_new", True)
    assert all(np.isfinite(g).all() for g in _grads(name))
    assert paddle.cache_info().interpreted == 1
    assert ran == [op.name]


def test_before_numba_loads_linscan_is_numpys_loop_with_the_same_bits(monkeypatch,
                                                                      fresh_cache):
    from jitgrad.ops import scan
    monkeypatch.setattr(config.SETTINGS, "interpret_new", True)
    paddle.warmup(quiet=True)
    with_kernel = _grads("cumprod_columns")
    monkeypatch.setattr(scan, "compiled_kernels", lambda module: None)
    paddle.cache_clear()
    without = _grads("cumprod_columns")
    for a, b in zip(with_kernel, without):
        np.testing.assert_array_equal(a, b)
