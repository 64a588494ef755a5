"""ops/losses_seq.py (ctc_loss, rnnt_loss) and the CTCLoss / RNNTLoss layers: values against
brute-force enumeration of alignments, gradients against finite differences, and the
warpctc / warprnnt conventions measured on Paddle 3.3.1 (perf/paddle_cases/losses_seq.py
compares with Paddle itself)."""

import itertools

import numpy as np
import pytest

import jitgrad as paddle

F = paddle.nn.functional
TT = paddle.to_tensor


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def _collapse(path, blank):
    out, prev = [], None
    for p in path:
        if p != prev and p != blank:
            out.append(p)
        prev = p
    return out


def _ctc_brute(x, label, T, blank=0):
    """-log of the summed probability of every length-T path collapsing to label."""
    lp = _log_softmax(x[:T])
    total = sum(np.exp(sum(lp[t, p] for t, p in enumerate(path)))
                for path in itertools.product(range(x.shape[-1]), repeat=T)
                if _collapse(path, blank) == list(label))
    return -np.log(total)


def _rnnt_brute(lp, label, T, blank=0):
    """-log of the summed exp(lp) over every monotonic lattice path (blank moves t, a label
    moves u), the lattice T x (U + 1) ending with a blank from (T - 1, U)."""
    U = len(label)
    total = 0.0
    for moves in set(itertools.permutations("b" * (T - 1) + "l" * U)):
        t = u = 0
        s = 0.0
        for m in moves:
            if m == "b":
                s += lp[t, u, blank]
                t += 1
            else:
                s += lp[t, u, label[u]]
                u += 1
        total += np.exp(s + lp[T - 1, U, blank])
    return -np.log(total)


def _ctc(x, lab, il, ll, **kw):
    return F.ctc_loss(x, TT(np.array(lab, "int32")), TT(np.array(il, "int64")),
                      TT(np.array(ll, "int64")), **kw)


def _rnnt(x, lab, il, ll, **kw):
    return F.rnnt_loss(x, TT(np.array(lab, "int32")), TT(np.array(il, "int32")),
                       TT(np.array(ll, "int32")), **kw)


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def test_ctc_loss_equals_brute_force_over_all_alignments_with_padding_and_blank():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 3))
    labels = [[1, 2], [2, 2], [1, 0]]
    il, ll = [4, 3, 4], [2, 1, 1]
    loss = _ctc(TT(x), labels, il, ll, reduction="none").numpy()
    want = [_ctc_brute(x[:, b], labels[b][:ll[b]], il[b]) for b in range(3)]
    np.testing.assert_allclose(loss, want, rtol=1e-12)
    loss2 = _ctc(TT(x), [[0, 1], [1, 1], [0, 0]], il, [2, 2, 0], blank=2, reduction="none")
    want2 = [_ctc_brute(x[:, 0], [0, 1], 4, 2), _ctc_brute(x[:, 1], [1, 1], 3, 2),
             _ctc_brute(x[:, 2], [], 4, 2)]
    np.testing.assert_allclose(loss2.numpy(), want2, rtol=1e-12)


def test_ctc_loss_reductions_divide_by_label_length_for_mean():
    rng = np.random.default_rng(1)
    x = TT(rng.standard_normal((5, 2, 4)))
    args = ([[1, 2, 3], [3, 3, 0]], [5, 5], [3, 2])
    per = _ctc(x, *args, reduction="none").numpy()
    assert _ctc(x, *args, reduction="sum").item() == pytest.approx(per.sum(), rel=1e-12)
    assert _ctc(x, *args).item() == pytest.approx((per / [3, 2]).mean(), rel=1e-12)
    assert _ctc(x, *args).shape == [] and per.shape == (2,)


def test_ctc_loss_gradient_is_finite_difference_of_the_value_and_skips_padding():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 2, 3))
    xt = TT(x, stop_gradient=False)
    w = np.array([0.7, 1.3])
    (_ctc(xt, [[1, 2], [2, 0]], [5, 3], [2, 1], reduction="none") * TT(w)).sum().backward()
    num = _numeric_grad(lambda v: (_ctc(TT(v), [[1, 2], [2, 0]], [5, 3], [2, 1],
                                        reduction="none").numpy() * w).sum(), x)
    np.testing.assert_allclose(xt.grad.numpy(), num, rtol=1e-6, atol=1e-8)
    assert not xt.grad.numpy()[3:, 1].any()                          # past input_length 3


def test_ctc_loss_norm_by_times_scales_only_the_gradient():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 2, 4))
    grads, values = [], []
    for nbt in (False, True):
        xt = TT(x, stop_gradient=False)
        loss = _ctc(xt, [[1, 2], [3, 1]], [6, 4], [2, 2], reduction="sum", norm_by_times=nbt)
        loss.backward()
        grads.append(xt.grad.numpy())
        values.append(loss.item())
    assert values[0] == values[1]
    np.testing.assert_allclose(grads[1][:, 0], grads[0][:, 0] / 6, rtol=1e-12)
    np.testing.assert_allclose(grads[1][:, 1], grads[0][:, 1] / 4, rtol=1e-12)


def test_ctc_loss_infeasible_alignment_is_zero_and_empty_sequence_is_inf():
    x = TT(np.random.default_rng(4).standard_normal((4, 3, 3)), stop_gradient=False)
    # [2, 2, 2] needs 5 steps (a blank between repeats), [1, 2] with no steps is infeasible,
    # and no steps with no labels gives inf (all Paddle 3.3.1's values)
    loss = _ctc(x, [[2, 2, 2], [1, 2, 0], [0, 0, 0]], [4, 0, 0], [3, 2, 0], reduction="none")
    assert loss.numpy().tolist() == [0.0, 0.0, np.inf]
    loss.sum().backward()
    assert not x.grad.numpy().any()
    zi = _ctc(x, [[2, 2, 2], [1, 2, 0], [0, 0, 0]], [4, 0, 0], [3, 2, 0], reduction="none",
              zero_infinity=True)
    assert zi.numpy().tolist() == [0.0, 0.0, 0.0]


def test_ctc_loss_follows_warpctc_clamp_and_saturation_quirks():
    # probabilities are clamped at the dtype's smallest normal number
    big = np.array([[[800.0, 0.0]]])
    assert _ctc(TT(big), [[1]], [1], [1], reduction="none").item() == \
        pytest.approx(-np.log(np.finfo(np.float64).tiny))
    # float32: a path of probability exactly 1 makes warpctc's gradient the probability
    xt = TT(np.array([[[0.0, 20.0]]], "float32"), stop_gradient=False)
    _ctc(xt, [[1]], [1], [1], reduction="sum").backward()
    np.testing.assert_allclose(xt.grad.numpy().ravel(), [2.0611537e-09, 1.0], rtol=1e-6)


def test_rnnt_loss_equals_brute_force_over_lattice_paths_without_softmax():
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 1, (2, 3, 3, 4))                  # not normalised: used as given
    labels, il, ll = [[1, 3], [2, 2]], [3, 2], [2, 1]
    loss = _rnnt(TT(x), labels, il, ll, reduction="none").numpy()
    want = [_rnnt_brute(x[b], labels[b][:ll[b]], il[b]) for b in range(2)]
    np.testing.assert_allclose(loss, want, rtol=1e-12)
    assert _rnnt(TT(x), labels, il, ll).item() == pytest.approx(sum(want) / 2, rel=1e-12)
    assert _rnnt(TT(x), labels, il, ll, reduction="sum").item() == \
        pytest.approx(sum(want), rel=1e-12)


def test_rnnt_loss_gradient_is_finite_difference_with_fastemit_scaling_labels_only():
    rng = np.random.default_rng(6)
    x = rng.uniform(-2, 0, (2, 3, 3, 4))
    labels, il, ll = [[1, 3], [2, 0]], [3, 2], [2, 1]
    num = _numeric_grad(lambda v: _rnnt(TT(v), labels, il, ll, reduction="sum",
                                        fastemit_lambda=0.0).item(), x)
    grads = {}
    for lam in (0.0, 0.5):
        xt = TT(x, stop_gradient=False)
        loss = _rnnt(xt, labels, il, ll, reduction="sum", fastemit_lambda=lam)
        loss.backward()
        grads[lam] = xt.grad.numpy()
    np.testing.assert_allclose(grads[0.0], num, rtol=1e-6, atol=1e-8)
    blank_part = np.zeros_like(x, bool)
    blank_part[..., 0] = True
    np.testing.assert_allclose(grads[0.5][blank_part], grads[0.0][blank_part], rtol=1e-12)
    np.testing.assert_allclose(grads[0.5][~blank_part], 1.5 * grads[0.0][~blank_part],
                               rtol=1e-12)
    assert _rnnt(TT(x), labels, il, ll, fastemit_lambda=0.5).item() == \
        _rnnt(TT(x), labels, il, ll, fastemit_lambda=0.0).item()


def test_layers_forward_to_the_functions():
    rng = np.random.default_rng(7)
    x = TT(rng.standard_normal((5, 2, 4)))
    lab, il, ll = TT(np.array([[1, 2], [3, 0]], "int32")), TT([5, 4]), TT([2, 1])
    m = paddle.nn.CTCLoss(blank=0, reduction="sum")
    assert m(x, lab, il, ll).item() == F.ctc_loss(x, lab, il, ll, reduction="sum").item()
    r = TT(rng.uniform(-2, 0, (2, 3, 3, 4)))
    rm = paddle.nn.RNNTLoss(blank=0, fastemit_lambda=0.0, reduction="none")
    np.testing.assert_array_equal(rm(r, lab, TT(np.array([3, 2], "int32")), ll).numpy(),
                                  F.rnnt_loss(r, lab, TT([3, 2]), ll, reduction="none").numpy())


def test_backward_twice_on_fresh_graphs_gives_the_first_gradient():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((6, 2, 4)).astype("float32")
    r = rng.uniform(-2, 0, (2, 4, 3, 5)).astype("float32")
    seen = {"ctc": [], "rnnt": []}
    for _ in range(3):                                   # interpret, then cached programs
        xt = TT(x, stop_gradient=False)
        _ctc(xt, [[1, 2], [3, 3]], [6, 5], [2, 2]).backward()
        seen["ctc"].append(xt.grad.numpy())
        rt = TT(r, stop_gradient=False)
        _rnnt(rt, [[1, 2], [4, 0]], [4, 3], [2, 1], fastemit_lambda=0.1).backward()
        seen["rnnt"].append(rt.grad.numpy())
    for grads in seen.values():
        assert grads[0].any()
        for g in grads[1:]:
            np.testing.assert_array_equal(g, grads[0])


def test_dtypes_follow_the_input_and_no_gradient_when_not_needed():
    x = TT(np.random.default_rng(9).standard_normal((3, 1, 3)).astype("float32"))
    loss = _ctc(x, [[1]], [3], [1], reduction="none")
    assert loss.dtype == paddle.float32 and loss.stop_gradient
    with paddle.no_grad():
        xt = TT(x.numpy(), stop_gradient=False)
        assert _ctc(xt, [[1]], [3], [1]).stop_gradient


def test_bad_arguments_raise_actionable_errors():
    x = TT(np.zeros((4, 2, 3)))
    good = ([[1, 2], [1, 1]], [4, 3], [2, 1])
    with pytest.raises(ValueError, match="3-D"):
        _ctc(TT(np.zeros((4, 3))), *good)
    with pytest.raises(TypeError, match="float"):
        _ctc(TT(np.zeros((4, 2, 3), "int32")), *good)
    with pytest.raises(ValueError, match="blank must lie"):
        _ctc(x, *good, blank=3)
    with pytest.raises(ValueError, match="input_lengths must lie"):
        _ctc(x, good[0], [5, 3], good[2])
    with pytest.raises(ValueError, match="label ids"):
        _ctc(x, [[1, 3], [1, 1]], good[1], good[2])
    with pytest.raises(ValueError, match="reduction"):
        _ctc(x, *good, reduction="max")
    with pytest.raises(TypeError, match="integers"):
        F.ctc_loss(x, TT(np.ones((2, 2), "float32")), TT([4, 3]), TT([2, 1]))
    r = TT(np.zeros((2, 3, 3, 4)))
    with pytest.raises(ValueError, match="max_label_length=2"):
        _rnnt(r, [[1, 2, 3], [1, 1, 1]], [3, 2], [2, 1])
    with pytest.raises(ValueError, match=r"input_lengths must lie in \[1, 3\]"):
        _rnnt(r, [[1, 2], [1, 1]], [0, 2], [2, 1])
    with pytest.raises(ValueError, match="fastemit_lambda"):
        _rnnt(r, [[1, 2], [1, 1]], [3, 2], [2, 1], fastemit_lambda=-1.0)
