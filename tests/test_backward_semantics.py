"""Paddle's rules for autograd.backward and Tensor.backward (PADDLE_SEMANTICS.md B-E, M)."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def leaf(values, dtype="float32"):
    return TT(values, dtype=dtype, stop_gradient=False)


# ---- B. arguments ---------------------------------------------------------------------------

def test_backward_returns_none():
    x = leaf([1.0, 2.0])
    assert paddle.autograd.backward(x * 2) is None
    assert (x * 3).backward() is None


def test_empty_tensor_list_raises_value_error():
    with pytest.raises(ValueError, match="empty"):
        paddle.autograd.backward([])


def test_non_tensor_element_raises_type_error():
    x = leaf([1.0])
    with pytest.raises(TypeError, match=r"tensors\[1\]"):
        paddle.autograd.backward([x * 2, 3.0])


def test_duplicate_tensor_raises_value_error():
    y = leaf([1.0]) * 2
    with pytest.raises(ValueError, match="same Tensor twice"):
        paddle.autograd.backward([y, y])


def test_bare_tensor_seed_is_wrapped_in_a_list():
    x = leaf([1.0, 2.0])
    paddle.autograd.backward(x * 3, TT([1.0, 2.0]))
    assert x.grad.tolist() == [3.0, 6.0]


def test_none_seed_entry_means_ones():
    x = leaf([1.0, 2.0])
    paddle.autograd.backward([x * 3, x * 5], [TT([2.0, 2.0]), None])
    assert x.grad.tolist() == [11.0, 11.0]


def test_seed_list_length_mismatch_raises_value_error():
    x = leaf([1.0])
    with pytest.raises(ValueError, match="lengths must be equal"):
        paddle.autograd.backward([x * 2], [TT([1.0]), TT([1.0])])


def test_numpy_seed_raises_type_error():
    x = leaf([1.0])
    with pytest.raises(TypeError, match=r"grad_tensors\[0\]"):
        paddle.autograd.backward([x * 2], [np.ones(1, np.float32)])


def test_non_scalar_output_is_seeded_with_ones():
    x = leaf([1.0, 2.0, 3.0])
    paddle.autograd.backward(x * x)
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_tensor_backward_checks_seed_shape():
    x = leaf([1.0])
    z = paddle.matmul(x, TT([2.0]))          # 0-d
    with pytest.raises(ValueError, match="shape"):
        z.backward(TT([3.0]))


def test_autograd_backward_accepts_seed_with_equal_numel():
    x = leaf([[1.0, 2.0]])
    paddle.autograd.backward(x * 2, TT([3.0, 4.0]))
    assert x.grad.tolist() == [[6.0, 8.0]]


def test_seed_with_other_numel_raises_value_error():
    x = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="3 elements"):
        paddle.autograd.backward(x * 2, TT([1.0, 2.0, 3.0]))


def test_float64_seed_for_float32_output_gives_float32_grad():
    x = leaf([1.0, 2.0])
    paddle.autograd.backward(x * 2, TT(np.array([1.0, 1.0])))
    assert x.grad.dtype == paddle.float32
    assert x.grad.tolist() == [2.0, 2.0]


def test_retain_graph_must_be_a_bool():
    x = leaf([1.0])
    with pytest.raises(TypeError, match="retain_graph"):
        paddle.autograd.backward(x * 2, retain_graph=1)


def test_output_without_gradient_path_is_a_silent_no_op():
    x = TT([1.0, 2.0])
    y = x * 2
    paddle.autograd.backward(y)
    assert x.grad is None and y.grad is None


def test_outputs_without_gradient_path_are_skipped_in_a_list():
    x = leaf([1.0])
    paddle.autograd.backward([TT([1.0]) * 2, x * 4])
    assert x.grad.tolist() == [4.0]


def test_backward_on_a_leaf_sets_ones_and_accumulates():
    x = leaf([1.0, 2.0])
    x.backward()
    x.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_backward_inside_no_grad_still_computes():
    x = leaf([3.0])
    y = x * x
    with paddle.no_grad():
        y.backward()
    assert x.grad.tolist() == [6.0]


# ---- C. .grad lifecycle ---------------------------------------------------------------------

def test_grad_starts_none_and_accumulates_across_calls():
    x = leaf([5.0])
    assert x.grad is None
    seen = []
    for _ in range(5):
        paddle.pow(x, 4).backward()
        seen.append(x.grad.item())
    assert seen == [500.0, 1000.0, 1500.0, 2000.0, 2500.0]


def test_contributions_from_all_paths_are_summed():
    x = leaf([2.0])
    (x * x + x * 3).backward()
    assert x.grad.tolist() == [7.0]


def test_clear_grad_zeroes_in_place_and_none_stays_none():
    x = leaf([1.0])
    x.clear_grad()
    assert x.grad is None
    (x * 2).backward()
    kept = x.grad
    x.clear_grad()
    assert x.grad.tolist() == [0.0] and kept.tolist() == [0.0]


def test_clear_grad_takes_no_arguments():
    with pytest.raises(TypeError):
        leaf([1.0]).clear_grad(set_to_zero=False)


def test_grad_setter_installs_and_none_resets():
    x = leaf([1.0, 2.0])
    x.grad = TT([10.0, 10.0])
    (x * 2).backward()
    assert x.grad.tolist() == [12.0, 12.0]
    x.grad = None
    assert x.grad is None and x.gradient() is None


def test_gradient_returns_numpy():
    x = leaf([1.0])
    (x * 2).backward()
    g = x.gradient()
    assert isinstance(g, np.ndarray) and g.tolist() == [2.0]


def test_kept_grad_reference_sees_later_accumulation():
    x = leaf([1.0])
    (x * 2).backward()
    kept = x.grad
    (x * 2).backward()
    assert kept.tolist() == [4.0]


def test_grad_tensor_reports_stop_gradient_false_and_is_leaf():
    x = leaf([1.0])
    (x * 2).backward()
    assert x.grad.stop_gradient is False and x.grad.is_leaf


# ---- D. freed graphs and retain_graph -------------------------------------------------------

def test_second_backward_through_freed_graph_names_op_and_retain_graph():
    x = leaf([1.0, 2.0])
    y = paddle.exp(x)
    y.backward()
    with pytest.raises(RuntimeError, match=r"ExpGradNode.*retain_graph=True"):
        y.backward()


def test_ops_that_save_nothing_also_free():
    x = leaf([1.0])
    y = x + 1
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_failing_backward_accumulates_nothing():
    x = leaf([1.0])
    a = x * 2
    b = x * 3
    a.backward()
    with pytest.raises(RuntimeError):
        paddle.autograd.backward([b, a])
    assert x.grad.tolist() == [2.0]


def test_retain_graph_true_on_second_call_does_not_revive_a_freed_graph():
    x = leaf([1.0])
    y = x * 2
    y.backward()
    x.clear_grad()
    with pytest.raises(RuntimeError):
        y.backward(retain_graph=True)


def test_retained_then_freeing_call_then_error():
    x = leaf([1.0])
    y = x * 3
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [6.0]
    with pytest.raises(RuntimeError):
        y.backward()


def test_graphs_sharing_only_a_leaf_are_independent():
    x = leaf([1.0])
    a, b = x * 2, x * 3
    a.backward()
    b.backward()
    assert x.grad.tolist() == [5.0]


def test_graphs_sharing_an_interior_node_break_after_free():
    x = leaf([1.0])
    h = paddle.exp(x)
    a, b = h * 2, h * 3
    a.backward()
    with pytest.raises(RuntimeError, match="ExpGradNode"):
        b.backward()


# ---- E. leaves, non-leaves, stop_gradient ----------------------------------------------------

def test_stop_gradient_propagates_and_leafness():
    x, c = leaf([1.0]), TT([2.0])
    assert (x * c).stop_gradient is False and not (x * c).is_leaf
    assert (c * c).stop_gradient is True and (c * c).is_leaf
    assert x.detach().is_leaf and x.detach().stop_gradient
    with paddle.no_grad():
        y = x * 2
    assert y.is_leaf and y.stop_gradient


def test_non_leaf_grad_is_none_unless_retained():
    x = leaf([1.0])
    y = x * 2
    z = y * 3
    z.backward(TT([3.0]))
    assert y.grad is None and z.grad is None


def test_retained_root_grad_equals_seed_and_is_overwritten():
    x = leaf([1.0])
    z = x * 2
    z.retain_grads()
    seen = []
    for s in (3.0, 5.0):
        z.backward(TT([s]), retain_graph=True)
        seen.append(z.grad.item())
    paddle.autograd.backward([z], [TT([8.0])])
    seen.append(z.grad.item())
    assert seen == [3.0, 5.0, 8.0]
    assert x.grad.item() == 32.0


def test_setting_stop_gradient_on_non_leaf_cuts_the_path():
    x = leaf([1.0])
    y = x * 2
    y.stop_gradient = True
    z = y * 3 + x
    z.backward()
    assert x.grad.tolist() == [1.0]


def test_stop_gradient_false_on_constant_result_makes_a_leaf_receiving_grad():
    c = TT([2.0]) * 3
    c.stop_gradient = False
    (c * c).backward()
    assert c.is_leaf and c.grad.tolist() == [12.0]


def test_changing_a_leaf_flag_after_an_op_does_not_add_the_op():
    x = TT([1.0])
    y = x * 2
    x.stop_gradient = False
    assert y.stop_gradient and y.is_leaf


def test_clone_and_astype_are_differentiable_and_astype_grad_in_source_dtype():
    x = leaf([1.0, 2.0])
    (x.clone() * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    x2 = leaf([1.0, 2.0])
    y = x2.astype("float64")
    assert y.dtype == paddle.float64
    (y * y).sum().backward()
    assert x2.grad.dtype == paddle.float32 and x2.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_int_and_bool_tensors_cannot_require_grad(dtype):
    with pytest.raises(TypeError, match="cannot require gradients"):
        TT([1, 0], dtype=dtype, stop_gradient=False)
    t = TT([1, 0], dtype=dtype)
    with pytest.raises(TypeError):
        t.stop_gradient = False
