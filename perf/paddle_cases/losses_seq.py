"""ops/losses_seq.py and the CTCLoss / RNNTLoss layers against Paddle 3.3.1 (warpctc,
warprnnt). Paddle wants int32 labels, int64 ctc lengths and int32 rnnt lengths."""
# ruff: noqa: F821 (A and cmp come from perf/paddle_sweep.py)
import numpy as np

_F = "nn.functional"
_r = np.random.default_rng(7)


def _i32(*v):
    return np.array(v, "int32")


def _i64(*v):
    return np.array(v, "int64")


def _ctc(red="mean", **kw):
    return lambda P, x, lab, il, ll: P.nn.functional.ctc_loss(x, lab, il, ll, reduction=red,
                                                              **kw)


def _rnnt(red="mean", **kw):
    return lambda P, x, lab, il, ll: P.nn.functional.rnnt_loss(x, lab, il, ll, reduction=red,
                                                               **kw)


# ---- ctc_loss: [T, B, C] logits, labels [B, L] ----------------------------------------------
_lab = np.array([[1, 2, 2], [3, 1, 0], [2, 2, 2]], "int32")
for red in ("mean", "sum", "none"):
    cmp(f"ctc_loss_{red}", _ctc(red), [A((6, 3, 4)), _lab, _i64(6, 5, 6), _i64(3, 2, 3)])
    cmp(f"ctc_loss_{red}_f64", _ctc(red), [A((6, 3, 4), dtype="float64"), _lab,
                                             _i64(6, 5, 6), _i64(3, 2, 3)])
cmp("ctc_loss_default_args",
    lambda P, x, lab, il, ll: P.nn.functional.ctc_loss(x, lab, il, ll),
    [A((5, 2, 3)), _i32([1, 2], [2, 0]), _i64(5, 3), _i64(2, 1)])
cmp("ctc_loss_blank_last", _ctc("none", blank=4), [A((7, 2, 5)), _i32([0, 1, 3], [3, 3, 2]),
                                                   _i64(7, 6), _i64(3, 3)])
cmp("ctc_loss_blank_mid", _ctc("sum", blank=2), [A((6, 2, 4)), _i32([0, 1, 3], [3, 3, 1]),
                                                 _i64(6, 6), _i64(2, 3)])
cmp("ctc_loss_label_is_blank", _ctc("none"), [A((5, 2, 3)), _i32([1, 0], [0, 1]),
                                              _i64(5, 4), _i64(2, 2)])
cmp("ctc_loss_norm_by_times", _ctc("none", norm_by_times=True),
    [A((6, 3, 4)), _lab, _i64(6, 4, 6), _i64(3, 2, 3)])
cmp("ctc_loss_norm_by_times_mean", _ctc("mean", norm_by_times=True),
    [A((6, 3, 4)), _lab, _i64(5, 4, 6), _i64(2, 2, 3)])
cmp("ctc_loss_infeasible", _ctc("none"), [A((5, 2, 3)), _i32([1, 1, 1], [2, 2, 2]),
                                          _i64(5, 4), _i64(3, 3)])
cmp("ctc_loss_infeasible_mean", _ctc("mean"), [A((5, 2, 3)), _i32([1, 2, 1], [2, 2, 1]),
                                               _i64(2, 5), _i64(3, 3)])
cmp("ctc_loss_zero_label_length", _ctc("none"), [A((4, 2, 3)), _i32([1, 2], [1, 1]),
                                                 _i64(4, 3), _i64(0, 2)])
cmp("ctc_loss_zero_input_length", _ctc("none"), [A((4, 2, 3)), _i32([1, 2], [1, 1]),
                                                 _i64(0, 3), _i64(1, 1)])
# input_lengths = label_lengths = 0 (loss inf) corrupts Paddle's heap: tests/ only
cmp("ctc_loss_zero_infinity", _ctc("none", zero_infinity=True),
    [A((4, 2, 3)), _i32([1, 2], [1, 1]), _i64(1, 3), _i64(2, 1)])
cmp("ctc_loss_zero_label_length_mean", _ctc("mean"), [A((4, 2, 3)), _i32([1, 2], [1, 1]),
                                                      _i64(4, 3), _i64(0, 2)])
cmp("ctc_loss_long", _ctc("mean"), [A((40, 3, 6), -4, 4),
                                    _r.integers(1, 6, (3, 12)).astype("int32"),
                                    _i64(40, 33, 25), _i64(12, 9, 7)])
cmp("ctc_loss_long_f64", _ctc("none"), [A((40, 3, 6), -4, 4, "float64"),
                                        _r.integers(1, 3, (3, 15)).astype("int32"),
                                        _i64(40, 37, 31), _i64(15, 11, 9)])
cmp("ctc_loss_single_class_path", _ctc("none"), [A((3, 1, 2)), _i32([1, 1]), _i64(3), _i64(2)])
cmp("ctc_loss_blank_out_of_range", _ctc("none", blank=3), [A((4, 2, 3)), _i32([1, 2], [1, 1]),
                                                           _i64(4, 3), _i64(2, 1)])
cmp("ctc_loss_bad_reduction", _ctc("max"), [A((4, 2, 3)), _i32([1, 2], [1, 1]),
                                            _i64(4, 3), _i64(2, 1)])
cmp("ctc_loss_label_length_too_long", _ctc("none"), [A((4, 2, 3)), _i32([1, 2], [1, 1]),
                                                     _i64(4, 3), _i64(3, 1)])
cmp("CTCLoss", lambda P, x, lab, il, ll: P.nn.CTCLoss()(x, lab, il, ll),
    [A((6, 3, 4)), _lab, _i64(6, 5, 6), _i64(3, 2, 3)])
cmp("CTCLoss_sum_blank_nbt", lambda P, x, lab, il, ll: P.nn.CTCLoss(blank=3, reduction="sum")(
    x, lab, il, ll, norm_by_times=True), [A((6, 2, 4)), _i32([0, 1, 2], [2, 2, 0]),
                                          _i64(6, 5), _i64(3, 2)])
cmp("CTCLoss_zero_infinity", lambda P, x, lab, il, ll: P.nn.CTCLoss(
    reduction="none", zero_infinity=True)(x, lab, il, ll),
    [A((4, 2, 3)), _i32([1, 2], [1, 1]), _i64(4, 3), _i64(1, 1)])

# warpctc's quirks: probabilities clamped at the dtype's smallest normal, a log-sum of exactly
# 0 taking the gradient to the probability, pruned windows when L + repeats is close to T
cmp("ctc_loss_saturated_f32", _ctc("none"), [np.array([[[0, 20]], [[0, 20]]], "float32"),
                                             _i32([1]), _i64(1), _i64(1)])
cmp("ctc_loss_saturated_two_steps_f32", _ctc("none"),
    [np.array([[[0, 20]], [[0, 20]]], "float32"), _i32([1]), _i64(2), _i64(1)])
cmp("ctc_loss_saturated_f64", _ctc("none"), [np.array([[[0, 20]]], "float64"), _i32([1]),
                                             _i64(1), _i64(1)])
for dt in ("float32", "float64"):
    cmp(f"ctc_loss_clamped_{dt}", _ctc("none"),
        [np.array([[[100, 0, 0]], [[0, 100, 0]], [[0, 0, 800]]], dt), _i32([2, 1]), _i64(3),
         _i64(2)])
cmp("ctc_loss_neg_inf_logit", _ctc("none"),
    [np.array([[[0, 1, -np.inf]], [[1, 0, -np.inf]], [[0.5, 0, -np.inf]]], "float32"),
     _i32([1]), _i64(3), _i64(1)])
cmp("ctc_loss_tight_windows", _ctc("none"), [A((6, 3, 4)), _i32([1, 1, 2, 2], [1, 2, 3, 3],
                                                               [3, 3, 3, 0]),
                                             _i64(6, 5, 5), _i64(4, 4, 3)])
cmp("ctc_loss_blank_labels_repeated", _ctc("none"), [A((7, 2, 3)), _i32([1, 0, 0, 1],
                                                                        [0, 0, 2, 2]),
                                                     _i64(7, 7), _i64(4, 4)])
cmp("ctc_loss_blank_labels_blank2", _ctc("sum", blank=2), [A((6, 2, 3)), _i32([2, 1, 2],
                                                                              [0, 2, 2]),
                                                           _i64(6, 6), _i64(3, 3)])
cmp("ctc_loss_wide_f32", _ctc("none"), [A((60, 2, 30), -6, 6),
                                        _r.integers(1, 30, (2, 20)).astype("int32"),
                                        _i64(60, 48), _i64(20, 17)])

# ---- rnnt_loss: [B, T, U + 1, C] log-probabilities, label [B, U] -----------------------------
_ulab = np.array([[1, 2, 3], [4, 4, 0], [2, 1, 0]], "int32")
for red in ("mean", "sum", "none"):
    cmp(f"rnnt_loss_{red}", _rnnt(red), [A((3, 5, 4, 5), -3, 0), _ulab, _i32(5, 4, 3),
                                         _i32(3, 2, 1)])
    cmp(f"rnnt_loss_{red}_f64", _rnnt(red), [A((3, 5, 4, 5), -3, 0, "float64"), _ulab,
                                             _i32(5, 4, 3), _i32(3, 2, 1)])
cmp("rnnt_loss_default_args",
    lambda P, x, lab, il, ll: P.nn.functional.rnnt_loss(x, lab, il, ll),
    [A((2, 4, 3, 4), -2, 0), _i32([1, 2], [3, 3]), _i32(4, 3), _i32(2, 1)])
for fe in (0.0, 0.5, 2.0):
    cmp(f"rnnt_loss_fastemit_{fe}", _rnnt("none", fastemit_lambda=fe),
        [A((3, 5, 4, 5), -3, 0), _ulab, _i32(5, 4, 3), _i32(3, 2, 1)])
cmp("rnnt_loss_logits_not_normalised", _rnnt("sum"),
    [A((2, 4, 3, 4), -2, 3), _i32([1, 2], [3, 3]), _i32(4, 2), _i32(2, 2)])
cmp("rnnt_loss_blank_last", _rnnt("none", blank=4, fastemit_lambda=0.3),
    [A((2, 4, 3, 5), -3, 0), _i32([0, 3], [2, 2]), _i32(4, 3), _i32(2, 1)])
cmp("rnnt_loss_label_is_blank", _rnnt("none", fastemit_lambda=0.5),
    [A((2, 3, 3, 4), -2, 0), _i32([0, 2], [3, 3]), _i32(3, 2), _i32(2, 1)])
cmp("rnnt_loss_zero_label_length", _rnnt("none"),
    [A((2, 3, 3, 4), -2, 0), _i32([1, 2], [3, 3]), _i32(3, 2), _i32(0, 1)])
cmp("rnnt_loss_one_frame", _rnnt("none"), [A((2, 1, 3, 4), -2, 0), _i32([1, 2], [3, 3]),
                                           _i32(1, 1), _i32(2, 0)])
cmp("rnnt_loss_no_label_positions", _rnnt("none"),
    [A((2, 3, 1, 4), -2, 0), np.zeros((2, 0), "int32"), _i32(3, 2), _i32(0, 0)])
cmp("rnnt_loss_long", _rnnt("mean", fastemit_lambda=0.01),
    [A((2, 30, 9, 6), -3, 0), _r.integers(1, 6, (2, 8)).astype("int32"), _i32(30, 21),
     _i32(8, 5)])
cmp("rnnt_loss_blank_out_of_range", _rnnt("none", blank=4),
    [A((2, 3, 3, 4)), _i32([1, 2], [3, 3]), _i32(3, 2), _i32(2, 1)])
cmp("rnnt_loss_negative_fastemit", _rnnt("none", fastemit_lambda=-0.5),
    [A((2, 3, 3, 4)), _i32([1, 2], [3, 3]), _i32(3, 2), _i32(2, 1)])
cmp("rnnt_loss_bad_reduction", _rnnt("max"), [A((2, 3, 3, 4)), _i32([1, 2], [3, 3]),
                                              _i32(3, 2), _i32(2, 1)])
cmp("rnnt_loss_neg_inf_entries", _rnnt("none"),
    [np.where(A((2, 3, 3, 4)) > 1.2, -np.inf, A((2, 3, 3, 4), -2, 0)).astype("float32"),
     _i32([1, 2], [3, 3]), _i32(3, 2), _i32(2, 1)],
    known="a sample whose loss is infinite (no path through finite entries) gets zero "
          "gradient (Paddle 3.3.1: NaN)")
cmp("rnnt_loss_wide_f32", _rnnt("sum", fastemit_lambda=0.1),
    [A((2, 40, 16, 12), -8, 0), _r.integers(1, 12, (2, 15)).astype("int32"), _i32(40, 33),
     _i32(15, 11)])
cmp("RNNTLoss", lambda P, x, lab, il, ll: P.nn.RNNTLoss()(x, lab, il, ll),
    [A((3, 5, 4, 5), -3, 0), _ulab, _i32(5, 4, 3), _i32(3, 2, 1)])
cmp("RNNTLoss_args", lambda P, x, lab, il, ll: P.nn.RNNTLoss(blank=1, fastemit_lambda=0.2,
                                                             reduction="sum")(x, lab, il, ll),
    [A((2, 4, 3, 4), -2, 0), _i32([0, 2], [3, 3]), _i32(4, 3), _i32(2, 1)])
