"""In-place ops, __setitem__ and version counters."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.autograd.eager import eager_gradients

TT = paddle.to_tensor


def test_inplace_ops_on_constants_change_the_tensor():
    x = TT([1.0, -2.0, 3.0])
    assert x.add_(TT([1.0, 1.0, 1.0])) is x
    x.scale_(2.0, 1.0)
    x.clip_(-1.0, 5.0)
    assert x.tolist() == [5.0, -1.0, 5.0]
    x.subtract_(TT(1.0)).multiply_(TT([2.0, 1.0, 0.5])).divide_(TT(2.0))
    assert x.tolist() == [4.0, -1.0, 1.0]
    x.zero_()
    assert x.tolist() == [0.0, 0.0, 0.0]
    x.fill_(7.0)
    assert x.tolist() == [7.0] * 3
    assert x.inplace_version == 8
    paddle.exp_(x.zero_())
    assert x.tolist() == [1.0] * 3


def test_inplace_keeps_shape_and_dtype():
    x = TT([1.0, 2.0])
    with pytest.raises(ValueError, match="shape"):
        x.add_(TT([[1.0], [2.0]]))
    i = TT([1, 2])
    i.add_(TT([3, 4]))
    assert i.dtype == paddle.int64 and i.tolist() == [4, 6]


def test_inplace_on_leaf_that_needs_grad_raises_valueerror():
    w = TT([1.0, 2.0], stop_gradient=False)
    for op in (lambda: w.add_(TT(1.0)), lambda: w.zero_(), lambda: w.scale_(2.0)):
        with pytest.raises(ValueError, match="leaf tensor that needs a gradient"):
            op()
    with pytest.raises(ValueError, match="leaf"):
        w[0] = 3.0
    with paddle.no_grad():              # how optimizers update parameters
        w.subtract_(TT([0.5, 0.5]))
    assert w.tolist() == [0.5, 1.5] and not w.stop_gradient


def test_modified_saved_tensor_makes_backward_raise_naming_the_op():
    x = TT([1.0, 2.0], stop_gradient=False)
    c = TT([3.0, 4.0])
    y = (x * c).sum()
    c.add_(TT(1.0))
    with pytest.raises(RuntimeError, match=r"MultiplyGradNode \(multiply\).*in-place"):
        y.backward()
    with pytest.raises(RuntimeError, match="in-place"):
        eager_gradients([y], [None], targets=[x])


def test_modified_output_is_detected_too():
    x = TT([1.0, 2.0], stop_gradient=False)
    y = paddle.exp(x)                   # its backward reads y
    with paddle.no_grad():
        y.multiply_(TT(2.0))
    with pytest.raises(RuntimeError, match=r"ExpGradNode \(exp\) needs its output"):
        y.sum().backward()


def test_retained_program_is_not_replayed_after_an_inplace_change():
    x = TT([1.0, 2.0], stop_gradient=False)
    c = TT([3.0, 4.0])
    y = (x * c).sum()
    y.backward(retain_graph=True)
    c.scale_(2.0)
    with pytest.raises(RuntimeError, match="in-place"):
        y.backward()


def test_inplace_on_non_leaf_is_recorded():
    x = TT([1.0, 2.0, 3.0], stop_gradient=False)
    y = x * 2.0
    y.add_(x * x)                       # y = 2x + x^2
    y.exp_()
    y.sum().backward()
    xs = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.grad.numpy(), np.exp(2 * xs + xs ** 2) * (2 + 2 * xs),
                               rtol=1e-5)


def test_setitem_on_constants_and_non_leaves():
    a = TT(np.zeros((2, 3), np.float32))
    a[0, 1:] = 5.0
    a[a > 4] = 1.0
    a[1] = TT([1.0, 2.0, 3.0])
    assert a.tolist() == [[0, 1, 1], [1, 2, 3]]
    x = TT([1.0, 2.0, 3.0], stop_gradient=False)
    v = TT(10.0, stop_gradient=False)
    y = x * 3.0
    y[1] = v * 2.0
    y[TT([True, False, False])] = 0.0
    assert y.tolist() == [0.0, 20.0, 9.0]
    (y * TT([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 9.0] and v.grad.tolist() == 4.0


def test_setitem_value_needing_grad_into_a_constant():
    buf = TT(np.zeros(3, np.float32))
    v = TT([1.0, 2.0], stop_gradient=False)
    buf[1:] = v
    assert not buf.stop_gradient
    (buf * buf).sum().backward()
    assert v.grad.tolist() == [2.0, 4.0]


def test_consumers_of_the_old_value_refuse_to_backward():
    x = TT([1.0, 2.0], stop_gradient=False)
    y = x * 1.0
    z = y * y                           # recorded y at version 0
    y[0] = 5.0
    with pytest.raises(RuntimeError, match="in-place"):
        z.sum().backward()


def test_inplace_change_of_a_view_cannot_corrupt_a_recorded_gradient():
    # reshape shares a numpy buffer; in-place ops copy on write, so the constant recorded
    # by the multiply keeps its values and its gradient stays right.
    x = TT([1.0, 2.0], stop_gradient=False)
    c = TT([[3.0, 4.0]])
    flat = paddle.reshape(c, [2])
    y = (x * flat).sum()
    c.add_(TT(1.0))
    paddle.reshape(flat, [1, 2]).scale_(5.0)
    y.backward()
    assert x.grad.tolist() == [3.0, 4.0] and flat.tolist() == [3.0, 4.0]
    assert c.tolist() == [[4.0, 5.0]]


def test_inplace_change_of_a_detached_copy_counts_as_a_change_of_its_source():
    # detach() shares the version counter (Paddle): the multiply that read `flat` refuses,
    # though copy on write left flat's values as they were
    x = TT([1.0, 2.0], stop_gradient=False)
    flat = TT([3.0, 4.0])
    y = (x * flat).sum()
    flat.detach().zero_()
    assert flat.tolist() == [3.0, 4.0] and flat.inplace_version == 1
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()
    assert x.grad is None


# ---- the version check covers only values a gradient reads (registry `grad_reads`) ----------

def _overwrite_slices(x, w):
    y = x * w                           # multiply reads x and w, never y
    y[1:] = y[1:] * 3.0                 # getitem reads y's shape only (Paddle's slice_grad)
    y[:2] = paddle.sin(y[:2])           # sin reads its input: a fresh slice, unchanged since
    return y * y


def test_overwriting_slices_with_functions_of_themselves_matches_finite_differences():
    from jitgrad.testing import check_grads
    check_grads(_overwrite_slices, [0.3, -0.7, 1.1, 0.4], [1.5, 0.5, -2.0, 1.0])
    check_grads(_overwrite_slices, [0.3, -0.7, 1.1, 0.4], [1.5, 0.5, -2.0, 1.0], order=2)


def test_changed_values_that_no_gradient_reads_do_not_block_backward():
    x = TT([1.0, 2.0], stop_gradient=False)
    y = x + 1.0                         # add reads neither its inputs nor its output
    s = y.sum()                         # sum reads y's shape only
    with paddle.no_grad():
        y.multiply_(TT(2.0))
    (s + y.sum()).backward()
    assert x.grad.tolist() == [2.0, 2.0]
    x = TT([1.0, 2.0], stop_gradient=False)
    y = x * 2.0
    s = y.sum()
    y.exp_()                            # recorded: y is rebound, s still reaches x * 2
    (s + y.sum()).backward()
    assert x.grad.tolist() == pytest.approx([2 + 2 * np.exp(2.0), 2 + 2 * np.exp(4.0)])
    x = TT([1.0, 2.0], stop_gradient=False)
    a = x * 3.0
    y = paddle.concat([a, x * x])                   # concat reads shapes only
    a.tanh_()
    (y * TT([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [3.0 + 6.0, 6.0 + 16.0]


def test_changed_values_a_gradient_reads_still_block_backward():
    x = TT([1.0, 2.0, 3.0], stop_gradient=False)
    y = x * 1.0
    z = y[1:] * y[1:]                   # multiply reads the slices, which are not changed
    w = y * y                           # multiply reads y itself
    y[1:] = y[1:] * 3.0
    z.sum().backward()
    assert x.grad.tolist() == [0.0, 4.0, 6.0]
    with pytest.raises(RuntimeError, match=r"MultiplyGradNode \(multiply\) needs its input 0"):
        w.sum().backward()
    y = paddle.exp(x)
    with paddle.no_grad():
        y[0] = 0.0
    with pytest.raises(RuntimeError, match="ExpGradNode"):
        y.sum().backward()


@pytest.mark.parametrize("value", [[5.0], [[5.0]]])
def test_setitem_one_element_value_with_leading_ones_into_one_element(value):
    # Paddle 3.3.1 drops the leading ones (numpy refuses them for a single element)
    c = paddle.zeros([2, 2])
    c[1, 1] = paddle.to_tensor(value)
    assert c.tolist() == [[0.0, 0.0], [0.0, 5.0]]
    d = paddle.zeros([3])
    d[0] = np.array(value, "float32")
    assert d.tolist() == [5.0, 0.0, 0.0]


def test_setitem_one_element_value_into_one_element_is_differentiable():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    v = paddle.to_tensor([7.0], stop_gradient=False)
    y = x * 1.0
    y[1] = v
    (y * y).sum().backward()
    assert y.tolist() == [1.0, 7.0, 3.0]
    assert v.grad.tolist() == [14.0]
    assert x.grad.tolist() == [2.0, 0.0, 6.0]


def test_setitem_value_of_another_shape_still_raises():
    c = paddle.zeros([3])
    with pytest.raises(ValueError):
        c[0:2] = paddle.to_tensor([[5.0], [6.0]])      # [2, 1] into [2] (Paddle refuses too)
    with pytest.raises(ValueError):
        c[0] = paddle.to_tensor([5.0, 6.0])
