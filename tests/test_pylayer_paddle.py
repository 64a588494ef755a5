"""PyLayer as Paddle 3.3.1 runs it: each behaviour here was measured on Paddle 3.3.1 (its
own test_pylayer_op.py among the probes) and is checked on every backward path: the
compiled Program with a callback, the reference interpreter, and the eager create_graph
path. Deliberate differences are marked (README)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import errors
from jitgrad.autograd import PyLayer

from backward_paths import PATHS, backward, leaf

TT = paddle.to_tensor


def grads_seen(log):
    return [None if g is None else (g.tolist(), g.dtype.name) for g in log]


# ---- what backward receives ----------------------------------------------------------------

class Mixed(PyLayer):
    """Tensor, number, None, string and a constant Tensor made inside forward."""
    log: list = []

    @staticmethod
    def forward(ctx, x):
        return x * 2, 1, None, "s", TT([5.0, 6.0])

    @staticmethod
    def backward(ctx, *grads):
        Mixed.log = list(grads)
        return grads[0] * 2


@pytest.mark.parametrize("path", PATHS)
def test_backward_gets_one_gradient_per_tensor_output_only(path):
    x = leaf([1.0, 2.0])
    y, one, none, s, c = Mixed.apply(x)
    assert (one, none, s) == (1, None, "s")
    assert y.stop_gradient is False and c.stop_gradient is False
    backward((y.sum() + c.sum() * 3), path)
    assert grads_seen(Mixed.log) == [([1.0, 1.0], "float32"), ([3.0, 3.0], "float32")]
    assert x.grad.tolist() == [2.0, 2.0]


class TwoOut(PyLayer):
    log: list = []
    materialize = True

    @staticmethod
    def forward(ctx, x):
        ctx.mark_not_inplace(x)
        ctx.set_materialize_grads(TwoOut.materialize)
        return x, x + x

    @staticmethod
    def backward(ctx, g, g2):
        TwoOut.log = [g, g2]
        return g


@pytest.mark.parametrize("materialize", [True, False])
@pytest.mark.parametrize("path", PATHS)
def test_an_output_no_gradient_reached_gets_zeros_or_none(path, materialize):
    TwoOut.materialize = materialize
    x = leaf([1.0], "float64")
    a, b = TwoOut.apply(x)
    assert a is not x                       # mark_not_inplace: a new tensor, no error
    backward(a.sum(), path)
    want = ([0.0], "float64") if materialize else None
    assert grads_seen(TwoOut.log) == [([1.0], "float64"), want]
    assert x.grad.tolist() == [1.0]


class IntBool(PyLayer):
    log: list = []

    @staticmethod
    def forward(ctx, x):
        return x * 2, paddle.cast(x, "int64"), x > 1

    @staticmethod
    def backward(ctx, *grads):
        IntBool.log = list(grads)
        return grads[0]


@pytest.mark.parametrize("path", PATHS)
def test_int_and_bool_outputs_do_not_cut_the_float_gradient(path):
    x = leaf([1.0, 2.0])
    y, i, b = IntBool.apply(x)
    assert (y.stop_gradient, i.stop_gradient, b.stop_gradient) == (False, True, True)
    backward(y.sum(), path)
    # Paddle: int and bool zeros for them; (their stop_gradient is False there: M.62)
    assert grads_seen(IntBool.log) == [([1.0, 1.0], "float32"), ([0, 0], "int64"),
                                       ([False, False], "bool")]
    assert x.grad.tolist() == [1.0, 1.0]


class NonDiff(PyLayer):
    calls = 0
    log: list = []

    @staticmethod
    def forward(ctx, x):
        a, b = x + x, x + x + x
        ctx.mark_non_differentiable(a)
        return a, b

    @staticmethod
    def backward(ctx, ga, gb):
        NonDiff.calls += 1
        NonDiff.log = [ga, gb]
        return gb


@pytest.mark.parametrize("path", PATHS)
def test_mark_non_differentiable(path):
    NonDiff.calls = 0
    x = leaf([1.0], "float64")
    a, b = NonDiff.apply(x)
    assert a.stop_gradient is True and b.stop_gradient is False
    backward(a.sum(), path)                 # nothing to differentiate: a silent no-op
    assert NonDiff.calls == 0 and x.grad is None
    backward(b.sum(), path)
    assert grads_seen(NonDiff.log) == [([0.0], "float64"), ([1.0], "float64")]
    assert x.grad.tolist() == [1.0]


# ---- which arguments are inputs, and what backward returns ------------------------------------

class KwList(PyLayer):
    @staticmethod
    def forward(ctx, a, b=None, lst=None):
        return a * 2 + b * 3 + lst[0] * 4 + lst[1] * 5

    @staticmethod
    def backward(ctx, g):
        return g * 2, g * 3, [g * 4, g * 5]


class KwOrder(PyLayer):
    @staticmethod
    def forward(ctx, a, b):
        return a * 2 + b * 3

    @staticmethod
    def backward(ctx, g):
        return g * 2, g * 3


@pytest.mark.parametrize("path", PATHS)
def test_tensors_by_keyword_and_in_lists_are_differentiated(path):
    a, b, c, d = (leaf([1.0]) for _ in range(4))
    backward(KwList.apply(a, b=b, lst=[c, d]).sum(), path)
    assert [t.grad.tolist() for t in (a, b, c, d)] == [[2.0], [3.0], [4.0], [5.0]]
    # the gradients follow the order apply got the arguments in, not forward's signature
    a, b = leaf([1.0]), leaf([1.0])
    backward(KwOrder.apply(b=b, a=a).sum(), path)
    assert (a.grad.tolist(), b.grad.tolist()) == ([3.0], [2.0])


def test_a_tensor_in_a_dict_is_not_an_input():
    class InDict(PyLayer):
        @staticmethod
        def forward(ctx, d):
            return d["a"] * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    a = leaf([1.0])
    y = InDict.apply({"a": a})
    assert y.stop_gradient is True


def _layer(ret):
    class P(PyLayer):
        @staticmethod
        def forward(ctx, *xs):
            return sum(x * (k + 2) for k, x in enumerate(xs))

        @staticmethod
        def backward(ctx, g):
            return ret(g)
    return P


@pytest.mark.parametrize("path", PATHS)
def test_backward_may_leave_out_trailing_inputs_that_need_no_gradient(path):
    a, c = leaf([1.0]), TT([1.0])
    backward(_layer(lambda g: g * 7).apply(a, c).sum(), path)
    assert a.grad.tolist() == [7.0] and c.grad is None
    a, b = leaf([1.0]), leaf([1.0])
    with pytest.raises(ValueError, match="input 1 needs one"):
        backward(_layer(lambda g: g * 7).apply(a, b).sum(), path)


@pytest.mark.parametrize("ret", [lambda g: (g, g, g), lambda g: 1, lambda g: (g, 1),
                                 lambda g: (g, np.ones(1, "float32"))])
def test_bad_backward_results_raise_value_error(ret):
    a, b = leaf([1.0]), leaf([1.0])
    with pytest.raises(ValueError):         # Paddle: ValueError
        _layer(ret).apply(a, b).sum().backward()


def test_a_non_tensor_gradient_is_a_type_error_too():
    a, b = leaf([1.0]), leaf([1.0])
    with pytest.raises(TypeError, match="got int for input 1"):
        _layer(lambda g: (g, 1)).apply(a, b).sum().backward()


@pytest.mark.parametrize("result", [None, 1, (1, None)])
def test_forward_returning_no_tensor_raises_value_error(result):
    class NoTensor(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return result

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(ValueError, match="must return a Tensor"):
        NoTensor.apply(leaf([1.0]))
    with pytest.raises(errors.OutputTypeError):
        NoTensor.apply(leaf([1.0]))


def test_forward_returning_a_list_holding_one_tensor_is_fine():
    class Listed(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return [None, x * 2, 3]

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = leaf([1.0])
    out = Listed.apply(x)
    assert isinstance(out, list) and out[0] is None and out[2] == 3
    out[1].sum().backward()
    assert x.grad.tolist() == [2.0]


@pytest.mark.parametrize("path", PATHS)
def test_the_same_tensor_passed_twice_gets_both_gradients(path):
    x = leaf([0.5, -1.0], "float64")
    backward(_layer(lambda g: (g * 7, g * 10)).apply(x, x).sum(), path)
    assert x.grad.tolist() == [17.0, 17.0]


def test_an_error_inside_backward_names_the_layer_and_keeps_its_type():
    class Broken(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("shapes do not match")

    with pytest.raises(ValueError, match="Error message in backward of PyLayer .*Broken: "
                                         "shapes do not match"):
        Broken.apply(leaf([1.0])).sum().backward()


# ---- an input returned as an output is changed in place --------------------------------------

class Same(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 3


@pytest.mark.parametrize("path", PATHS)
def test_returning_a_non_leaf_input_changes_it_in_place(path):
    x = leaf([1.0, 2.0])
    y = x * 2
    z = Same.apply(y)
    assert z is y and y.inplace_version == 1 and y._node.op.name == "same"
    backward((z * z).sum(), path)
    assert x.grad.tolist() == [24.0, 48.0]          # 2 * z * 3 * 2


@pytest.mark.parametrize("path", PATHS)
def test_a_backward_through_an_op_that_read_the_old_value_raises(path):
    x = leaf([1.0, 2.0], "float64")
    b = x ** 2
    c = b ** 2                      # pow reads b
    Same.apply(b)
    with pytest.raises(RuntimeError, match="received tensor_version:1 != "
                                           "wrapper_version_snapshot:0"):
        backward(paddle.nn.functional.relu(c).sum(), path)


def test_returning_a_leaf_that_needs_a_gradient_raises_value_error():
    with pytest.raises(ValueError, match="can't use inplace strategy"):
        Same.apply(leaf([1.0]))
    y = Same.apply(TT([1.0]))               # nothing recorded: returned as it is
    assert y.stop_gradient is True


@pytest.mark.parametrize("path", PATHS)
def test_an_in_place_output_among_several(path):
    class Pair(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x, x * 5

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + 5 * g2

    x = leaf([1.0, 2.0])
    y = x * 1
    a, b = Pair.apply(y)
    assert a is y and y.inplace_version == 1
    backward((a * 2 + b).sum(), path)
    assert x.grad.tolist() == [7.0, 7.0]


# ---- ctx.set_grad_in_dtype_consistent ---------------------------------------------------------

def test_gradient_dtype_as_it_arrives_when_not_kept_consistent():
    seen = {}

    def layer(consistent):
        class Up(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.set_grad_in_dtype_consistent(consistent)
                return paddle.tanh(x)

            @staticmethod
            def backward(ctx, g):
                seen[consistent] = g.dtype.name
                return g.astype("float32")
        return Up

    class Down(PyLayer):                    # returns its input's gradient as float64
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 2).astype("float64")

    for consistent in (True, False):
        x = leaf([0.5, 1.0])
        Down.apply(layer(consistent).apply(x)).sum().backward()
        assert x.grad.dtype.name == "float32" and x.grad.tolist() == [2.0, 2.0]
    assert seen == {True: "float32", False: "float64"}


def test_function_is_pylayer():
    assert paddle.autograd.Function is paddle.autograd.PyLayer


def test_a_pylayer_graph_is_never_cached(fresh_cache):
    x = leaf([1.0, 2.0])
    for _ in range(3):
        (Same.apply(x * 2) * x).sum().backward()
    info = paddle.cache_info()
    assert info.programs == 0 and info.uncacheable == 3
    assert x.grad.tolist() == [24.0, 48.0]          # per step 3 * 2x + 2x


# ---- a backward returning another dtype than its input's (deliberate difference) -----------

class F64Grad(PyLayer):
    """Returns its float32 input's gradient as float64."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return (g * 3).astype("float64")


@pytest.mark.parametrize("path", PATHS)
def test_a_float64_gradient_for_a_float32_input_is_cast_to_float32(path):
    # Paddle 3.3.1: a parameter gets float32 [3, 3] (cast); another leaf keeps float64 in its
    # .grad, and adding a float32 gradient reads those float64 bytes as float32 ([5.0,
    # 7.125] for [8, 8] below; 3.9e180 the other way round). torch casts, as jitgrad does.
    x = leaf([1.0, 2.0])
    backward(F64Grad.apply(x).sum() + (x * 5).sum(), path)
    assert x.grad.dtype.name == "float32" and x.grad.tolist() == [8.0, 8.0]
    w = paddle.nn.Linear(2, 1).weight
    backward(F64Grad.apply(w).sum(), path)
    assert w.grad.dtype.name == "float32" and w.grad.numpy().ravel().tolist() == [3.0, 3.0]


def test_paddle_grad_of_a_float64_gradient_for_a_float32_input_is_float32():
    # (Paddle 3.3.1's paddle.grad returns it as float64; torch.autograd.grad as float32)
    x = leaf([1.0, 2.0])
    (g,) = paddle.grad(F64Grad.apply(x).sum(), [x])
    assert g.dtype.name == "float32" and g.tolist() == [3.0, 3.0]
    y = leaf([1.0, 2.0])
    (h,) = paddle.grad(F64Grad.apply(paddle.tanh(y)).sum(), [y])   # through an op
    np.testing.assert_allclose(h.numpy(), 3 * (1 - np.tanh([1.0, 2.0]) ** 2), rtol=1e-6)
    assert h.dtype.name == "float32"


@pytest.mark.parametrize("path", PATHS)
def test_an_integer_gradient_for_a_float_input_is_cast(path):
    # (Paddle 3.3.1 leaves an int64 .grad on a float32 leaf; torch casts)
    class IntGrad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return TT(np.array([1, 2], "int64"))

    x = leaf([1.0, 2.0])
    backward(IntGrad.apply(x).sum(), path)
    assert x.grad.dtype.name == "float32" and x.grad.tolist() == [1.0, 2.0]
