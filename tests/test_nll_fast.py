"""The common-call fast paths of cross_entropy, nll_loss (ops/loss.py) and log_softmax
(ops/nn.py), which record their node themselves with the kernels' coefficients:

- exact values and gradients against numpy closed forms, on inputs where every step is
  exact (dyadic log-probabilities; logits constant along each row, whose softmax is
  1 / C): int64 and int32 labels, shapes [N] and [N, 1], ignore_index hits, class
  weights, reductions none / sum / mean, label smoothing, soft labels;
- bit for bit the general path's values and gradients on random data (the general label
  handling: loss._compiled_forward patched away);
- a program-cache hit per fresh graph, each with its own gradient; labels written after
  the loss was recorded change nothing;
- the general path's errors for bad labels, reductions and inputs.
"""

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import interpreted_and_compiled
import jitgrad.nn.functional as F
from jitgrad.ops import loss as L
from jitgrad.ops import nn as NN


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


def _row_constant_logits(N, C, dtype=np.float32):
    """[N, C] logits constant along each row (a different constant per row): softmax 1 / C
    exactly for C a power of two, log-softmax -log(C)."""
    return np.repeat(np.linspace(-3.0, 2.0, N)[:, None], C, axis=1).astype(dtype)


def _dyadic_log_probs(rng, N, C):
    """[N, C] negative multiples of 1/8: their products with 1 / 2^k and sums are exact."""
    return (-rng.integers(1, 64, (N, C)) / 8).astype(np.float32)


def _grad(fn, x0):
    x = paddle.to_tensor(x0, stop_gradient=False)
    loss = fn(x)
    (loss.sum() if loss.ndim else loss).backward()
    return loss.numpy(), x.grad.numpy()


def _one_hot(lab, C):
    return np.eye(C, dtype=np.float64)[lab]


def _nll_of_uniform(lab, C):
    """nll_loss's mean of log_softmax of row-constant logits: -sum(onehot / N * logp) as
    numpy sums float32 (its pairwise order: the log-probabilities -log(C) are not dyadic)."""
    coef = (_one_hot(lab, C) / len(lab)).astype(np.float32)
    return -(coef * np.float32(-np.log(C))).sum()


# ---- nll_loss: exact closed forms ------------------------------------------------------------

@pytest.mark.parametrize("label_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_is_minus_the_picked_log_probabilities(label_dtype, reduction):
    rng = np.random.default_rng(1)
    x0 = _dyadic_log_probs(rng, 8, 16)
    lab = rng.integers(0, 16, 8).astype(label_dtype)
    loss, g = _grad(lambda x: F.nll_loss(x, paddle.to_tensor(lab), reduction=reduction), x0)
    picked = x0[np.arange(8), lab].astype(np.float64)
    k = 1 / 8 if reduction == "mean" else 1.0
    assert loss.dtype == np.float32 and loss.shape == ()
    assert loss == np.float32(-picked.sum() * k)
    np.testing.assert_array_equal(g, -k * _one_hot(lab, 16))


def test_nll_loss_ignored_labels_count_for_nothing():
    rng = np.random.default_rng(2)
    x0 = _dyadic_log_probs(rng, 8, 16)
    lab = rng.integers(0, 16, 8)
    lab[[1, 4, 5, 7]] = -100
    counted = lab != -100
    loss, g = _grad(lambda x: F.nll_loss(x, paddle.to_tensor(lab)), x0)
    rows = np.flatnonzero(counted)
    assert loss == np.float32(-x0[rows, lab[rows]].astype(np.float64).sum() / 4)
    want = np.zeros((8, 16))
    want[rows, lab[rows]] = -0.25
    np.testing.assert_array_equal(g, want)


def test_nll_loss_weights_divide_by_the_summed_weights_of_the_labels():
    rng = np.random.default_rng(3)
    x0 = _dyadic_log_probs(rng, 8, 8)
    lab = np.arange(8)
    w = np.array([2, 0.5, 0.5, 1, 1, 1, 1, 1], np.float32)         # w[lab].sum() == 8
    loss, g = _grad(lambda x: F.nll_loss(x, paddle.to_tensor(lab),
                                         weight=paddle.to_tensor(w)), x0)
    picked = x0[np.arange(8), lab].astype(np.float64)
    assert loss == np.float32(-(w * picked).sum() / 8)
    np.testing.assert_array_equal(g, -_one_hot(lab, 8) * (w / 8)[:, None])


def test_nll_loss_reduction_none_keeps_one_loss_per_row():
    rng = np.random.default_rng(4)
    x0 = _dyadic_log_probs(rng, 8, 16)
    lab = rng.integers(0, 16, 8).astype(np.int32)
    loss, g = _grad(lambda x: F.nll_loss(x, paddle.to_tensor(lab), reduction="none"), x0)
    np.testing.assert_array_equal(loss, -x0[np.arange(8), lab])
    np.testing.assert_array_equal(g, -_one_hot(lab, 16))


def test_nll_loss_of_log_softmax_has_the_softmax_minus_one_hot_gradient():
    x0 = _row_constant_logits(8, 16)
    lab = np.array([0, 3, 15, 7, 7, 1, 2, 9])
    loss, g = _grad(lambda x: F.nll_loss(F.log_softmax(x, axis=-1), paddle.to_tensor(lab)),
                    x0)
    assert loss == _nll_of_uniform(lab, 16)
    np.testing.assert_array_equal(g, (1 / 16 - _one_hot(lab, 16)) / 8)


# ---- cross_entropy: exact closed forms -------------------------------------------------------

@pytest.mark.parametrize("label_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("keep_dim", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_is_log_c_with_softmax_minus_one_hot_gradient(label_dtype, keep_dim,
                                                                    reduction):
    N, C = 8, 16
    x0 = _row_constant_logits(N, C)
    lab = np.array([0, 3, 15, 7, 7, 1, 2, 9], label_dtype)
    label = paddle.to_tensor(lab[:, None] if keep_dim else lab)
    loss, g = _grad(lambda x: F.cross_entropy(x, label, reduction=reduction), x0)
    k = 1 / N if reduction == "mean" else 1.0
    if reduction == "none":
        assert loss.shape == ((N, 1) if keep_dim else (N,))
        np.testing.assert_array_equal(loss.reshape(-1), np.full(N, np.log(C), np.float32))
    else:
        assert loss.shape == () and loss == np.float32(np.log(C) * N * k)
    np.testing.assert_array_equal(g, (1 / C - _one_hot(lab, C)) * k)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_ignored_rows_get_no_loss_and_no_gradient(reduction):
    N, C = 8, 16
    x0 = _row_constant_logits(N, C)
    lab = np.array([0, -100, 15, 7, -100, 1, 2, 9])
    counted = (lab != -100)[:, None]
    loss, g = _grad(lambda x: F.cross_entropy(x, paddle.to_tensor(lab), reduction=reduction),
                    x0)
    # mean: Paddle divides by every row (mean_all) for a negative ignore_index
    k = 1 / N if reduction == "mean" else 1.0
    if reduction == "none":
        np.testing.assert_array_equal(loss, np.where(counted[:, 0], np.float32(np.log(C)), 0))
    else:
        assert loss == np.float32(np.log(C) * 6 * k)
    want = np.where(counted, (1 / C - _one_hot(np.where(counted[:, 0], lab, 0), C)) * k, 0)
    np.testing.assert_array_equal(g, want)


def test_cross_entropy_mean_divides_by_the_counted_rows_for_a_class_ignore_index():
    N, C = 8, 16
    x0 = _row_constant_logits(N, C)
    lab = np.array([2, 3, 2, 7, 2, 1, 2, 9])              # 4 rows labelled 2: ignored
    loss, g = _grad(lambda x: F.cross_entropy(x, paddle.to_tensor(lab), ignore_index=2), x0)
    assert loss == np.float32(np.log(C))
    counted = (lab != 2)[:, None]
    np.testing.assert_array_equal(g, np.where(counted, (1 / C - _one_hot(lab, C)) / 4, 0))


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("ignore", [False, True])
def test_cross_entropy_label_smoothing_mixes_the_one_hot_with_uniform(reduction, ignore):
    N, C, eps = 16, 4, 0.5
    x0 = _row_constant_logits(N, C)
    lab = np.arange(N) % C
    if ignore:
        lab[[2, 9]] = -100
    counted = (lab != -100)[:, None]
    loss, g = _grad(lambda x: F.cross_entropy(x, paddle.to_tensor(lab), reduction=reduction,
                                              label_smoothing=eps), x0)
    target = _one_hot(np.where(counted[:, 0], lab, 0), C) * (1 - eps) + eps / C
    k = 1 / N if reduction == "mean" else 1.0
    assert loss == np.float32(np.log(C) * counted.sum() * k)
    np.testing.assert_array_equal(g, np.where(counted, (1 / C - target) * k, 0))


def test_cross_entropy_soft_labels_give_softmax_minus_target_gradient():
    N, C = 16, 4
    x0 = _row_constant_logits(N, C)
    target = np.tile(np.array([0.5, 0.25, 0.25, 0.0], np.float32), (N, 1))
    loss, g = _grad(lambda x: F.cross_entropy(x, paddle.to_tensor(target), soft_label=True),
                    x0)
    assert loss == np.float32(np.log(C))
    np.testing.assert_array_equal(g, (1 / C - target) / N)


# ---- the general path, bit for bit -----------------------------------------------------------

def _bits(out):
    return [(a.dtype, a.shape, a.tobytes()) for a in out]


CASES = {
    "ce": lambda x, lab: F.cross_entropy(x, lab),
    "ce_sum_keep_dim": lambda x, lab: F.cross_entropy(x, lab[:, None], reduction="sum"),
    "ce_none": lambda x, lab: F.cross_entropy(x, lab, reduction="none"),
    "ce_ignore_class": lambda x, lab: F.cross_entropy(x, lab, ignore_index=3),
    "ce_smooth": lambda x, lab: F.cross_entropy(x, lab, label_smoothing=0.1),
    "ce_smooth_none": lambda x, lab: F.cross_entropy(x, lab, label_smoothing=1.0,
                                                     reduction="none", ignore_index=3),
    "nll": lambda x, lab: F.nll_loss(F.log_softmax(x, axis=1), lab),
    "nll_sum_ignore": lambda x, lab: F.nll_loss(x, lab, reduction="sum", ignore_index=3),
}
IGNORE_3 = {"ce_ignore_class", "ce_smooth_none", "nll_sum_ignore"}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("label_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_paths_equal_the_general_label_handling(case, label_dtype, dtype, monkeypatch):
    rng = np.random.default_rng(5)
    x0 = (rng.standard_normal((24, 10)) * 3).astype(dtype)
    x0[4, 2] = -np.inf
    lab = rng.integers(0, 10, 24).astype(label_dtype)
    lab[[1, 7, 8]] = 3                  # ignored by the cases with ignore_index=3
    if case not in IGNORE_3:
        lab[[2, 11]] = -100
    fn = CASES[case]
    fast = _grad(lambda x: fn(x, paddle.to_tensor(lab)), x0)
    monkeypatch.setattr(L, "_compiled_forward", lambda: None)       # the general path
    general = _grad(lambda x: fn(x, paddle.to_tensor(lab)), x0)
    assert _bits(fast) == _bits(general)


@pytest.mark.parametrize("axis", [-1, 1])
def test_log_softmax_fast_path_is_the_ops_forward(axis):
    rng = np.random.default_rng(6)
    x0 = (rng.standard_normal((32, 16)) * 4).astype(np.float32)
    x0[3, 5] = -np.inf
    out = F.log_softmax(paddle.to_tensor(x0, stop_gradient=False), axis=axis)
    want, (soft,) = NN._log_softmax(x0, 1)
    assert out.numpy().tobytes() == want.tobytes()
    assert out._node.attrs == {"axis": 1}
    assert out._node.saved[0].tobytes() == soft.tobytes()


# ---- graphs in a row, labels written afterwards ----------------------------------------------

LOSSES = {
    "cross_entropy": lambda x, y: F.cross_entropy(x, y),
    "smoothed": lambda x, y: F.cross_entropy(x, y, label_smoothing=0.5),
    "nll_of_log_softmax": lambda x, y: F.nll_loss(F.log_softmax(x, axis=-1), y),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_fresh_graphs_in_a_row_hit_the_cache_each_with_its_own_gradient(name, fresh_cache):
    N, C = 16, 8
    eps = 0.5 if name == "smoothed" else 0.0
    hits = []
    for step, lab in enumerate((np.arange(N) % C, (np.arange(N) * 3 + 1) % C,
                                np.full(N, 5))):
        x = paddle.to_tensor(_row_constant_logits(N, C) + step, stop_gradient=False)
        loss = LOSSES[name](x, paddle.to_tensor(lab))
        loss.backward()
        target = _one_hot(lab, C) * (1 - eps) + eps / C
        want = _nll_of_uniform(lab, C) if name.startswith("nll") else np.float32(np.log(C))
        assert loss.numpy() == want
        np.testing.assert_array_equal(x.grad.numpy(), (1 / C - target) / N)
        hits.append(paddle.cache_info().hits)
    assert hits[1] == hits[0] + 1 and hits[2] == hits[1] + 1


@pytest.mark.parametrize("as_tensor", [False, True])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_labels_written_after_the_loss_change_nothing(name, as_tensor):
    N, C = 16, 8
    eps = 0.5 if name == "smoothed" else 0.0
    lab = np.arange(N) % C
    want = (1 / C - (_one_hot(lab, C) * (1 - eps) + eps / C)) / N
    y = paddle.to_tensor(lab) if as_tensor else lab.copy()
    x = paddle.to_tensor(_row_constant_logits(N, C), stop_gradient=False)
    loss = LOSSES[name](x, y)
    if as_tensor:
        y.fill_(7)
    else:
        y[:] = 7
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), want)


# ---- errors ----------------------------------------------------------------------------------

X = np.zeros((8, 16), np.float32)
ERRORS = {
    "float labels": (lambda: F.cross_entropy(paddle.to_tensor(X), np.zeros(8, np.float32)),
                     TypeError, "hard labels must be integers"),
    "label shape": (lambda: F.cross_entropy(paddle.to_tensor(X), np.zeros(7, np.int64)),
                    ValueError, r"label shape \[7\] does not fit"),
    "label [N, 2]": (lambda: F.cross_entropy(paddle.to_tensor(X), np.zeros((8, 2), np.int64)),
                     ValueError, r"label shape \[8, 2\] does not fit"),
    "label = C": (lambda: F.cross_entropy(paddle.to_tensor(X), np.full(8, 16)),
                  ValueError, r"cross_entropy: labels must lie in \[0, 16\)"),
    "negative int32 label": (
        lambda: F.cross_entropy(paddle.to_tensor(X), np.full(8, -1, np.int32)),
        ValueError, r"labels must lie in \[0, 16\) or equal ignore_index \(-100\)"),
    "smoothed label = C": (
        lambda: F.cross_entropy(paddle.to_tensor(X), np.full(8, 16), label_smoothing=0.1),
        ValueError, r"labels must lie in \[0, 16\)"),
    "reduction": (lambda: F.cross_entropy(paddle.to_tensor(X), np.zeros(8, np.int64),
                                          reduction="avg"),
                  ValueError, "reduction must be one of"),
    "int logits": (lambda: F.cross_entropy(paddle.to_tensor(X.astype(np.int64)),
                                           np.zeros(8, np.int64)),
                   TypeError, "expects a float tensor"),
    "numpy logits": (lambda: F.cross_entropy(X, np.zeros(8, np.int64)),
                     TypeError, "argument 'input' must be a Tensor"),
    "nll label = C": (lambda: F.nll_loss(paddle.to_tensor(X), np.full(8, 16)),
                      ValueError, r"nll_loss: labels must lie in \[0, 16\)"),
    "nll label [N, 1]": (lambda: F.nll_loss(paddle.to_tensor(X), np.zeros((8, 1), np.int64)),
                         ValueError, r"nll_loss: label shape \[8, 1\] does not fit"),
    "nll reduction": (lambda: F.nll_loss(paddle.to_tensor(X), np.zeros(8, np.int64),
                                         reduction="x"),
                      ValueError, "reduction must be one of"),
    "nll 1-D input": (lambda: F.nll_loss(paddle.to_tensor(X[0]), np.zeros(1, np.int64)),
                      ValueError, r"input must be \[N, C, ...\]"),
    "nll list input": (lambda: F.nll_loss([[0.0, 1.0]], np.zeros(1, np.int64)),
                       TypeError, "argument 'input' must be a Tensor"),
    "log_softmax numpy": (lambda: F.log_softmax(X), TypeError, "argument 'x' must be a Tensor"),
    "log_softmax axis": (lambda: F.log_softmax(paddle.to_tensor(X), axis=2),
                         ValueError, "out of range"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_bad_inputs_raise_the_general_paths_errors(case):
    fn, exc, match = ERRORS[case]
    for _ in range(2):                  # (and again after the first: nothing cached wrongly)
        with pytest.raises(exc, match=match):
            fn()


TT = paddle.to_tensor


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [False, True])
def test_a_new_structures_interpreted_cross_entropy_gradient_is_the_compiled_ones(
        reduction, ignore, fresh_cache):
    # nll's array rule multiplies the forward's saved factors, as its lowered rows do
    # (the vjp recomputed the softmax in Tensor ops)
    rng = np.random.default_rng(3)
    xa = rng.standard_normal((6, 5)).astype(np.float32)
    labels = np.array([0, 4, 2, 2, 1, 3])
    if ignore:
        labels[2] = -100

    def grad():
        x = TT(xa, stop_gradient=False)
        loss = F.cross_entropy(x, TT(labels), reduction=reduction)
        (loss * TT(np.linspace(0.5, 1.5, loss.size).reshape(loss.shape)
                   .astype(np.float32))).sum().backward()
        return x.grad.numpy()

    interpreted, compiled = interpreted_and_compiled(grad)
    np.testing.assert_array_equal(interpreted, compiled)
