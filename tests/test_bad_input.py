"""Bad input to common functions (hunt badin22, /work/scratch/badin22): where Paddle 3.3.1
raises, jitgrad raises too, with a message naming what is wrong, rather than returning a
silently wrong result or a numpy-internal error."""

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F

TT = paddle.to_tensor



def test_softmax_of_0d_tensor_refuses_axis_1():
    # Paddle 3.3.1: 'Expected axis <= 0'; jitgrad returned 1.0
    with pytest.raises(ValueError, match="0-d tensor takes axis 0 or -1"):
        F.softmax(TT(2.0), axis=1)
    with pytest.raises(ValueError, match="out of range"):
        F.log_softmax(TT(2.0), axis=-2)
    assert F.softmax(TT(2.0), axis=-1).item() == 1.0
    assert F.softmax(TT(2.0), axis=0).item() == 1.0


def test_reshape_refuses_float_in_shape():
    # Paddle 3.3.1: TypeError 'must be list of int, but got float'; jitgrad made [3, 4]
    with pytest.raises(TypeError, match=r"shape must hold ints, got 3.0"):
        paddle.reshape(paddle.ones([2, 6]), [3.0, 4])


def test_reshape_zero_beyond_x_dims_names_the_dim():
    # a 0 keeps x's dim i: there is none past x's rank (was IndexError 'tuple index out
    # of range')
    with pytest.raises(ValueError, match="keeps x's dim 2, but x of shape \\[2, 6\\] has 2"):
        paddle.reshape(paddle.ones([2, 6]), [3, 0, 0])


def test_expand_refuses_minus_one_for_a_new_leading_dim():
    # Paddle 3.3.1 raises ('expand_shape[i] >= 0'); jitgrad made shape [3, 2, 3]
    with pytest.raises(ValueError, match="-1 for a new leading dim"):
        paddle.expand(paddle.ones([2, 3]), [-1, 2, 3])
    assert paddle.expand(paddle.ones([2, 3]), [4, -1, -1]).shape == [4, 2, 3]


def test_transpose_out_of_range_axis_is_named_as_given():
    # the message showed the perm wrapped modulo ndim ([0, 2] printed as [0, 0])
    with pytest.raises(ValueError, match=r"perm \[0, 2\] is not a permutation of 2 axes "
                                         r"\(axis 2 is out"):
        paddle.transpose(paddle.ones([2, 3]), [0, 2])
    assert paddle.transpose(paddle.ones([2, 3]), [-1, 0]).shape == [3, 2]


def test_gather_refuses_a_2d_index_not_of_shape_n_1():
    # Paddle 3.3.1: 'Expected index_dims[1] == 1'; jitgrad flattened the index
    x = paddle.arange(6.0).reshape([3, 2])
    with pytest.raises(ValueError, match=r"index must be 0-D, 1-D or of shape \[N, 1\]"):
        paddle.gather(x, TT([[0, 1]]))
    with pytest.raises(ValueError, match=r"got shape \[1, 1, 1\]"):
        paddle.gather(x, TT([[[0]]]))
    np.testing.assert_array_equal(paddle.gather(x, TT([[2], [0]])).numpy(),
                                  [[4, 5], [0, 1]])


def test_matmul_batch_dims_that_do_not_broadcast_are_named():
    # was numpy's 'shape mismatch: objects cannot be broadcast to a single shape'
    with pytest.raises(ValueError, match=r"matmul: batch dims \[2\] and \[3\]"):
        paddle.matmul(paddle.ones([2, 2, 3]), paddle.ones([3, 3, 4]))


# ---- losses ------------------------------------------------------------------------------

def test_cross_entropy_refuses_a_weight_not_of_one_value_per_class():
    # Paddle 3.3.1: "input's class_dimension(3) must equal to weight's class_dimension(4)";
    # jitgrad indexed the 4 weights by the labels
    with pytest.raises(ValueError, match=r"weight must have one value per class \(3\), got "
                                         r"shape \[4\]"):
        F.cross_entropy(paddle.ones([2, 3]), TT([0, 1]), weight=paddle.ones([4]))
    with pytest.raises(ValueError, match="one value per class"):
        F.nll_loss(paddle.ones([2, 3]), TT([0, 1]), weight=paddle.ones([2]))


def test_nll_loss_refuses_float_labels():
    # Paddle 3.3.1 raises (dtype mismatch); jitgrad truncated them to class ids
    with pytest.raises(TypeError, match="nll_loss: labels must be integers"):
        F.nll_loss(paddle.ones([2, 3]), TT([0.0, 1.0]))


def test_binary_cross_entropy_refuses_inputs_outside_0_1():
    # Paddle 3.3.1: 'Expected x_data[i] <= 1'; jitgrad gave NaN
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\].*got 1.5"):
        F.binary_cross_entropy(TT([1.5, 0.5]), TT([1.0, 0.0]))
    with pytest.raises(ValueError, match="got nan"):
        F.binary_cross_entropy(TT([float("nan"), 0.5]), TT([1.0, 0.0]), reduction="sum")
    assert np.isfinite(F.binary_cross_entropy(TT([1.0, 0.0]), TT([0.0, 1.0])).item())


def test_bce_with_logits_refuses_a_label_of_another_shape():
    # Paddle 3.3.1 raises; jitgrad broadcast the label [3] over logits [2, 3]
    with pytest.raises(ValueError, match=r"label shape paddle.Size\(\[3\]\) must equal logit"):
        F.binary_cross_entropy_with_logits(paddle.ones([2, 3]), paddle.ones([3]))


# ---- embedding, one_hot -------------------------------------------------------------------

def test_embedding_padding_idx_out_of_range_raises():
    # Paddle 3.3.1: 'padding_idx must be within [-5, 5)'; jitgrad wrapped 7 onto row 2
    with pytest.raises(ValueError, match=r"padding_idx must be within \[-5, 5\), got 7"):
        paddle.nn.Embedding(5, 2, padding_idx=7)
    with pytest.raises(ValueError, match=r"padding_idx must be within \[-5, 5\), got -6"):
        F.embedding(TT([0, 1]), paddle.ones([5, 2]), padding_idx=-6)


def test_one_hot_refuses_negative_and_too_large_ids():
    # Paddle 3.3.1 raises ('p_in_data[i] >= 0'); jitgrad put -1 on the last class
    with pytest.raises(ValueError, match=r"ids must lie in \[0, num_classes=3\)"):
        F.one_hot(TT([0, -1]), 3)
    with pytest.raises(ValueError, match="got ids from 0 to 3"):
        F.one_hot(TT([0, 3]), 3)


# ---- creation, shapes, conv, optimizers ------------------------------------------------------

def test_arange_refuses_nan_and_inf_bounds():
    # Paddle 3.3.1: 'The value of end must be finite'; jitgrad gave [] for NaN, and
    # 'cannot convert float infinity to integer' for inf
    with pytest.raises(ValueError, match="arange: end must be finite, got nan"):
        paddle.arange(0.0, float("nan"), 1.0)
    with pytest.raises(ValueError, match="arange: end must be finite, got inf"):
        paddle.arange(0.0, float("inf"), 1.0)


def test_flatten_axis_out_of_range_raises():
    # Paddle 3.3.1 raises; jitgrad wrapped stop_axis 3 of a 3-D x onto 0 (x unchanged)
    with pytest.raises(ValueError, match="flatten: stop_axis 3 is out of range for 3 dims"):
        paddle.flatten(paddle.ones([2, 3, 4]), start_axis=0, stop_axis=3)
    assert paddle.flatten(paddle.ones([2, 3, 4]), start_axis=-2).shape == [2, 12]


def test_meshgrid_refuses_a_2d_tensor():
    # Paddle 3.3.1: 'Expected scalar or 1D tensor'; jitgrad used its size
    with pytest.raises(ValueError, match="meshgrid: expects 0-D or 1-D tensors"):
        paddle.meshgrid(paddle.ones([2, 2]), paddle.ones([3]))


def test_conv_stride_zero_is_named():
    # was ZeroDivisionError 'integer division or modulo by zero'
    with pytest.raises(ValueError, match=r"stride must be positive, got \[1, 0\]"):
        F.conv2d(paddle.ones([1, 3, 5, 5]), paddle.ones([2, 3, 3, 3]), stride=[1, 0])
    with pytest.raises(ValueError, match="kernel_size must be positive"):
        F.max_pool2d(paddle.ones([1, 1, 4, 4]), kernel_size=0)


def test_adam_refuses_betas_outside_0_1():
    # Paddle 3.3.1: 'Invalid value of beta1, expect beta1 in [0,1).'; jitgrad accepted it
    w = paddle.nn.Linear(2, 2).weight
    with pytest.raises(ValueError, match=r"Adam: beta1 must lie in \[0, 1\), got 1.5"):
        paddle.optimizer.Adam(0.1, beta1=1.5, parameters=[w])
    with pytest.raises(ValueError, match=r"AdamW: beta2 must lie in \[0, 1\)"):
        paddle.optimizer.AdamW(0.1, beta2=-0.1, parameters=[w])
    with pytest.raises(ValueError, match="epsilon must be >= 0"):
        paddle.optimizer.Adam(0.1, epsilon=-1.0, parameters=[w])


# ---- layers whose parameters do not fit the input (numpy's messages before) -----------------

def test_batch_norm_channel_mismatch_is_named():
    # was numpy's 'cannot reshape array of size 4 into shape (3,1)'
    with pytest.raises(ValueError, match=r"x of shape \[2, 3\] has 3 channels, but "
                                         r"running_mean has 4 values"):
        paddle.nn.BatchNorm1D(4)(paddle.ones([2, 3]))
    with pytest.raises(ValueError, match="num_features of the layer must equal"):
        paddle.nn.BatchNorm2D(4)(paddle.ones([2, 3, 2, 2]))


def test_layer_norm_weight_of_another_size_is_named():
    # was 'reshape: cannot reshape a tensor of shape paddle.Size([4]) ... into [3]'
    with pytest.raises(ValueError, match=r"layer_norm: weight must have 3 elements"):
        F.layer_norm(paddle.ones([2, 3]), normalized_shape=[3], weight=paddle.ones([4]))


def test_conv2d_bias_of_another_length_is_named():
    # was 'could not broadcast input array from shape (1,3,5,5) into shape (1,3,1,1)'
    with pytest.raises(ValueError, match=r"conv2d: bias must have shape \[2\]"):
        F.conv2d(paddle.ones([1, 3, 5, 5]), paddle.ones([2, 3, 3, 3]), bias=paddle.ones([3]))


def test_linear_bias_of_another_length_is_named():
    # was 'operands could not be broadcast together with shapes (2,5) (4,)'
    with pytest.raises(ValueError, match=r"linear: bias of shape \[4\] does not fit weight "
                                         r"\[3, 5\] \(expected \[5\]\)"):
        F.linear(paddle.ones([2, 3]), paddle.ones([3, 5]), paddle.ones([4]))


# ---- autograd -----------------------------------------------------------------------------

def test_backward_seed_of_another_layout_raises():
    # a [3, 2] seed for a [2, 3] output was read as if it were [2, 3] (Paddle 3.3.1 gives
    # x.grad the seed's shape [3, 2]; torch raises 'Mismatch in shape'); size-1 dims may
    # still differ ([1] for a 0-d loss)
    x = TT(np.ones((2, 3), np.float32), stop_gradient=False)
    y = x * 2
    with pytest.raises(ValueError, match=r"grad_tensors\[0\] has shape \[3, 2\] but its "
                                         r"output has shape \[2, 3\]"):
        paddle.autograd.backward([y], [paddle.ones([3, 2])])
    with pytest.raises(ValueError, match=r"grad_outputs\[0\] has shape \[3, 2\]"):
        paddle.grad([y], [x], grad_outputs=[paddle.ones([3, 2])])
    assert paddle.grad([y.sum()], [x], grad_outputs=[paddle.ones([1])])[0].shape == [2, 3]


# ---- batch 3: arguments of the wrong length or type --------------------------------------

def test_interpolate_size_or_scale_of_another_length_raises():
    # Paddle 3.3.1: 'scale_shape length should be 2 for input 4-D tensor.'; jitgrad used
    # the first two of three scale factors (and size [3] failed in a numpy reshape)
    x = paddle.ones([1, 1, 2, 2])
    with pytest.raises(ValueError, match=r"scale_factor \[2.0, 2.0, 2.0\] needs 2 values"):
        F.interpolate(x, scale_factor=[2, 2, 2])
    with pytest.raises(ValueError, match=r"size \[3\] needs 2 values"):
        F.interpolate(x, size=[3])


def test_scatter_refuses_a_2d_index_not_of_shape_n_1():
    # Paddle 3.3.1: 'Expected index_dims[1] == 1'; jitgrad flattened the index
    with pytest.raises(ValueError, match=r"scatter: index must be 1-D or of shape \[N, 1\]"):
        paddle.scatter(paddle.zeros([3, 2]), TT([[1, 2]]), paddle.ones([2, 2]))
    np.testing.assert_array_equal(
        paddle.scatter(paddle.zeros([3, 2]), TT([[2], [0]]), paddle.ones([2, 2])).numpy(),
        [[1, 1], [0, 0], [1, 1]])


def test_dropout_axis_out_of_range_raises():
    # Paddle 3.3.1 raises; jitgrad wrapped axis 3 of a 2-D x onto axis 1
    with pytest.raises(ValueError, match="dropout: axis 3 is out of range for 2 dims"):
        F.dropout(paddle.ones([2, 3]), p=0.5, axis=3)


def test_split_refuses_float_sections():
    # Paddle 3.3.1: TypeError 'must be list of int, but got float'; jitgrad truncated them
    with pytest.raises(TypeError, match=r"split: sections must be ints, got 3.0"):
        paddle.split(paddle.ones([5]), [2, 3.0])
    with pytest.raises(TypeError, match="num_or_sections must be an int or a list"):
        paddle.split(paddle.ones([4]), 2.0)


def test_topk_float_k_is_named():
    # was numpy's "Cannot cast array data from dtype('float64') to dtype('int64')"
    with pytest.raises(TypeError, match="topk: k must be an int, got 1.5"):
        paddle.topk(TT([1.0, 5.0, 9.0]), 1.5)


def test_zero_sizes_that_divided_by_zero_are_named():
    # were ZeroDivisionError ('integer modulo by zero', 'float division by zero')
    with pytest.raises(ValueError, match="output_size must be positive, got 0"):
        F.adaptive_avg_pool2d(paddle.ones([1, 1, 4, 4]), 0)
    with pytest.raises(ValueError, match="T_max must be a positive integer, got 0"):
        paddle.optimizer.lr.CosineAnnealingDecay(0.1, T_max=0)


def test_masked_fill_non_bool_mask_names_masked_fill():
    # was "where: condition must be a bool tensor" (Paddle 3.3.1 takes nonzero as True)
    with pytest.raises(TypeError, match="masked_fill: mask must be a bool tensor, got float32"):
        paddle.masked_fill(paddle.ones([2, 3]), paddle.ones([2, 3]), 0.0)


def test_expand_and_broadcast_to_refuse_float_dims():
    # Paddle 3.3.1: TypeError 'must be list of int'; jitgrad truncated 2.5 to 2
    with pytest.raises(TypeError, match=r"shape must hold ints, got 2.5 in \[2.5, 3\]"):
        paddle.broadcast_to(paddle.ones([1, 3]), [2.5, 3])
    with pytest.raises(TypeError, match="shape must hold ints, got 2.0"):
        paddle.expand(paddle.ones([1, 3]), [2.0, 3])
    assert paddle.expand(paddle.ones([1, 3]), [np.int64(2), TT(3)]).shape == [2, 3]


def test_transpose_refuses_float_perm():
    # Paddle 3.3.1: TypeError; jitgrad truncated [1.5, 0.0] to [1, 0]
    with pytest.raises(TypeError, match=r"transpose: perm must hold ints, got 1.5"):
        paddle.transpose(paddle.ones([2, 3]), [1.5, 0.0])


def test_randperm_refuses_a_negative_n():
    # Paddle 3.3.1 raises; jitgrad gave an empty tensor
    with pytest.raises(ValueError, match="randperm: n must be a non-negative int, got -1"):
        paddle.randperm(-1)
    assert paddle.randperm(TT(3)).shape == [3]


def test_cross_entropy_refuses_label_smoothing_above_1():
    # Paddle 3.3.1: 'The value of epsilon must be between 0 and 1.'; jitgrad computed a loss
    # with negative smoothed targets
    with pytest.raises(ValueError, match=r"label_smoothing must lie in \[0, 1\], got 1.5"):
        F.cross_entropy(paddle.ones([2, 3]), TT([0, 1]), label_smoothing=1.5)


# ---- batch 6 (c6.py) ---------------------------------------------------------------------

def test_clip_refuses_a_nan_bound():
    # Paddle 3.3.1: 'Expected min_ <= max_, but received min_:nan'; jitgrad gave all NaN
    with pytest.raises(ValueError, match="clip: min and max must not be NaN"):
        paddle.clip(TT([1.0, 5.0]), min=float("nan"))


def test_kthvalue_refuses_a_float_k():
    # Paddle 3.3.1: TypeError 'must be long'; jitgrad took 1.5 as 1
    with pytest.raises(TypeError, match="kthvalue: k must be an int, got 1.5"):
        paddle.kthvalue(TT([1.0, 3.0, 2.0]), 1.5)


def test_diff_refuses_a_negative_n():
    # Paddle 3.3.1 raises; jitgrad returned x unchanged
    with pytest.raises(ValueError, match="diff: n must be a non-negative int, got -1"):
        paddle.diff(paddle.ones([3]), n=-1)


def test_conv_groups_or_kernel_zero_is_named():
    # were ZeroDivisionError ('integer modulo by zero', 'division by zero')
    with pytest.raises(ValueError, match="conv2d: groups must be a positive int, got 0"):
        F.conv2d(paddle.ones([1, 4, 5, 5]), paddle.ones([2, 4, 3, 3]), groups=0)
    with pytest.raises(ValueError, match="Conv2D: in_channels, kernel_size and groups must be "
                                         "positive"):
        paddle.nn.Conv2D(3, 2, 0)


# ---- batch 7 (c7.py) ---------------------------------------------------------------------

def test_cdist_refuses_rows_of_another_length():
    # Paddle 3.3.1: 'The x and y must have same last dimension'; jitgrad broadcast a [4, 1]
    # y against a [2, 3] x (a [2, 4] result) and gave numpy's broadcast error for [4, 5]
    with pytest.raises(ValueError, match="cdist: x and y must have the same last dim"):
        paddle.cdist(paddle.ones([2, 3]), paddle.ones([4, 1]))
    with pytest.raises(ValueError, match="same last dim"):
        paddle.cdist(paddle.ones([2, 3]), paddle.ones([4, 5]))


def test_log_softmax_of_int_names_log_softmax():
    with pytest.raises(TypeError, match="log_softmax expects a float tensor"):
        F.log_softmax(TT([1, 2]))


def test_logit_eps_outside_0_half_is_named():
    # was clip's 'min (2.0) is larger than max (-1.0)' (Paddle 3.3.1 gives NaN)
    with pytest.raises(ValueError, match=r"logit: eps must lie in \[0, 0.5\]"):
        paddle.logit(TT([0.5]), eps=2.0)
