"""Paddle 3.3.1 names added from its namespace list (ops/bitwise.py, inplace_more.py,
more_indexing.py, sampling.py, creation.py): values measured on Paddle 3.3.1, gradients
against closed forms or finite differences."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

TT = paddle.to_tensor


def leaf(values):
    return TT(np.asarray(values, "float32"), stop_gradient=False)


# ---- bitwise --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8"])
def test_shifts_and_not_as_paddle(dtype):
    x = TT(np.array([-8, 5, 127, 0]).astype(dtype))
    y = TT(np.array([1, 2, 1, 3]).astype(dtype))
    want = {  # Paddle 3.3.1: left, right, logical right, not
        "int8": ([-16, 20, -2, 0], [-4, 1, 63, 0], [124, 1, 63, 0], [7, -6, -128, -1]),
        "int32": ([-16, 20, 254, 0], [-4, 1, 63, 0], [2147483644, 1, 63, 0], [7, -6, -128, -1]),
        "int64": ([-16, 20, 254, 0], [-4, 1, 63, 0], [9223372036854775804, 1, 63, 0],
                  [7, -6, -128, -1]),
        "uint8": ([240, 20, 254, 0], [124, 1, 63, 0], [124, 1, 63, 0], [7, 250, 128, 255]),
    }[dtype]
    assert paddle.bitwise_left_shift(x, y).tolist() == want[0]
    assert paddle.bitwise_right_shift(x, y).tolist() == want[1]
    assert paddle.bitwise_right_shift(x, y, is_arithmetic=False).tolist() == want[2]
    assert paddle.bitwise_not(x).tolist() == want[3] == paddle.bitwise_invert(x).tolist()


def test_bitwise_not_of_bool_is_logical_not_and_floats_are_refused():
    assert paddle.bitwise_not(TT([True, False])).tolist() == [False, True]
    with pytest.raises(TypeError, match="integer"):
        paddle.bitwise_not(TT([1.0]))
    with pytest.raises(ValueError, match="must not be negative"):
        paddle.bitwise_left_shift(TT([1]), TT([-1]))


# ---- in-place forms that change shape or dtype ------------------------------------------------

def test_comparisons_in_place_make_x_bool():
    x = TT([1.0, 2.0, 3.0])
    assert x.equal_(TT([1.0, 0.0, 3.0])) is x
    assert x.dtype == paddle.bool and x.tolist() == [True, False, True]
    n = TT([1, 2, 3])
    n.less_than_(TT([2, 2, 2]))
    assert n.tolist() == [True, False, False]
    f = TT([1.0, 0.0])
    f.logical_not_()
    assert f.dtype == paddle.bool and f.tolist() == [False, True]


@pytest.mark.parametrize("name, args, shape", [
    ("squeeze_", (), [2]), ("unsqueeze_", (0,), [1, 1, 2]), ("reshape_", ([2, 1],), [2, 1]),
    ("flatten_", (), [2]), ("t_", (), [2, 1]), ("transpose_", ([1, 0],), [2, 1]),
])
def test_shape_changing_in_place_forms(name, args, shape):
    x = TT([[1.0, 2.0]])
    assert getattr(x, name)(*args) is x and x.shape == shape


def test_an_in_place_shape_change_of_a_non_leaf_is_differentiated():
    x = leaf([1.0, 2.0])
    y = x * 1
    y.unsqueeze_(0)
    assert y.shape == [1, 2]
    (y * y).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]            # Paddle 3.3.1


def test_cast_in_place_keeps_the_graph():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    assert y.cast_("float64") is y and y.dtype == paddle.float64
    (y * y).sum().backward()
    assert x.grad.tolist() == [[2.0, 4.0], [6.0, 8.0]] and x.grad.dtype == paddle.float32


def test_a_comparison_in_place_makes_a_non_leaf_a_constant():
    x = leaf([1.0, 2.0])
    y = x * 2
    z = y * 3.0                     # reads no value of y: its gradient still runs
    y.equal_(TT([2.0, 0.0]))
    assert y.stop_gradient and y.tolist() == [True, False]
    z.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_where_and_increment_in_place():
    x = TT([1.0, 2.0, 3.0])
    assert paddle.where_(TT([True, False, True]), x, TT([9.0, 9.0, 9.0])) is x
    assert x.tolist() == [1.0, 9.0, 3.0]
    c = TT([1.0])
    assert paddle.increment(c, 2.0) is c and c.tolist() == [3.0]


def test_same_shape_in_place_forms_of_later_ops():
    x = TT([12, 18])
    x.gcd_(TT([8, 12]))
    assert x.tolist() == [4, 6]
    y = TT([1.0, 2.0])
    y.copysign_(TT([-1.0, 1.0]))
    assert y.tolist() == [-1.0, 2.0]


# ---- random fills -----------------------------------------------------------------------------

def test_random_fills_keep_shape_and_dtype_and_their_range():
    paddle.seed(3)
    x = TT(np.zeros((200, 50), "float32"))
    x.uniform_(2.0, 3.0)
    assert x.dtype == paddle.float32 and 2.0 <= x.numpy().min() and x.numpy().max() < 3.0
    x.normal_(1.0, 0.5)
    assert abs(x.numpy().mean() - 1.0) < 0.02 and abs(x.numpy().std() - 0.5) < 0.02
    x.bernoulli_(0.25)
    assert set(np.unique(x.numpy())) <= {0.0, 1.0} and abs(x.numpy().mean() - 0.25) < 0.02
    x.exponential_(2.0)
    assert x.numpy().min() >= 0 and abs(x.numpy().mean() - 0.5) < 0.02
    x.random_(0, 5)
    assert set(np.unique(x.numpy())) == {0.0, 1.0, 2.0, 3.0, 4.0}
    x.geometric_(0.5)
    assert x.numpy().min() >= 1
    with pytest.raises(ValueError, match="p must be in"):
        x.bernoulli_(1.5)


def test_a_random_fill_of_a_leaf_needing_grad_is_refused_in_grad_mode():
    w = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="cannot be changed in place"):
        w.normal_()
    with paddle.no_grad():
        w.normal_()
    assert not w.stop_gradient


def test_rng_state_round_trips():
    state = paddle.get_rng_state()
    a = paddle.rand([3]).tolist()
    paddle.set_rng_state(state)
    assert paddle.rand([3]).tolist() == a


# ---- samplers ---------------------------------------------------------------------------------

def test_samplers_draw_with_the_given_parameters():
    paddle.seed(4)
    b = paddle.bernoulli(TT(np.full(20000, 0.3, "float32")))
    assert b.dtype == paddle.float32 and abs(b.numpy().mean() - 0.3) < 0.02
    n = paddle.binomial(TT(np.full(5000, 10)), TT(np.full(5000, 0.5, "float32")))
    assert n.dtype == paddle.int64 and abs(n.numpy().mean() - 5.0) < 0.1
    p = paddle.poisson(TT(np.full(5000, 4.0, "float32")))
    assert abs(p.numpy().mean() - 4.0) < 0.15
    g = paddle.standard_gamma(TT(np.full(5000, 2.0, "float32")))
    assert abs(g.numpy().mean() - 2.0) < 0.1
    m = paddle.multinomial(TT([0.2, 0.0, 0.8]), 2)
    assert sorted(m.tolist()) == [0, 2]                 # without replacement: both positive
    r = paddle.multinomial(TT([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), 4, replacement=True)
    assert r.shape == [2, 4] and set(r.numpy()[0]) <= {0, 1} and r.tolist()[1] == [2] * 4
    with pytest.raises(ValueError, match="distinct categories"):
        paddle.multinomial(TT([0.2, 0.0, 0.8]), 3)
    ln = paddle.log_normal(TT(np.zeros(20000, "float32")), 0.1)
    assert abs(np.log(ln.numpy()).std() - 0.1) < 0.005


# ---- gathers and scatters ---------------------------------------------------------------------

@pytest.mark.parametrize("reduce, include_self, out, d_input, d_src", [   # Paddle 3.3.1
    ("sum", True, [13, 16, 3, 4], [1, 2, 3, 4], [1, 2, 1, 2]),
    ("sum", False, [12, 14, 3, 4], [0, 0, 3, 4], [1, 2, 1, 2]),
    ("prod", True, [35, 96, 3, 4], [35, 96, 3, 4], [7, 32, 5, 24]),
    ("prod", False, [35, 48, 3, 4], [0, 0, 3, 4], [7, 16, 5, 12]),
    ("mean", False, [6, 7, 3, 4], [0, 0, 3, 4], [0.5, 1, 0.5, 1]),
    ("amax", True, [7, 8, 3, 4], [0, 0, 3, 4], [0, 0, 1, 2]),
    ("amin", True, [1, 2, 3, 4], [1, 2, 3, 4], [0, 0, 0, 0]),
    ("amin", False, [5, 6, 3, 4], [0, 0, 3, 4], [1, 2, 0, 0]),
])
def test_scatter_reduce_values_and_gradients(reduce, include_self, out, d_input, d_src):
    x, src = leaf([1.0, 2.0, 3.0, 4.0]), leaf([5.0, 6.0, 7.0, 8.0])
    r = paddle.scatter_reduce(x, 0, TT([0, 1, 0, 1]), src, reduce, include_self=include_self)
    assert r.tolist() == out
    (r * TT([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == d_input and src.grad.tolist() == d_src


def test_scatter_reduce_mean_with_self_and_finite_differences():
    x = paddle.scatter_reduce(leaf([1.0, 2.0, 3.0, 4.0]), 0, TT([0, 1, 0, 1]),
                              leaf([5.0, 6.0, 7.0, 8.0]), "mean")
    np.testing.assert_allclose(x.numpy(), [13 / 3, 16 / 3, 3, 4], rtol=1e-6)
    idx = TT(np.array([[0, 1, 0], [2, 2, 1]]))
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        check_grads(lambda a, s: paddle.scatter_reduce(a, 1, idx, s, reduce),
                    np.array([[0.5, 1.5, -1.0], [2.0, 0.7, 1.2]]),
                    np.array([[0.3, -0.4, 0.9], [1.1, -0.6, 0.8]]))


def test_scatter_nd_argwhere_multiplex_and_shard_index():
    got = paddle.scatter_nd(TT([[1], [2], [1]]), TT([1.0, 2.0, 3.0]), [4])
    assert got.tolist() == [0.0, 4.0, 2.0, 0.0]                 # Paddle 3.3.1
    assert paddle.argwhere(TT([[1.0, 0.0], [0.0, 3.0]])).tolist() == [[0, 0], [1, 1]]
    a, b = leaf([[1.0, 2.0], [3.0, 4.0]]), leaf([[5.0, 6.0], [7.0, 8.0]])
    m = paddle.multiplex([a, b], TT(np.array([[1], [0]], "int32")))
    assert m.tolist() == [[5.0, 6.0], [3.0, 4.0]]
    m.sum().backward()
    assert a.grad.tolist() == [[0, 0], [1, 1]] and b.grad.tolist() == [[1, 1], [0, 0]]
    ids = TT([[16], [1]])
    assert paddle.shard_index(ids, 20, 2, 0).tolist() == [[-1], [1]]
    assert paddle.shard_index(ids, 20, 2, 1).tolist() == [[6], [-1]]


def test_unfold_takes_windows_along_an_axis():
    x = np.arange(8, dtype="float32")
    assert TT(x).unfold(0, 3, 2).tolist() == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]   # Paddle
    assert paddle.unfold(TT(x.reshape(2, 4)), 1, 2, 1).shape == [2, 3, 2]
    check_grads(lambda t: paddle.unfold(t, 1, 2, 1) ** 2, np.arange(8.0).reshape(2, 4) / 4)
    with pytest.raises(ValueError, match="size"):
        TT(x).unfold(0, 9, 1)


def test_fill_diagonal_in_place_and_fill_diagonal_tensor():
    x = TT(np.zeros((3, 4), "float32"))
    x.fill_diagonal_(5.0, offset=1)
    assert x.tolist() == [[0, 5, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]          # Paddle 3.3.1
    tall = TT(np.zeros((5, 2), "float32"))
    tall.fill_diagonal_(5.0, wrap=True)
    assert tall.tolist() == [[5, 0], [0, 5], [0, 0], [5, 0], [0, 5]]
    a, y = leaf(np.zeros((2, 3))), leaf([1.0, 2.0])
    r = paddle.fill_diagonal_tensor(a, y)
    assert r.tolist() == [[1, 0, 0], [0, 2, 0]]
    (r * r).sum().backward()
    assert a.grad.tolist() == [[0, 0, 0], [0, 0, 0]] and y.grad.tolist() == [2.0, 4.0]


def test_range_includes_its_end_and_broadcast_shapes():
    assert paddle.range(0, 3).tolist() == [0.0, 1.0, 2.0, 3.0]                 # Paddle 3.3.1
    assert paddle.range(0, 3).dtype == paddle.float32
    assert paddle.range(1, 2, 0.5).tolist() == [1.0, 1.5, 2.0]
    assert paddle.broadcast_shapes([2, 1], [1, 3], [4, 1, 1]) == [4, 2, 3]
    with pytest.raises(ValueError, match="do not broadcast"):
        paddle.broadcast_shapes([2], [3])


def test_torch_style_dtype_aliases():
    assert paddle.float is paddle.float32 and paddle.double is paddle.float64
    assert paddle.half is paddle.float16


# ---- special functions ------------------------------------------------------------------------

def test_bessel_functions_against_closed_values():
    x = np.array([0.0, 0.7, 2.0, 16.0, -3.0])
    np.testing.assert_allclose(paddle.i0(TT(x)).numpy(), np.i0(x), rtol=1e-13)
    # i1 from numpy's i0 by the identity I1 = I0' (central differences, step 1e-5)
    h = 1e-5
    np.testing.assert_allclose(paddle.i1(TT(x)).numpy(), (np.i0(x + h) - np.i0(x - h)) / (2 * h),
                               rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(paddle.i0e(TT(x)).numpy(), np.i0(x) * np.exp(-np.abs(x)),
                               rtol=1e-13)
    assert paddle.i0(TT([0.0, 1.0])).dtype == paddle.float32
    np.testing.assert_allclose(paddle.i0(TT([0.0, 1.0, 2.0])).numpy(),
                               [1.0, 1.266066, 2.2795851], rtol=1e-6)      # Paddle 3.3.1
    assert paddle.i0e(TT([1e4])).numpy()[0] > 0 and np.isinf(paddle.i0(TT([1e4])).numpy()[0])


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_bessel_gradients_to_second_order(name):
    f = getattr(paddle, name)
    check_grads(f, np.array([-2.5, -0.4, 0.3, 1.7, 3.0]), order=2)
    x = leaf([0.0])
    f(x).backward()
    assert x.grad.tolist() == [{"i0": 0.0, "i0e": 0.0, "i1": 0.5, "i1e": 0.5}[name]]


def test_incomplete_gamma_values_and_the_gradient_in_y_only():
    a = np.array([0.5, 1.0, 2.0, 5.0, 100.0])
    x = np.array([0.5, 0.01, 3.0, 4.0, 95.0])
    want = [0.6826894921370859, 0.009950166250831893, 0.8008517265285442,
            0.3711630648201266, 0.31735681100512636]                     # torch, float64
    np.testing.assert_allclose(paddle.gammainc(TT(a), TT(x)).numpy(), want, rtol=1e-9)
    np.testing.assert_allclose(paddle.gammaincc(TT(a), TT(x)).numpy(), 1 - np.array(want),
                               rtol=1e-9)
    check_grads(lambda y: paddle.gammainc(TT(a[:4]), y), x[:4], order=2)
    check_grads(lambda y: paddle.gammaincc(TT(a[:4]), y), x[:4])
    s, y = leaf([2.0]), leaf([1.0])
    paddle.gammainc(s, y).backward()
    assert s.grad is None and y.grad.numpy()[0] == pytest.approx(np.exp(-1.0), rel=1e-6)
    edges = paddle.gammainc(TT([0.0, 1.0, 2.0]), TT([1.0, np.inf, 0.0]))
    assert edges.tolist() == [1.0, 1.0, 0.0]        # torch's (Paddle 3.3.1: 0, nan, 0)
    with pytest.raises(ValueError, match=">= 0"):
        paddle.gammainc(TT([-1.0]), TT([1.0]))


# ---- Tensor methods that are not ops ----------------------------------------------------------

def test_casts_by_dtype_name():
    x = leaf([[1.5, 2.0, -3.0]])
    assert x.byte().tolist() == [[1, 2, 253]] and x.byte().dtype == paddle.uint8   # Paddle
    assert x.char().dtype == paddle.int8 and x.short().dtype == paddle.int16
    assert x.int64().tolist() == [[1, 2, -3]]
    y = x.float64()
    assert y.dtype == paddle.float64 and not y.stop_gradient
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0]]


def test_descriptive_attributes_of_a_cpu_dense_tensor():
    x = leaf(np.zeros((2, 3)))
    assert (x.device, x.is_cuda, x.layout, x.offset) == ("cpu", False, "NCHW", 0)
    assert x.strides == x.get_strides() == x.stride() == [3, 1]
    assert x.is_dense() and not x.is_sparse() and not x.is_sparse_coo()
    assert not x.is_complex() and not x.is_integer() and not x.is_empty().item()
    assert x.is_same_shape(paddle.zeros([2, 3])) and not x.is_same_shape(paddle.zeros([3]))
    assert x.get_device() == -1 and isinstance(x.data_ptr(), int)
    # a leaf that needs a gradient has Paddle's accumulation node (measured on 3.3.1)
    assert x.grad_fn.name() == "GradNodeAccumulation"
    assert (x * 2).grad_fn.name() == "MultiplyGradNode"
    assert x.detach().grad_fn is None


def test_apply_refuses_a_tensor_that_needs_grad():
    z = TT([1.0, 2.0])
    assert z.apply(lambda t: t * 3).tolist() == [3.0, 6.0] and z.tolist() == [1.0, 2.0]
    assert z.apply_(lambda t: t * 3) is z and z.tolist() == [3.0, 6.0]
    with pytest.raises(RuntimeError, match="required gradient"):
        leaf([1.0]).apply(lambda t: t)


def test_split_with_sizes():
    parts = TT(np.arange(6.0)).split_with_sizes([2, 4])
    assert [p.tolist() for p in parts] == [[0, 1], [2, 3, 4, 5]]
    with pytest.raises(ValueError, match="add up"):
        TT(np.arange(6.0)).split_with_sizes([2, 3])


@pytest.mark.parametrize("reduce, include_self, out, d_input, d_src", [   # Paddle 3.3.1
    ("amax", True, [5, 2.5, 3], [0, 2, 3], [0, 1, 0, 0]),
    ("amax", False, [np.nan, 2, 3], [0, 0, 3], [0, 0, 0, 2]),
    ("amin", True, [1, 0.5, 3], [1, 0, 3], [0, 0, 2, 0]),
    ("amin", False, [np.nan, 0.5, 3], [0, 0, 3], [0, 0, 2, 0]),
])
def test_scatter_reduce_extremes_skip_a_nan_sent_and_keep_a_nan_start(reduce, include_self,
                                                                       out, d_input, d_src):
    x, src = leaf([1.0, 2.5, 3.0]), leaf([np.nan, 5.0, 0.5, 2.0])
    r = paddle.scatter_reduce(x, 0, TT([0, 0, 1, 1]), src, reduce, include_self=include_self)
    np.testing.assert_array_equal(r.numpy(), np.array(out, "float32"))
    (r * TT([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == d_input and src.grad.tolist() == d_src


def test_scatter_reduce_without_self_gives_a_tied_winner_the_whole_gradient():
    # Paddle 3.3.1 gives 0.5: it counts the left-out own value 2.0 as a tied winner
    x, src = leaf([2.0]), leaf([1.0, 2.0])
    r = paddle.scatter_reduce(x, 0, TT([0, 0]), src, "amax", include_self=False)
    r.sum().backward()
    assert x.grad.tolist() == [0.0] and src.grad.tolist() == [0.0, 1.0]


def test_scatter_reduce_extremes_of_ints_without_self():
    r = paddle.scatter_reduce(TT([7, 7]), 0, TT([0, 0]), TT([3, 5]), "amax", include_self=False)
    assert r.tolist() == [5, 7]


def test_scatter_reduce_extremes_are_exact_share_ties_and_handle_infinities():
    x, src = leaf([5.0, 2.0, 3.0]), leaf([5.0, 5.0, 1.0, 2.0])
    r = paddle.scatter_reduce(x, 0, TT([0, 0, 1, 1]), src, "amax")
    assert r.tolist() == [5.0, 2.0, 3.0]
    r.sum().backward()                      # three tied 5s share, two tied 2s share
    assert x.grad.tolist() == pytest.approx([1 / 3, 0.5, 1.0])
    assert src.grad.tolist() == pytest.approx([1 / 3, 1 / 3, 0.0, 0.5])
    third = np.float32(1) / np.float32(3)
    y = paddle.scatter_reduce(TT([third] * 3), 0, TT([0, 0, 0]), TT([third] * 3), "amin")
    assert y.numpy()[0] == third            # the value itself, not a weighted sum of it
    inf = paddle.scatter_reduce(TT([1.0, np.inf]), 0, TT([1, 0]), TT([-np.inf, 2.0]), "amax")
    assert inf.tolist() == [2.0, np.inf]
