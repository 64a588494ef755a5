"""ops/losses_sampled.py and its layers in nn/loss_layers_more.py (perf/paddle_cases/
losses_sampled.py compares them with Paddle 3.3.1)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

F = paddle.nn.functional
TT = paddle.to_tensor


def _mlml_reference(x, lab):
    N, C = x.shape
    out = np.zeros(N)
    for n in range(N):
        targets = []
        for y in lab[n]:
            if y == -1:
                break
            targets.append(y)
        for y in targets:
            for k in range(C):
                if k not in targets:
                    out[n] += max(0.0, 1 - x[n, y] + x[n, k])
    return out / C


def test_multi_label_margin_loss_stops_at_minus_one_and_counts_repeated_targets():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5))
    lab = np.array([[3, 0, -1, 1, 1], [0, 2, 2, -1, 1], [-1, 4, 0, 0, 0], [1, 2, 3, 4, -1]])
    got = F.multi_label_margin_loss(TT(x), TT(lab), reduction="none").numpy()
    np.testing.assert_allclose(got, _mlml_reference(x, lab), rtol=1e-12)
    assert got[2] == 0.0                                    # a leading -1: no targets
    docs = F.multi_label_margin_loss(TT([[0.1, 0.2, 0.4, 0.8], [0.2, 0.5, 0.3, 0.1]]),
                                     TT([[3, 0, -1, -1], [0, 2, -1, -1]]))
    assert docs.item() == pytest.approx(0.95)               # Paddle 3.3.1's docs example
    fewer = F.multi_label_margin_loss(TT(x[:2]), TT(lab[:2, :2]), reduction="sum")
    assert fewer.item() == pytest.approx(_mlml_reference(x[:2], lab[:2, :2]).sum())
    check_grads(lambda t: F.multi_label_margin_loss(t, TT(lab), reduction="none"), x)
    layer = paddle.nn.MultiLabelMarginLoss(reduction="sum")
    assert layer(TT(x), TT(lab)).item() == pytest.approx(_mlml_reference(x, lab).sum())


def test_multi_label_margin_loss_tie_at_zero_splits_the_gradient_like_paddle():
    x = TT(np.array([[0.0, 1.0, 0.0]]), stop_gradient=False)
    F.multi_label_margin_loss(x, TT([[1, -1, -1]]), reduction="sum").backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1 / 6, -1 / 3, 1 / 6]])   # Paddle 3.3.1


def test_multi_label_margin_loss_rejects_bad_labels_and_shapes():
    x = TT(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="should be < 4"):
        F.multi_label_margin_loss(x, TT([[4, -1, 0, 0], [0, -1, 0, 0]]))
    with pytest.raises(ValueError, match=">= -1"):
        F.multi_label_margin_loss(x, TT([[-2, -1, 0, 0], [0, -1, 0, 0]]))
    with pytest.raises(ValueError, match="2D input"):
        F.multi_label_margin_loss(TT(np.zeros(4)), TT([1, -1, 0, 0]))
    with pytest.raises(ValueError, match="rows"):
        F.multi_label_margin_loss(x, TT([[1, -1, 0, 0]]))
    with pytest.raises(TypeError, match="integers"):
        F.multi_label_margin_loss(x, TT(np.zeros((2, 4), "float32")))
    with pytest.raises(ValueError, match="reduction"):
        paddle.nn.MultiLabelMarginLoss("avg")


def _hsig_reference(x, w, b, lab, num_classes, table=None, code=None):
    """Paddle's kernel on numpy: unused path slots add log(2)."""
    N = len(x)
    if table is None:
        L = int(num_classes - 1).bit_length()
        table, code = np.full((N, L), -1), np.zeros((N, L), int)
        for i in range(N):
            c = int(lab[i]) + num_classes
            for j in range(c.bit_length() - 1):
                table[i, j], code[i, j] = (c >> (j + 1)) - 1, (c >> j) & 1
    out = np.zeros((N, 1))
    for i in range(N):
        for j in range(table.shape[1]):
            if table[i, j] < 0:
                out[i] += (table.shape[1] - j) * np.log(2.0)
                break
            z = np.clip(w[table[i, j]] @ x[i] + (0 if b is None else b[table[i, j], 0]), -40, 40)
            out[i] += np.log1p(np.exp(z)) - (code[i, j] != 0) * z
    return out


def test_hsigmoid_default_tree_matches_the_bit_code_reference():
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((6, 3)), rng.standard_normal((5, 3)), rng.standard_normal((5, 1))
    lab = np.array([0, 5, 2, 3, 1, 4])                  # class 0's path is 2 long, 5's is 3
    got = F.hsigmoid_loss(TT(x), TT(lab), 6, TT(w), TT(b))
    assert got.shape == [6, 1]
    np.testing.assert_allclose(got.numpy(), _hsig_reference(x, w, b, lab, 6), rtol=1e-12)
    np.testing.assert_allclose(F.hsigmoid_loss(TT(x), TT(lab[:, None]), 6, TT(w)).numpy(),
                               _hsig_reference(x, w, None, lab, 6), rtol=1e-12)
    check_grads(lambda a, ww, bb: F.hsigmoid_loss(a, TT(lab), 6, ww, bb), x, w, b)


def test_hsigmoid_custom_tree_ends_a_path_at_its_first_negative_node():
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((4, 3)), rng.standard_normal((5, 3)), rng.standard_normal((5, 1))
    table = np.array([[0, 1, -1], [0, 2, 3], [1, -1, 4], [4, 3, 2]])
    code = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 1], [2, 0, 1]])
    got = F.hsigmoid_loss(TT(x), TT(np.arange(4)), 5, TT(w), TT(b), path_table=TT(table),
                          path_code=TT(code))
    np.testing.assert_allclose(got.numpy(), _hsig_reference(x, w, b, None, 5, table, code),
                               rtol=1e-12)
    check_grads(lambda a, ww, bb: F.hsigmoid_loss(a, TT(np.arange(4)), 5, ww, bb,
                                                  path_table=TT(table), path_code=TT(code)),
                x, w, b)


def test_hsigmoid_clips_at_40_and_passes_the_gradient_through_the_clip():
    x = TT(np.array([[100.0]]), stop_gradient=False)
    w = TT(np.array([[1.0]]), stop_gradient=False)
    out = F.hsigmoid_loss(x, TT([1]), 2, w)             # class 1: one node, code bit 1
    assert out.item() == pytest.approx(np.log1p(np.exp(40.0)) - 40.0)
    out.backward()
    s = 1 / (1 + np.exp(-40.0))
    assert x.grad.item() == pytest.approx(s - 1.0) and w.grad.item() == pytest.approx(
        100 * (s - 1.0))


def test_hsigmoid_layer_parameters_and_errors():
    layer = paddle.nn.HSigmoidLoss(3, 6)
    assert [p.shape for p in layer.parameters()] == [[5, 3], [5, 1]]       # Paddle 3.3.1
    assert paddle.nn.HSigmoidLoss(3, 6, bias_attr=False).bias is None
    assert paddle.nn.HSigmoidLoss(3, 5, is_custom=True).weight.shape == [5, 3]
    assert layer(TT(np.ones((2, 3), "float32")), TT([0, 5])).shape == [2, 1]
    with pytest.raises(ValueError, match="not be less than 2"):
        paddle.nn.HSigmoidLoss(3, 1)
    x, w = TT(np.zeros((2, 3))), TT(np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 6\)"):
        F.hsigmoid_loss(x, TT([0, 6]), 6, w)
    with pytest.raises(ValueError, match="both"):
        F.hsigmoid_loss(x, TT([0, 1]), 6, w, path_table=TT([[0, 1], [0, 1]]))
    with pytest.raises(ValueError, match="weight's"):
        F.hsigmoid_loss(x, TT([0, 1]), 6, w, path_table=TT([[0, 5], [0, 1]]),
                        path_code=TT([[0, 1], [0, 1]]))
    with pytest.raises(TypeError, match="dtype"):
        F.hsigmoid_loss(x, TT([0, 1]), 6, TT(np.zeros((5, 3), "float32")))


def _margin_reference(x, lab, m1, m2, m3, s):
    z = x.copy()
    rows = np.arange(len(x))
    z[rows, lab] = np.cos(m1 * np.arccos(x[rows, lab]) + m2) - m3
    z *= s
    logp = z - z.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    return -logp[rows, lab][:, None], np.exp(logp)


def test_margin_cross_entropy_is_the_arcface_formula_with_a_softmax_without_gradient():
    rng = np.random.default_rng(3)
    x, lab = rng.uniform(-0.9, 0.9, (4, 6)), np.array([1, 0, 5, 2])
    loss, soft = F.margin_cross_entropy(TT(x), TT(lab), 0.9, 0.4, 0.1, 8.0,
                                        return_softmax=True, reduction=None)
    want_loss, want_soft = _margin_reference(x, lab, 0.9, 0.4, 0.1, 8.0)
    assert loss.shape == [4, 1] and soft.shape == [4, 6] and soft.stop_gradient
    np.testing.assert_allclose(loss.numpy(), want_loss, rtol=1e-12)
    np.testing.assert_allclose(soft.numpy(), want_soft, rtol=1e-12)
    mean = F.margin_cross_entropy(TT(x), TT(lab[:, None]), scale=4.0)
    assert mean.item() == pytest.approx(_margin_reference(x, lab, 1.0, 0.5, 0.0, 4.0)[0].mean())
    check_grads(lambda t: F.margin_cross_entropy(t, TT(lab), 0.9, 0.4, 0.1, 8.0,
                                                 reduction="sum"), x)
    check_grads(lambda t: F.margin_cross_entropy(t, TT(lab), 1.0, 0.0, 0.35, 2.0), x * 3)
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 6\)"):
        F.margin_cross_entropy(TT(x), TT([1, 0, 6, 2]))
    with pytest.raises(ValueError, match="single-process"):
        F.margin_cross_entropy(TT(x), TT(lab), group="ring")
    with pytest.raises(ValueError, match="reduction"):
        F.margin_cross_entropy(TT(x), TT(lab), reduction="avg")


def test_gather_tree_follows_the_parents_back_from_the_last_step():
    ids = [[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]]
    parents = [[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]]
    out = F.gather_tree(TT(ids), TT(parents))
    assert out.tolist() == [[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]]  # 3.3.1
    assert out.dtype == paddle.int64
    with pytest.raises(ValueError, match="beam size 2"):
        F.gather_tree(TT(ids), TT(np.array(parents) * 2))
    with pytest.raises(TypeError, match="share a dtype"):
        F.gather_tree(TT(np.array(ids, "int32")), TT(parents))


def test_class_center_sample_keeps_sorted_positives_then_distinct_negatives():
    lab = np.array([1, 0, 4, 4, 7, 19, 0])
    paddle.seed(5)
    remapped, sampled = F.class_center_sample(TT(lab), 20, 10)
    s = sampled.numpy()
    assert remapped.tolist() == [1, 0, 2, 2, 3, 4, 0] and s[:5].tolist() == [0, 1, 4, 7, 19]
    assert len(set(s.tolist())) == 10 and s.min() >= 0 and s.max() < 20
    assert (s[remapped.numpy()] == lab).all()
    paddle.seed(5)
    assert F.class_center_sample(TT(lab), 20, 10)[1].tolist() == s.tolist()
    few = F.class_center_sample(TT(lab.astype("int32")), 20, 2)
    assert few[1].tolist() == [0, 1, 4, 7, 19] and few[1].dtype == paddle.int32
    with pytest.raises(ValueError, match="less than or equal to 20"):
        F.class_center_sample(TT(lab), 20, 21)
    with pytest.raises(ValueError, match=r"lie in \[0, 10\)"):
        F.class_center_sample(TT(lab), 10, 5)


def _adaptive_weights(rng):
    return [rng.standard_normal(s) for s in [(8, 5), (5,), (8, 4), (4, 3), (8, 2), (2, 4)]]


def _adaptive(x, hw, hb, a, b, c, d, lab):
    return F.adaptive_log_softmax_with_loss(x, TT(lab), hw, [[a, b], [c, d]], [3, 6, 10], hb)


def test_adaptive_log_softmax_picks_the_full_log_prob_of_each_label():
    rng = np.random.default_rng(4)
    x, ws = rng.standard_normal((6, 8)), _adaptive_weights(rng)
    lab = np.array([0, 4, 9, 2, 7, 5])
    out, loss = _adaptive(TT(x), *[TT(w) for w in ws], lab)
    head = x @ ws[0] + ws[1]
    head = head - np.log(np.exp(head).sum(1, keepdims=True))
    full = [head[:, :3]]
    for i, (a, b) in enumerate([(ws[2], ws[3]), (ws[4], ws[5])]):
        h = x @ a @ b
        full.append(h - np.log(np.exp(h).sum(1, keepdims=True)) + head[:, 3 + i:4 + i])
    full = np.concatenate(full, axis=1)
    np.testing.assert_allclose(np.exp(full).sum(1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), full[np.arange(6), lab], rtol=1e-12)
    assert loss.item() == pytest.approx(-full[np.arange(6), lab].mean())
    check_grads(lambda *t: _adaptive(*t, lab)[0], x, *ws)
    one, one_loss = _adaptive(TT(x[0]), *[TT(w) for w in ws], np.array(4))
    assert one.shape == [] and one.item() == pytest.approx(full[0, 4])
    with pytest.raises(ValueError, match=r"in \[0, n_classes - 1\]"):
        _adaptive(TT(x[:2]), *[TT(w) for w in ws], np.array([0, 10]))


def test_adaptive_log_softmax_layer_registers_only_the_head_like_paddle():
    paddle.seed(0)
    m = paddle.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    assert [p.shape for p in m.parameters()] == [[8, 5], [5]]                   # Paddle 3.3.1
    assert [[t.shape for t in pair] for pair in m.tail_weights] == [[[8, 4], [4, 3]],
                                                                     [[8, 2], [2, 4]]]
    x = TT(np.random.default_rng(6).standard_normal((5, 8)).astype("float32"))
    full = m.log_prob(x)
    out, _ = m(x, TT([0, 4, 9, 2, 7]))
    np.testing.assert_allclose(out.numpy(), full.numpy()[np.arange(5), [0, 4, 9, 2, 7]],
                               rtol=1e-5)
    pred = m.predict(x)
    assert pred.shape == [5] and (pred.numpy() == full.numpy().argmax(1)).all()
    with pytest.raises(ValueError, match="cutoffs"):
        paddle.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])


def _grads_twice(build, *arrays):
    """Gradients of two fresh graphs of one structure: the second runs the cached program."""
    found = []
    for _ in range(2):
        leaves = [TT(a, stop_gradient=False) for a in arrays]
        build(*leaves).sum().backward()
        found.append([t.grad.numpy() for t in leaves])
    return found


@pytest.mark.parametrize("case", ["mlml", "hsigmoid", "margin", "adaptive"])
def test_a_second_graph_of_the_same_structure_gives_the_same_gradient(case):
    rng = np.random.default_rng(7)
    if case == "mlml":
        lab = np.array([[3, 0, -1, 1], [0, 2, -1, 1]])
        build = lambda t: F.multi_label_margin_loss(t, TT(lab))  # noqa: E731
        arrays = [rng.standard_normal((2, 4))]
    elif case == "hsigmoid":
        def build(x, w, b):
            return F.hsigmoid_loss(x, TT([0, 5, 2]), 6, w, b)
        arrays = [rng.standard_normal((3, 3)), rng.standard_normal((5, 3)),
                  rng.standard_normal((5, 1))]
    elif case == "margin":
        build = lambda t: F.margin_cross_entropy(t, TT([1, 0, 2]), scale=8.0)  # noqa: E731
        arrays = [rng.uniform(-0.9, 0.9, (3, 4))]
    else:
        lab = np.array([0, 4, 9, 2])
        build = lambda *t: _adaptive(*t, lab)[1]  # noqa: E731
        arrays = [rng.standard_normal((4, 8))] + _adaptive_weights(rng)
    first, second = _grads_twice(build, *arrays)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
