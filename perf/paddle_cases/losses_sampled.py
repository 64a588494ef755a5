"""ops/losses_sampled.py and its layers (nn/loss_layers_more.py) against Paddle 3.3.1.
margin_cross_entropy has no CPU kernel in Paddle 3.3.1 (it raises "Do not support
margin_cross_entropy for cpu kernel now"): its cases compare jitgrad's with the GPU kernel's
formula written in Paddle ops. class_center_sample draws its negative classes at random (Paddle
from std::random_device): its cases compare the deterministic parts."""
# ruff: noqa: F821, E501  (cmp and A come from perf/paddle_sweep.py; one case a line)
import numpy as np

KNOWN = {
    "mlml_no_valid_label": "Paddle raises an internal 'p_index is nullptr' error when no row "
                           "has a target; jitgrad gives the loss 0 (nothing to sum)",
    "ccs_label_out_of_range": "Paddle keeps a label >= num_classes as a class; jitgrad raises "
                              "ValueError (labels must lie in [0, num_classes))",
    "adaptive_large_logits": "jitgrad's log_softmax is exact; Paddle 3.3.1's CPU log_softmax "
                             "floors at -64 (README: the softmax_with_cross_entropy note)",
}

_F = "nn.functional"
_r = np.random.default_rng(11)


def _f(P):
    return P.nn.functional


# ---- multi_label_margin_loss -------------------------------------------------------------------
_lab = np.array([[3, 0, -1, 1, 1], [0, 2, 2, -1, 1], [4, -1, 0, 0, 0], [1, 2, 3, 4, -1]])
cmp("mlml_none", lambda P, x, l: _f(P).multi_label_margin_loss(x, l, reduction="none"), [A((4, 5)), _lab])
cmp("mlml_mean", lambda P, x, l: _f(P).multi_label_margin_loss(x, l), [A((4, 5)), _lab])
cmp("mlml_sum_f64", lambda P, x, l: _f(P).multi_label_margin_loss(x, l, reduction="sum"), [A((4, 5), dtype="float64"), _lab])
cmp("mlml_fewer_label_cols", lambda P, x, l: _f(P).multi_label_margin_loss(x, l, reduction="none"), [A((3, 6)), np.array([[5, 1], [0, -1], [2, 2]])])
cmp("mlml_int32_label", lambda P, x, l: _f(P).multi_label_margin_loss(x, l, reduction="none"), [A((2, 4)), np.array([[3, 0, -1, -1], [0, 2, -1, -1]], "int32")])
cmp("mlml_docs_example", lambda P, x, l: _f(P).multi_label_margin_loss(x, l), [np.array([[0.1, 0.2, 0.4, 0.8], [0.2, 0.5, 0.3, 0.1]], "float32"), np.array([[3, 0, -1, -1], [0, 2, -1, -1]])])
cmp("mlml_tie_at_zero", lambda P, x, l: _f(P).multi_label_margin_loss(x, l, reduction="sum"), [np.array([[0.0, 1.0, 0.0], [0.5, 0.5, -0.5]], "float32"), np.array([[1, -1, -1], [0, -1, 2]])])
cmp("mlml_first_row_empty", lambda P, x, l: _f(P).multi_label_margin_loss(x, l, reduction="none"), [A((3, 4)), np.array([[-1, 2, 1, 0], [1, -1, 0, 0], [2, 3, 0, -1]])])
cmp("mlml_int_input", lambda P, x, l: _f(P).multi_label_margin_loss(x, l), [np.array([[1, 2], [3, 4]]), np.array([[1, -1], [0, -1]])], grad=False)
cmp("mlml_no_valid_label", lambda P, x, l: _f(P).multi_label_margin_loss(x, l), [A((2, 3)), np.array([[-1, 0, 1], [-1, -1, -1]])])
cmp("MultiLabelMarginLoss", lambda P, x, l: P.nn.MultiLabelMarginLoss(reduction="sum")(x, l), [A((4, 5)), _lab])
cmp("mlml_err_label_too_big", lambda P, x, l: _f(P).multi_label_margin_loss(x, l), [A((2, 4)), np.array([[4, -1, 0, 0], [0, -1, 0, 0]])])
cmp("mlml_err_label_below_minus1", lambda P, x, l: _f(P).multi_label_margin_loss(x, l), [A((2, 4)), np.array([[-2, -1, 0, 0], [0, -1, 0, 0]])])
cmp("mlml_err_1d", lambda P, x, l: _f(P).multi_label_margin_loss(x, l), [A((4,)), np.array([1, -1, 0, 0])])
cmp("mlml_err_reduction", lambda P, x, l: _f(P).multi_label_margin_loss(x, l, reduction="avg"), [A((2, 4)), np.array([[1, -1, 0, 0], [0, -1, 0, 0]])])
cmp("mlml_err_float_label", lambda P, x, l: _f(P).multi_label_margin_loss(x, l), [A((2, 4)), np.array([[1, -1, 0, 0], [0, -1, 0, 0]], "float32")], grad=False)
cmp("MultiLabelMarginLoss_err_reduction", lambda P: P.nn.MultiLabelMarginLoss("avg"), [], grad=False)


# ---- hsigmoid_loss -----------------------------------------------------------------------------
def _hs(C, bias=True, scale=1.0, lab2d=False):
    def fn(P, x, w, *rest):
        b, l = (rest if bias else (None, rest[0]))
        if lab2d:
            l = l.reshape([-1, 1])
        return _f(P).hsigmoid_loss(x * scale, l, C, w, b)
    return fn


_hl = np.array([0, 5, 2, 3, 1, 4])
cmp("hsigmoid_default", _hs(6), [A((6, 3)), A((5, 3)), A((5, 1)), _hl])
cmp("hsigmoid_default_f64", _hs(6), [A((6, 3), dtype="float64"), A((5, 3), dtype="float64"), A((5, 1), dtype="float64"), _hl])
cmp("hsigmoid_no_bias", _hs(6, bias=False), [A((6, 3)), A((5, 3)), _hl])
cmp("hsigmoid_label_n1", _hs(6, lab2d=True), [A((6, 3)), A((5, 3)), A((5, 1)), _hl])
cmp("hsigmoid_two_classes", _hs(2), [A((4, 3)), A((1, 3)), A((1, 1)), np.array([0, 1, 1, 0])])
cmp("hsigmoid_13_classes", _hs(13), [A((8, 5)), A((12, 5)), A((12, 1)), _r.integers(0, 13, 8)])
cmp("hsigmoid_power_of_two", _hs(8), [A((8, 4)), A((7, 4)), A((7, 1)), np.arange(8)])
cmp("hsigmoid_clipped", _hs(6, scale=60.0), [A((6, 3)), A((5, 3)), A((5, 1)), _hl])
cmp("hsigmoid_bias_1d", _hs(6), [A((6, 3)), A((5, 3)), A((5,)), _hl])
cmp("hsigmoid_extra_weight_rows", _hs(6), [A((6, 3)), A((9, 3)), A((9, 1)), _hl])
_pt = np.array([[0, 1, -1], [0, 2, 3], [1, -1, -1], [0, -1, 4], [4, 3, 2]])
_pc = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 1], [0, 0, 1], [2, 0, 1]])
cmp("hsigmoid_custom", lambda P, x, w, b, l, t, c: _f(P).hsigmoid_loss(x, l, 5, w, b, path_table=t, path_code=c), [A((5, 3)), A((5, 3)), A((5, 1)), np.array([0, 1, 2, 3, 4]), _pt, _pc])
cmp("hsigmoid_custom_no_bias", lambda P, x, w, l, t, c: _f(P).hsigmoid_loss(x, l, 3, w, None, path_table=t, path_code=c), [A((5, 3)), A((6, 3)), np.array([0, 1, 2, 3, 4]), _pt + 1, _pc])
cmp("hsigmoid_custom_clipped", lambda P, x, w, b, l, t, c: _f(P).hsigmoid_loss(x * 50.0, l, 5, w, b, path_table=t, path_code=c), [A((5, 3)), A((5, 3)), A((5, 1)), np.array([0, 1, 2, 3, 4]), _pt, _pc])
cmp("hsigmoid_err_num_classes", _hs(1), [A((6, 3)), A((5, 3)), A((5, 1)), _hl])
cmp("hsigmoid_err_label_rows", _hs(6), [A((6, 3)), A((5, 3)), A((5, 1)), _hl[:4]])
cmp("hsigmoid_err_weight_dtype", _hs(6), [A((6, 3)), A((5, 3), dtype="float64"), A((5, 1), dtype="float64"), _hl])


def _hs_layer(P, x, l, custom=False):
    m = P.nn.HSigmoidLoss(3, 5 if custom else 6, is_custom=custom)
    m.weight.set_value(np.linspace(-1, 1, 15).reshape(5, 3).astype("float32"))
    m.bias.set_value(np.linspace(-0.5, 0.3, 5).reshape(5, 1).astype("float32"))
    if custom:
        return m(x, l, P.to_tensor(_pt), P.to_tensor(_pc)), m.weight * 1.0, m.bias * 1.0
    return m(x, l), m.weight * 1.0, m.bias * 1.0


cmp("HSigmoidLoss", _hs_layer, [A((6, 3)), _hl])
cmp("HSigmoidLoss_custom", lambda P, x, l: _hs_layer(P, x, l, True), [A((5, 3)), np.arange(5)])
cmp("HSigmoidLoss_params", lambda P: P.to_tensor([list(p.shape) for p in P.nn.HSigmoidLoss(4, 7).parameters()]), [], grad=False)
cmp("HSigmoidLoss_no_bias", lambda P: P.to_tensor([len(P.nn.HSigmoidLoss(4, 7, bias_attr=False).parameters())]), [], grad=False)


# ---- margin_cross_entropy (Paddle: the GPU kernel's formula in Paddle ops) -----------------------
def _mce(m1=1.0, m2=0.5, m3=0.0, s=64.0, ret=False, red="mean", lab2d=False):
    def fn(P, x, l):
        if lab2d:
            l = l.reshape([-1, 1])
        if P.__name__ == "jitgrad":
            return P.nn.functional.margin_cross_entropy(x, l, m1, m2, m3, s, return_softmax=ret, reduction=red)
        li = l.reshape([-1, 1])
        t = P.take_along_axis(x, li, axis=1)
        if abs(m1 - 1) > 1e-8 or abs(m2) > 1e-8:
            t = P.cos(P.acos(t) * m1 + m2)
        t = t - m3
        hit = P.arange(x.shape[1]).reshape([1, -1]) == li
        z = P.where(hit, t.expand_as(x), x) * s
        top = z.max(axis=1, keepdim=True).detach()     # (Paddle's CPU log_softmax floors
        logp = (z - top) - P.log(P.exp(z - top).sum(axis=1, keepdim=True))   # at -64)
        loss = -P.take_along_axis(logp, li, axis=1)
        loss = loss.mean() if red == "mean" else loss.sum() if red == "sum" else loss
        return (loss, P.exp(logp).detach()) if ret else loss
    return fn


_ml = np.array([1, 0, 4, 2])
cmp("margin_ce_arcface", _mce(), [A((4, 5), -0.9, 0.9), _ml])
cmp("margin_ce_combined_f64", _mce(0.9, 0.4, 0.15, 30.0), [A((4, 5), -0.9, 0.9, "float64"), _ml])
cmp("margin_ce_cosface", _mce(1.0, 0.0, 0.35, 30.0), [A((4, 5), -0.9, 0.9), _ml])
cmp("margin_ce_sphereface", _mce(1.35, 0.0, 0.0, 16.0), [A((4, 5), -0.9, 0.9), _ml])
cmp("margin_ce_plain_softmax", _mce(1.0, 0.0, 0.0, 1.0), [A((4, 5), -3, 3), _ml])
cmp("margin_ce_softmax_none", _mce(ret=True, red=None), [A((4, 5), -0.9, 0.9), _ml])
cmp("margin_ce_softmax_sum_label_n1", _mce(ret=True, red="sum", lab2d=True), [A((4, 5), -0.9, 0.9), _ml])


# ---- gather_tree --------------------------------------------------------------------------------
_ids = np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]])
_par = np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])
_gt = lambda P, i, p: _f(P).gather_tree(i, p)   # noqa: E731
cmp("gather_tree_docs", _gt, [_ids, _par], grad=False)
cmp("gather_tree_int32", _gt, [_ids.astype("int32"), _par.astype("int32")], grad=False)
cmp("gather_tree_random", _gt, [_r.integers(0, 50, (7, 3, 4)), _r.integers(0, 4, (7, 3, 4))], grad=False)
cmp("gather_tree_one_step", _gt, [_ids[:1], _par[:1] * 7], grad=False)
cmp("gather_tree_err_parent", _gt, [_ids, _par * 2], grad=False)
cmp("gather_tree_err_2d", _gt, [_ids[0], _par[0]], grad=False)
cmp("gather_tree_err_shape", _gt, [_ids, _par[:2]], grad=False)
cmp("gather_tree_err_dtypes", _gt, [_ids.astype("int32"), _par], grad=False)
cmp("gather_tree_err_float", _gt, [_ids.astype("float32"), _par], grad=False)


# ---- class_center_sample (the deterministic parts) ----------------------------------------------
def _ccs(nc, ns):
    def fn(P, l):
        remapped, sampled = _f(P).class_center_sample(l, nc, ns)
        s, pos = sampled.numpy(), np.unique(l.numpy())
        facts = [s.size, len(set(s.tolist())), int(s.min() >= 0), int(s.max() < nc),
                 int(set(pos.tolist()) <= set(s.tolist()))]
        return remapped, sampled[:pos.size], P.to_tensor(np.array(facts)), \
            P.to_tensor(np.array([str(sampled.dtype).split(".")[-1] == str(l.dtype).split(".")[-1]]))
    return fn


_cl = np.array([1, 0, 4, 4, 7, 19, 0])
cmp("ccs_more_samples", _ccs(20, 10), [_cl], grad=False)
cmp("ccs_exact_positives", _ccs(20, 5), [_cl], grad=False)
cmp("ccs_fewer_samples", _ccs(20, 2), [_cl], grad=False)
cmp("ccs_all_classes", _ccs(20, 20), [_cl], grad=False)
cmp("ccs_int32", _ccs(30, 12), [_cl.astype("int32")], grad=False)
cmp("ccs_large", _ccs(1000, 300), [_r.integers(0, 1000, 200)], grad=False)
cmp("ccs_err_too_many", _ccs(10, 11), [np.array([1, 2])], grad=False)
cmp("ccs_err_zero_samples", _ccs(10, 0), [np.array([1, 2])], grad=False)
cmp("ccs_err_2d", _ccs(10, 4), [np.array([[1, 2]])], grad=False)
cmp("ccs_err_empty", _ccs(10, 4), [np.zeros(0, "int64")], grad=False)
cmp("ccs_err_float", _ccs(10, 4), [np.array([1.0, 2.0], "float32")], grad=False)
cmp("ccs_label_out_of_range", _ccs(10, 4), [np.array([12, 1])], grad=False)


# ---- adaptive_log_softmax_with_loss -------------------------------------------------------------
def _ada(cut=(3, 6, 10), bias=True):
    def fn(P, x, hw, *rest):
        if bias:
            hb, rest = rest[0], rest[1:]
        else:
            hb = None
        *tails, l = rest
        pairs = [[tails[2 * i], tails[2 * i + 1]] for i in range(len(tails) // 2)]
        return _f(P).adaptive_log_softmax_with_loss(x, l, hw, pairs, list(cut), hb)
    return fn


def _ada_w(in_f=8, hsz=(4, 2), osz=(3, 4), head=5):
    ws = [A((in_f, head)), A((head,))]
    for h, o in zip(hsz, osz):
        ws += [A((in_f, h)), A((h, o))]
    return ws


cmp("adaptive_mixed", _ada(), [A((6, 8))] + _ada_w() + [np.array([0, 4, 9, 2, 7, 5])])
cmp("adaptive_all_head", _ada(), [A((5, 8))] + _ada_w() + [np.array([0, 1, 2, 2, 1])])
cmp("adaptive_all_tail", _ada(), [A((5, 8))] + _ada_w() + [np.array([5, 4, 9, 8, 7])])
cmp("adaptive_one_cluster_unused", _ada(), [A((4, 8))] + _ada_w() + [np.array([0, 4, 1, 3])])
cmp("adaptive_no_bias", _ada(bias=False), [A((6, 8))] + [w for k, w in enumerate(_ada_w()) if k != 1] + [np.array([0, 4, 9, 2, 7, 5])])
cmp("adaptive_one_row", _ada(), [A((1, 8))] + _ada_w() + [np.array([7])])
cmp("adaptive_0d_label", _ada(), [A((8,))] + _ada_w() + [np.array(4)])
cmp("adaptive_f64", _ada(), [A((6, 8), dtype="float64")] + [w.astype("float64") for w in _ada_w()] + [np.array([0, 4, 9, 2, 7, 5])])
cmp("adaptive_osz1_cluster", _ada((3, 4)), [A((4, 8))] + _ada_w(hsz=(2,), osz=(1,), head=4) + [np.array([3, 0, 3, 2])])
cmp("adaptive_int32_label", _ada(), [A((6, 8))] + _ada_w() + [np.array([0, 4, 9, 2, 7, 5], "int32")])
cmp("adaptive_err_out_of_range", _ada(), [A((3, 8))] + _ada_w() + [np.array([0, 10, 2])])
cmp("adaptive_err_negative", _ada(), [A((3, 8))] + _ada_w() + [np.array([0, -1, 2])])
cmp("adaptive_err_batch", _ada(), [A((3, 8))] + _ada_w() + [np.array([0, 1])])
cmp("adaptive_err_2d_label", _ada(), [A((3, 8))] + _ada_w() + [np.array([[0, 1, 2]])])
cmp("adaptive_err_1d_input", _ada(), [A((8,))] + _ada_w() + [np.array([0])])


def _ada_layer(P, x, l, what="forward", head_bias=True, div=2.0):
    m = P.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=div, head_bias=head_bias)
    g = np.random.default_rng(5)
    for p in [m.head_weight] + ([m.head_bias] if head_bias else []) + [t for pair in m.tail_weights for t in pair]:
        p.set_value(g.uniform(-1, 1, p.shape).astype("float32"))
    if what == "forward":
        return m(x, l) + (m.head_weight * 1.0, m.tail_weights[0][0] * 1.0)
    if what == "log_prob":
        return m.log_prob(x)
    if what == "predict_head":
        m.head_bias.set_value(np.array([9.0, 8.0, 9.0, -9.0, -9.0], "float32"))
    return m.predict(x)


cmp("AdaptiveLogSoftmaxWithLoss", _ada_layer, [A((6, 8)), np.array([0, 4, 9, 2, 7, 5])])
cmp("AdaptiveLogSoftmaxWithLoss_div4_no_head_bias", lambda P, x, l: _ada_layer(P, x, l, head_bias=False, div=4.0), [A((6, 8)), np.array([0, 4, 9, 2, 7, 5])])
cmp("AdaptiveLogSoftmaxWithLoss_log_prob", lambda P, x, l: _ada_layer(P, x, l, "log_prob"), [A((6, 8)), np.array([0])])
for _k in range(4):
    cmp(f"AdaptiveLogSoftmaxWithLoss_predict_{_k}", lambda P, x, l: _ada_layer(P, x * 3.0, l, "predict"), [A((6, 8)), np.array([0])], grad=False)
cmp("AdaptiveLogSoftmaxWithLoss_predict_all_head", lambda P, x, l: _ada_layer(P, x, l, "predict_head"), [A((6, 8)), np.array([0])], grad=False)
cmp("adaptive_large_logits", lambda P, x, l: _ada_layer(P, x * 40.0, l), [A((4, 8)), np.array([0, 4, 9, 2])])
cmp("AdaptiveLogSoftmaxWithLoss_params", lambda P: P.to_tensor([list(p.shape) for p in P.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], head_bias=True).parameters()][0] + [len(P.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], head_bias=True).parameters())]), [], grad=False)
cmp("AdaptiveLogSoftmaxWithLoss_tail_shapes", lambda P: P.to_tensor([s for pair in P.nn.AdaptiveLogSoftmaxWithLoss(16, 10, [3, 6], div_value=2.0).tail_weights for t in pair for s in t.shape]), [], grad=False)
for _bad in ([6, 3], [0, 3], [3, 10], [3, 3], [2.5]):
    cmp(f"AdaptiveLogSoftmaxWithLoss_err_cutoffs_{_bad}", lambda P, b=_bad: P.nn.AdaptiveLogSoftmaxWithLoss(8, 10, b), [], grad=False)
