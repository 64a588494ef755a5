"""A new structure's first backward runs the array rules of the fused ops that had only a
Tensor rule (their vjp, run on Tensors by ops/core.vjp_on_arrays): bce, bce_logits, prod,
cumprod, linscan, cross, det, slogdet, block_mean (the compiled Program's gradient bit for
bit: the same products as their lowered rows), the linear algebra and the recurrent scans
(within float32 rounding: numpy's matmul for the VM's GEMM) and grad_link. Each gives the
finite-difference gradient in float64, and never calls the vjp."""

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

def _wellcond(*shape):
    return _u(-0.5, 0.5, *shape) + 2 * np.eye(*shape[-2:])


def _spd(*shape):
    a = _u(-0.5, 0.5, *shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _sym(a):
    """The symmetric part: the loss then depends on every entry, and finite differences
    see the symmetric gradient cholesky and eigh give (they read one triangle)."""
    return (a + paddle.linalg.matrix_transpose(a)) * 0.5


def _eigh(a):
    w, v = paddle.linalg.eigh(_sym(a))
    return w, v * v                         # (eigenvectors' signs: LAPACK's choice)


def _svd(a):
    u, s, vh = paddle.linalg.svd(a)
    return u * u, s, vh * vh


MASK = np.array([[True, True], [True, False], [True, False], [False, False]])


def _scan_inputs(G, states, T=4, B=2, H=3):
    """gx [T, B, G*H], w [G*H, H], b [G*H] and the initial states [B, H]."""
    return (_u(-1, 1, T, B, G * H), _u(-0.7, 0.7, G * H, H), _u(-0.5, 0.5, G * H)) + \
        tuple(_u(-1, 1, B, H) for _ in range(states))


def _scan(mode, reverse=False, mask=None):
    from jitgrad.ops.recurrent import recurrence
    return lambda gx, w, b, *state: recurrence(mode, gx, w, b, state, reverse, mask)


# The linear algebra and recurrence rules multiply by numpy's matmul, the lowered rows by
# the VM's GEMM: the same gradients within float32 rounding. The others multiply as their
# rows do.
GEMM_CASES = {
    "inverse": ("inverse", (_wellcond(2, 4, 4),), lambda a: paddle.linalg.inv(a)),
    "solve": ("solve", (_wellcond(2, 4, 4), _u(-1, 1, 2, 4, 3)), paddle.linalg.solve),
    "cholesky": ("cholesky", (_spd(2, 4, 4),), lambda a: paddle.linalg.cholesky(_sym(a))),
    "eigh": ("eigh", (_u(-1, 1, 2, 4, 4),), _eigh),
    "eigvalsh": ("eigvalsh", (_u(-1, 1, 4, 4),), lambda a: paddle.linalg.eigvalsh(_sym(a))),
    "svd_tall": ("svd", (_u(-1, 1, 5, 3),), _svd),
    "svd_wide_batch": ("svd", (_u(-1, 1, 2, 3, 5),), _svd),
    "svdvals": ("svdvals", (_u(-1, 1, 2, 5, 3),), lambda a: paddle.linalg.svdvals(a)),
    "pinv_tall": ("pinv", (_wellcond(5, 3),), lambda a: paddle.linalg.pinv(a)),
    "pinv_wide_batch": ("pinv", (_wellcond(2, 3, 3)[..., :2, :],),
                        lambda a: paddle.linalg.pinv(a)),
    "pinv_hermitian": ("pinv", (_spd(3, 3),),
                       lambda a: paddle.linalg.pinv(_sym(a), hermitian=True)),
    "pinv_truncated": ("pinv", (np.diag([2.0, 1.0, 0.4]) + 0.1 * _u(-1, 1, 3, 3),),
                       lambda a: paddle.linalg.pinv(a, rcond=0.3)),
    "lstm": ("lstm_scan", _scan_inputs(4, 2), _scan("LSTM")),
    "lstm_reverse_masked": ("lstm_scan", _scan_inputs(4, 2), _scan("LSTM", True, MASK)),
    "gru": ("gru_scan", _scan_inputs(3, 1), _scan("GRU")),
    "gru_reverse_masked": ("gru_scan", _scan_inputs(3, 1), _scan("GRU", True, MASK)),
    "rnn_tanh_masked": ("rnn_scan", _scan_inputs(1, 1), _scan("RNN_TANH", False, MASK)),
    "rnn_relu_reverse": ("rnn_scan", _scan_inputs(1, 1), _scan("RNN_RELU", True)),
    "qr_tall": ("qr", (_u(-1, 1, 5, 3),), paddle.linalg.qr),
    "qr_square_batch": ("qr", (_wellcond(2, 3, 3),), paddle.linalg.qr),
}
CASES.update({
    "det": ("det", (_wellcond(2, 3, 3),), paddle.linalg.det),
    "slogdet": ("slogdet", (_wellcond(2, 3, 3),), lambda a: paddle.linalg.slogdet(a)[1]),
    "block_mean": ("block_mean", (_u(-1, 1, 2, 3, 4, 6),),
                   lambda x: F.adaptive_avg_pool2d(x, (2, 2))),
    "block_mean_3x3": ("block_mean", (_u(-1, 1, 1, 2, 6, 6),),
                       lambda x: F.adaptive_avg_pool2d(x, 2)),
})
ALL = {**CASES, **GEMM_CASES}
WEIGHTS: dict = {}


def _loss(name, tensors):
    """sum(op(...) * fixed weights), over each output: each element gets its own
    gradient."""
    outs = ALL[name][2](*tensors)
    total = 0
    for i, out in enumerate(outs if isinstance(outs, (tuple, list)) else [outs]):
        w = WEIGHTS.setdefault((name, i), RNG.uniform(-1, 1, out.shape))
        total = total + (out * paddle.to_tensor(w.astype(out.numpy().dtype))).sum()
    return total


def _grads(name, dtype="float32"):
    ts = [paddle.to_tensor(a.astype(dtype), stop_gradient=False) for a in ALL[name][1]]
    _loss(name, ts).backward()
    return [t.grad.numpy() for t in ts]


def _finite_differences(name, eps=1e-6):
    arrays = [a.astype(np.float64) for a in ALL[name][1]]

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


@pytest.mark.parametrize("name", sorted(GEMM_CASES))
def test_the_interpreted_rule_gives_the_compiled_gradient(name, fresh_cache):
    interpreted, compiled = interpreted_and_compiled(lambda: _grads(name))
    for a, b in zip(interpreted, compiled):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6 * np.abs(b).max())


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_interpreted_rule_gives_finite_differences(name, fresh_cache, monkeypatch):
    monkeypatch.setattr(config.SETTINGS, "interpret_new", True)
    paddle.warmup(quiet=True)
    found = _grads(name, "float64")
    assert paddle.cache_info().interpreted == 1
    for a, b in zip(found, _finite_differences(name)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_interpreted_backward_runs_the_array_rule_not_the_vjp(name, fresh_cache,
                                                                   monkeypatch):
    op = REGISTRY[ALL[name][0]]
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


def test_a_double_grad_graphs_links_interpreted_give_the_closed_form(fresh_cache,
                                                                     monkeypatch):
    # d/dx sum(x * w) = w, linked to x (grad_link: Paddle's explicit zero gradient for x);
    # the backward of sum(w * c) through it: w.grad = c, x.grad = 0
    link = REGISTRY["grad_link"]

    def tensor_rule(*args, **kw):
        raise AssertionError("the interpreted backward ran grad_link's vjp")
    c = np.array([0.5, -2.0, 3.0], np.float32)

    def grads():
        x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
        w = paddle.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
        (gx,) = paddle.grad((x * w).sum(), x, create_graph=True)
        (gx * paddle.to_tensor(c)).sum().backward()
        return x.grad.numpy(), w.grad.numpy()

    interpreted, compiled = interpreted_and_compiled(grads)
    monkeypatch.setattr(link, "vjp", tensor_rule)
    for found in (interpreted, compiled, interpreted_and_compiled(grads)[0]):
        np.testing.assert_array_equal(found[0], [0.0, 0.0, 0.0])
        np.testing.assert_array_equal(found[1], c)
