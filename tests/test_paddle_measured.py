"""Behaviours measured on Paddle 3.3.1 by a differential sweep (the same calls in both
libraries, values, dtypes, shapes and gradients compared), pinned here with Paddle's exact
outputs. Each test names what jitgrad got wrong before the sweep."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def test_moveaxis_moves_to_a_negative_destination():
    # was: the permutation came from np.moveaxis of a 1-D range, a no-op for (0, -1)
    x = TT(np.arange(24, dtype="float32").reshape(2, 3, 4))
    assert paddle.moveaxis(x, 0, -1).shape == [3, 4, 2]
    assert paddle.moveaxis(x, [0, 1], [-1, -2]).shape == [4, 3, 2]
    np.testing.assert_array_equal(paddle.moveaxis(x, -1, 0).numpy(),
                                  np.moveaxis(x.numpy(), -1, 0))
    with pytest.raises(ValueError, match="as many dims"):
        paddle.moveaxis(x, [0, 1], 2)


def test_nonzero_as_tuple_gives_1d_index_tensors():
    rows, cols = paddle.nonzero(TT([[0.0, 1.0], [2.0, 0.0]]), as_tuple=True)
    assert rows.shape == [2] and rows.tolist() == [0, 1] and cols.tolist() == [1, 0]


def test_full_with_an_int_fill_value_is_float32():
    assert paddle.full([2], 3).dtype == paddle.float32
    assert paddle.full([2], True).dtype == paddle.bool
    assert paddle.full([2], 3, dtype="int64").dtype == paddle.int64


def test_sign_gradient_is_zeros():
    x = TT([[1.0, -2.0, 0.0]], stop_gradient=False)
    y = paddle.sign(x)
    assert not y.stop_gradient
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0]]


def test_heaviside_gradient_goes_to_y_where_x_is_zero():
    x = TT([[1.0, -2.0, 0.0], [0.5, 0.0, 3.0]], stop_gradient=False)
    y = TT([0.3, 0.6, 0.9], stop_gradient=False)
    out = paddle.heaviside(x, y)
    np.testing.assert_allclose(out.numpy(), [[1, 0, 0.9], [1, 0.6, 1]], rtol=1e-7)
    out.sum().backward()
    assert x.grad.tolist() == [[0.0] * 3] * 2
    assert y.grad.tolist() == [0.0, 1.0, 1.0]


def test_reshape_method_takes_the_shape_as_varargs():
    x = TT(np.arange(6, dtype="float32"))
    assert x.reshape(3, 2).shape == [3, 2]
    assert x.reshape([2, 3]).shape == [2, 3]
    assert x.reshape(shape=[6]).shape == [6]


def test_bool_and_int_operators():
    x = TT([0.0, 1.0, 2.0, 3.0])
    assert ((x > 0) & (x < 3)).tolist() == [False, True, True, False]
    assert ((x < 1) | (x > 2)).tolist() == [True, False, False, True]
    assert ((x > 0) ^ (x > 1)).tolist() == [False, True, False, False]
    assert (~(x > 1)).tolist() == [True, True, False, False]
    i = TT([1, 2, 3])
    assert (i & TT([3, 3, 3])).tolist() == [1, 2, 3]
    assert (~i).tolist() == [-2, -3, -4]
    with pytest.raises(TypeError, match="bool or integer"):
        x & x


def test_loss_targets_carry_no_gradient_as_in_paddle():
    # was: a teacher's outputs used as targets (distillation) were trained too
    F = paddle.nn.functional
    x = TT([[0.2, -0.4, 1.0]], stop_gradient=False)
    teacher = TT([[0.1, 0.3, 0.6]], stop_gradient=False)
    losses = [F.kl_div(F.log_softmax(x), teacher),
              F.cross_entropy(x, teacher, soft_label=True),
              F.binary_cross_entropy(F.sigmoid(x), teacher),
              F.binary_cross_entropy_with_logits(x, teacher, pos_weight=teacher)]
    for loss in losses:
        loss.backward()
    assert teacher.grad is None
    assert x.grad is not None


def _grads_on_every_path(fn, *arrays):
    """fn's input gradients (output seeded with ones) on a first sighting (interpreted), a
    recurring structure (lowered), a cache hit, and create_graph's recorded rules: all
    equal."""
    seen = []
    for create_graph in (False, False, False, True):
        ts = [TT(a, stop_gradient=False) for a in arrays]
        out = fn(*ts)
        out.backward(paddle.ones_like(out), create_graph=create_graph)
        seen.append([t.grad.numpy() for t in ts])
    for other in seen[1:]:
        for a, b in zip(seen[0], other):
            np.testing.assert_array_equal(a, b)
    return seen[0]


def test_pow_gradients_at_negative_and_zero_bases():
    # was: both partials 0 wherever x <= 0 (dx -4 at x = -2, y = 2 came out 0)
    x = np.array([-2.0, -2.0, -2.0, 0.0, 0.0, 0.0, 0.0, 2.0], "float32")
    y = np.array([2.0, 2.5, 0.0, 0.0, 0.5, -1.0, 2.0, 0.5], "float32")
    dx, dy = _grads_on_every_path(paddle.pow, x, y)
    np.testing.assert_array_equal(
        dx, np.array([-4.0, np.nan, 0.0, 0.0, np.inf, -np.inf, 0.0, 0.35355338], "float32"))  # Paddle 3.3.1
    np.testing.assert_array_equal(
        dy, np.array([np.nan, np.nan, np.nan, 0.0, 0.0, -np.inf, 0.0, 0.9802581], "float32"))


def test_logit_gradient_is_inf_at_the_ends_and_nan_outside():
    # was: nan at 0 and 1 and finite values outside [0, 1] (the composite log(x / (1 - x)))
    x = np.array([0.0, 1.0, 2.0, -0.5, 0.5], "float32")
    (g,) = _grads_on_every_path(paddle.logit, x)
    np.testing.assert_array_equal(g, [np.inf, np.inf, np.nan, np.nan, 4.0])
    (g,) = _grads_on_every_path(lambda t: paddle.logit(t, eps=0.0), x)   # 0: no clipping
    np.testing.assert_array_equal(g, [np.inf, np.inf, np.nan, np.nan, 4.0])
    (g,) = _grads_on_every_path(lambda t: paddle.logit(t, eps=1e-6), x)
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.0, 0.0, 4.0])


def test_maximum_and_minimum_give_no_gradient_to_either_side_of_a_nan():
    # was: y got the whole gradient (1 - x's share) where either operand was nan
    x = np.array([np.nan, 1.0, np.nan, 2.0, 2.0], "float32")
    y = np.array([1.0, np.nan, np.nan, 2.0, 3.0], "float32")
    dx, dy = _grads_on_every_path(paddle.maximum, x, y)
    assert dx.tolist() == [0.0, 0.0, 0.0, 0.5, 0.0] and dy.tolist() == [0.0, 0.0, 0.0, 0.5, 1.0]
    dx, dy = _grads_on_every_path(paddle.minimum, x, y)
    assert dx.tolist() == [0.0, 0.0, 0.0, 0.5, 1.0] and dy.tolist() == [0.0, 0.0, 0.0, 0.5, 0.0]


@pytest.mark.parametrize("make, slope", [(lambda y: y * 2.0, 2.0), (lambda y: y / 2.0, 0.5),
                                         (lambda y: paddle.scale(y, 2.0), 2.0)],
                         ids=["times", "divide", "scale"])
def test_changing_y_in_place_after_y_times_a_number_still_differentiates(make, slope):
    # was: a version error, although the gradient reads only the number (Paddle runs it)
    for create_graph in (False, False, False, True):
        x = TT([1.0, 2.0], stop_gradient=False)
        y = x * 1
        z = make(y)
        y.add_(paddle.ones([2]))
        z.sum().backward(create_graph=create_graph)
        assert x.grad.tolist() == [slope, slope]
    w = TT([1.0, 2.0], stop_gradient=False)
    loss = (w * 0.5).sum()
    with paddle.no_grad():
        w.add_(paddle.ones([2]))            # an optimizer-style update before the backward
    loss.backward()
    assert w.grad.tolist() == [0.5, 0.5]


def test_changing_an_input_whose_value_the_gradient_reads_still_raises():
    x = TT([1.0, 2.0], stop_gradient=False)
    y = x * 1
    z = y * y
    y.add_(paddle.ones([2]))
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.sum().backward()


def test_seeds_an_empty_list_int_and_bool_as_paddle():
    # was: an empty list, an int seed and a bool seed raised (Paddle 3.3.1: no seeds, cast)
    y = TT([1.0, 2.0], stop_gradient=False)
    z = y * 2
    for empty in ([], ()):
        y.clear_grad()
        paddle.autograd.backward([z], empty, retain_graph=True)
        assert y.grad.tolist() == [2.0, 2.0]
    y.clear_grad()
    paddle.autograd.backward([z], [TT([1, 3])], retain_graph=True)
    assert y.grad.tolist() == [2.0, 6.0] and y.grad.dtype == paddle.float32
    y.clear_grad()
    z.backward(TT([True, False]), retain_graph=True)
    assert y.grad.tolist() == [2.0, 0.0]
    assert paddle.grad([z], [y], [])[0].tolist() == [2.0, 2.0]


def test_grad_mode_switches_are_in_paddle_autograd_too():
    assert paddle.autograd.no_grad is paddle.no_grad
    assert paddle.autograd.enable_grad is paddle.enable_grad
    assert paddle.autograd.set_grad_enabled is paddle.set_grad_enabled
    assert paddle.autograd.is_grad_enabled() is True


def test_variance_with_no_degree_of_freedom_is_nan():
    # was: 0 (the divisor was clamped to 1); Paddle, numpy and torch give nan
    x = TT(np.array(1.5, "float32"), stop_gradient=False)
    v = paddle.var(x)
    v.backward()
    assert np.isnan(v.item()) and np.isnan(x.grad.item())
    assert np.isnan(paddle.std(TT([1.5])).item())
    assert np.isnan(paddle.var(paddle.ones([2, 1]), axis=1).numpy()).all()
    assert paddle.var(TT([1.0, 3.0])).item() == 2.0


def test_all_and_any_with_an_empty_axis_list_reduce_every_axis():
    # was: the input came back unreduced
    x = TT(np.array([[True, False, True], [True, True, True]]))
    assert paddle.all(x, axis=[]).shape == [] and paddle.all(x, axis=[]).item() is False
    assert paddle.any(x, axis=[], keepdim=True).shape == [1, 1]


def test_integer_floor_divide_by_zero_raises():
    # was: 0 and a numpy warning; Paddle raises, as jitgrad's remainder already did
    a, b = TT(np.array([7, 3], "int64")), TT(np.array([0, 2], "int64"))
    for f in (paddle.floor_divide, lambda p, q: p // q):
        with pytest.raises(ValueError, match="integer division by zero"):
            f(a, b)


def test_binary_cross_entropy_gradient_is_finite_at_zero_and_one():
    # was: nan on the first (interpreted) backward, 0 on the compiled ones; soft labels had
    # the wrong sign. Paddle's rule: (p - y) / max(p (1 - p), 1e-12)
    p = np.array([0.0, 1.0, 0.5, 0.0, 1.0], "float32")
    y = np.array([1.0, 0.0, 1.0, 0.5, 0.5], "float32")
    bce = paddle.nn.functional.binary_cross_entropy
    (g,) = _grads_on_every_path(lambda t: bce(t, TT(y), reduction="none"), p)
    np.testing.assert_array_equal(g, np.array([-1e12, 1e12, -2.0, -5e11, 5e11], "float32"))
    (g,) = _grads_on_every_path(lambda t: bce(t, TT(y[:1]), reduction="sum"), p)  # broadcast
    np.testing.assert_array_equal(g, np.array([-1e12, 0.0, -2.0, -1e12, 0.0], "float32"))


@pytest.mark.parametrize("rows", [2, 16])       # 16 x 5: the compiled row kernel's size
def test_cross_entropy_ignores_masked_classes_at_minus_infinity(rows):
    # was: nan loss (0 * -inf) where a non-target class had logit -inf; Paddle and torch: finite
    from jitgrad import vm
    vm.warmup((np.float32,), quiet=True)      # Numba loaded: the forward may use its kernels
    x = np.tile(np.array([[-np.inf, 1.0, 2.0, 0.0, 0.0], [0.5, 1.0, -np.inf, 0.0, 0.0]],
                         "float32"), (rows // 2, 1))
    label = TT(np.tile(np.array([1, 0]), rows // 2))
    ce = paddle.nn.functional.cross_entropy
    e = np.exp(x)
    dx = e / e.sum(1, keepdims=True) - np.eye(5)[np.tile([1, 0], rows // 2)]
    expect = [np.log(np.e + np.e ** 2 + 2) - 1, np.log(np.e ** 0.5 + np.e + 2) - 0.5]
    for create_graph in (False, False, False, True):
        t = TT(x, stop_gradient=False)
        loss = ce(t, label, reduction="none")
        np.testing.assert_allclose(loss.numpy().ravel(), expect * (rows // 2), rtol=1e-6)
        loss.sum().backward(create_graph=create_graph)
        np.testing.assert_allclose(t.grad.numpy(), dx, rtol=1e-6, atol=1e-7)


def test_norms_of_a_zero_vector_have_zero_gradient():
    # was: nan (sqrt' = inf at 0 times the sum's 0); Paddle 3.3.1 gives 0
    rows = np.array([[0.0, 0.0], [3.0, 4.0]], "float32")
    (g,) = _grads_on_every_path(lambda t: paddle.linalg.norm(t, axis=1), rows)
    np.testing.assert_array_equal(g, np.array([[0.0, 0.0], [0.6, 0.8]], "float32"))
    for p in (2, 3):
        (g,) = _grads_on_every_path(lambda t: paddle.linalg.norm(t, p=p), np.zeros(3, "float32"))
        np.testing.assert_array_equal(g, [0.0, 0.0, 0.0])
    (g,) = _grads_on_every_path(lambda t: paddle.linalg.norm(t, p="fro", axis=[0, 1]),
                                np.zeros((2, 2), "float32"))
    np.testing.assert_array_equal(g, np.zeros((2, 2)))
    (g,) = _grads_on_every_path(lambda t: paddle.nn.functional.normalize(t, axis=1), rows)
    np.testing.assert_allclose(g, [[1e12, 1e12], [0.032, -0.024]], rtol=1e-5)   # Paddle's
    (g,) = _grads_on_every_path(lambda t: paddle.renorm(t, 2.0, 0, 1.0),
                                np.zeros((1, 3), "float32"))
    np.testing.assert_array_equal(g, [[1.0, 1.0, 1.0]])


@pytest.mark.parametrize("p", [2.0, 3.0])
def test_cdist_at_zero_distance_has_zero_gradient(p):
    # was: nan for every row with a zero distance; Paddle 3.3.1 gives that pair nothing
    x = np.array([[0.0, 0.0], [1.0, 2.0]], "float32")
    y = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 3.0]], "float32")
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        if mode == "use_mm_for_euclid_dist" and p != 2.0:
            continue
        dx, dy = _grads_on_every_path(lambda a, b: paddle.cdist(a, b, p=p, compute_mode=mode),
                                      x, y)
        d = x[:, None] - y[None]
        n = (np.abs(d) ** p).sum(-1) ** (1 / p)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(n[..., None] > 0, np.sign(d) * np.abs(d) ** (p - 1)
                             / n[..., None] ** (p - 1), 0.0)
        np.testing.assert_allclose(dx, share.sum(1), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(dy, -share.sum(0), rtol=1e-5, atol=1e-6)


def test_inf_norm_gives_every_tied_element_the_whole_gradient():
    # was: ties shared it (0.5 each); Paddle 3.3.1 gives each sign(x) times the seed
    x = np.array([[1.0, -3.0, 3.0], [2.0, 2.0, 1.0], [5.0, -1.0, -1.0]], "float32")
    seed = paddle.to_tensor([1.0, 2.0, 3.0])
    (g,) = _grads_on_every_path(lambda t: paddle.linalg.norm(t, p=np.inf, axis=1) * seed, x)
    np.testing.assert_array_equal(g, [[0, -1, 1], [2, 2, 0], [3, 0, 0]])
    (g,) = _grads_on_every_path(lambda t: paddle.linalg.norm(t, p=-np.inf, axis=1) * seed, x)
    np.testing.assert_array_equal(g, [[1, 0, 0], [0, 0, 2], [0, -3, -3]])
    (g,) = _grads_on_every_path(lambda t: paddle.linalg.norm(t, p=np.inf), x[0])
    np.testing.assert_array_equal(g, [0, -1, 1])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "bool"])
def test_integer_cumsum_sum_and_prod_count_in_int64(dtype):
    # was: cumsum of int8 / uint8 wrapped around in their dtype; sum / prod of uint8 raised
    x = TT(np.array([100, 100, 100]).astype(dtype))
    big = 100 if dtype != "bool" else 1
    c = paddle.cumsum(x)
    assert c.dtype == paddle.int64 and c.tolist() == [big, 2 * big, 3 * big]  # Paddle 3.3.1
    s = paddle.sum(x)
    assert s.dtype == paddle.int64 and s.item() == 3 * big    # (Paddle keeps uint8: 94)
    p = paddle.prod(x)
    assert p.dtype == paddle.int64 and p.item() == big ** 3


@pytest.mark.parametrize("call, message", [
    (lambda x: paddle.roll(x, [1, 2], [0]), "one entry each"),
    (lambda x: paddle.roll(x, [1], [0, 1]), "one entry each"),
    (lambda x: paddle.roll(x, [1, 2]), "shifts must be one int"),
    (lambda x: paddle.roll(x, 1, 5), "out of range"),
    (lambda x: paddle.squeeze(x, 5), "out of range"),
    (lambda x: paddle.squeeze(x, -3), "out of range"),
    (lambda x: paddle.flip(x, [0, 0]), "twice"),
    (lambda x: paddle.flip(x, 2), "out of range"),
])
def test_bad_axis_arguments_raise_value_error(call, message):
    # was: accepted silently (roll with unmatched lists, squeeze(axis=5), flip([0, 0]))
    with pytest.raises(ValueError, match=message):
        call(TT(np.arange(6, dtype="float32").reshape(2, 3)))


def test_roll_and_squeeze_accept_what_paddle_accepts():
    x = TT(np.arange(6, dtype="float32").reshape(2, 3))
    assert paddle.roll(x, [1, 1], [0, 0]).tolist() == x.tolist()   # shifts add up
    assert paddle.roll(x, TT(1)).tolist() == [[5, 0, 1], [2, 3, 4]]
    assert paddle.squeeze(TT(1.0), -1).shape == [] and paddle.squeeze(x, [0, 0]).shape == [2, 3]


def test_gather_nd_with_an_empty_index_row_picks_the_whole_tensor_per_row():
    # was: shape [2, 3] (one copy); Paddle 3.3.1: [2, 2, 3], and the gradient counts both
    x = np.arange(6, dtype="float32").reshape(2, 3)
    idx = np.zeros((2, 0), "int64")
    (g,) = _grads_on_every_path(lambda t: paddle.gather_nd(t, TT(idx)), x)
    assert paddle.gather_nd(TT(x), TT(idx)).shape == [2, 2, 3]
    np.testing.assert_array_equal(g, np.full((2, 3), 2.0))


@pytest.mark.parametrize("name, f", [
    ("prod", lambda t: paddle.prod(t)), ("prod_axis0", lambda t: paddle.prod(t, axis=0)),
    ("prod_axis1", lambda t: paddle.prod(t, axis=1)), ("max_axis1", lambda t: paddle.max(t, axis=1)),
    ("amin_axis1", lambda t: paddle.amin(t, axis=1)),
    ("softmax_axis0", lambda t: paddle.nn.functional.softmax(t, axis=0)),
    ("log_softmax_axis0", lambda t: paddle.nn.functional.log_softmax(t, axis=0)),
])
def test_reductions_and_softmax_of_a_zero_size_tensor_run_with_an_empty_gradient(name, f):
    # was: numpy's reshape or "no identity" errors; Paddle 3.3.1 returns these
    want = {"prod": [], "prod_axis0": [3], "prod_axis1": [0], "max_axis1": [0],
            "amin_axis1": [0], "softmax_axis0": [0, 3], "log_softmax_axis0": [0, 3]}[name]
    (g,) = _grads_on_every_path(lambda t: f(t), np.zeros((0, 3), "float32"))
    assert f(TT(np.zeros((0, 3), "float32"))).shape == want and g.shape == (0, 3)
    if name == "prod_axis0":
        assert f(TT(np.zeros((0, 3), "float32"))).tolist() == [1.0, 1.0, 1.0]


def test_max_over_an_empty_axis_has_no_value():
    with pytest.raises(ValueError, match="over an empty axis"):
        paddle.max(TT(np.zeros((0, 3), "float32")), axis=0)


@pytest.mark.parametrize("call, error, message", [
    (lambda: paddle.arange(0, 5, 0), ValueError, "step must not be 0"),
    (lambda: paddle.linspace(0, 1, -1), ValueError, "non-negative int"),
    (lambda: paddle.eye(-1), ValueError, "non-negative int"),
    (lambda: paddle.repeat_interleave(TT([1.0, 2.0]), -1), ValueError, "not be negative"),
    (lambda: paddle.masked_select(TT(np.ones((2, 3))), TT(np.ones(4, bool))), ValueError,
     "does not broadcast"),
    (lambda: paddle.linalg.inv(TT(np.zeros((2, 2), "float32"))), ValueError, "singular"),
    (lambda: paddle.linalg.solve(TT(np.zeros((2, 2), "float32")), TT(np.ones((2, 1), "float32"))),
     ValueError, "singular"),
    (lambda: paddle.all(TT(np.ones((2, 3), bool)), axis=2), ValueError, "out of range"),
    (lambda: paddle.mean(TT(np.ones((2, 3), "float32")), axis=1.0), TypeError, "axis must be"),
])
def test_bad_arguments_raise_errors_that_name_the_problem(call, error, message):
    # was: numpy's ZeroDivisionError, AxisError, LinAlgError or messages about its internals
    with pytest.raises(error, match=message):
        call()


def test_repeat_interleave_takes_one_count_per_slice():
    x = np.arange(6, dtype="float32").reshape(2, 3)
    got = paddle.repeat_interleave(TT(x), TT(np.array([1, 0])), axis=0)
    assert got.tolist() == [[0.0, 1.0, 2.0]]                # Paddle 3.3.1: shape [1, 3]
    (g,) = _grads_on_every_path(lambda t: paddle.repeat_interleave(t, [2, 0, 1], axis=1), x)
    np.testing.assert_array_equal(g, [[2, 0, 1], [2, 0, 1]])


@pytest.mark.parametrize("ignore_index, labels, weight, want", [   # Paddle 3.3.1
    (-100, [1, -100, 4, 2], None, 1.784152),     # mean over all 4 rows (mean_all)
    (-1, [1, -1, 4, 2], None, 1.784152),
    (3, [1, 3, 4, 2], None, 2.378870),           # ignore_index >= 0: over the 3 counted
    (-100, [1, -100, 4, 2], [1.0, 2.0, 3.0, 1.0, 0.5], 2.459839),   # weighted: their sum
])
def test_cross_entropy_mean_divides_as_paddle(ignore_index, labels, weight, want):
    x = paddle.to_tensor(np.random.default_rng(5).standard_normal((4, 5)).astype("float32"),
                         stop_gradient=False)
    w = None if weight is None else paddle.to_tensor(weight)
    for _ in range(2):                  # before and after the compiled label kernel loads
        x.clear_grad()
        loss = paddle.nn.functional.cross_entropy(x, paddle.to_tensor(labels), weight=w,
                                                  ignore_index=ignore_index)
        assert float(loss) == pytest.approx(want, rel=1e-6)
        loss.backward()
        assert x.grad.numpy()[1].tolist() == [0.0] * 5 or labels[1] != ignore_index


@pytest.mark.parametrize("fn, x, w", [("conv1d", (1, 3, 9), (2, 3, 3)),
                                      ("conv2d", (1, 3, 8, 8), (2, 3, 3, 3)),
                                      ("conv3d", (1, 2, 5, 5, 5), (2, 2, 3, 3, 3))])
def test_same_padding_drops_the_dilation_as_paddle(fn, x, w):
    rng = np.random.default_rng(0)
    x, w = (TT(rng.standard_normal(s).astype("float32")) for s in (x, w))
    f = getattr(paddle.nn.functional, fn)
    np.testing.assert_array_equal(f(x, w, padding="SAME", dilation=2).numpy(),
                                  f(x, w, padding="SAME").numpy())     # Paddle 3.3.1
