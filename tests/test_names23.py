"""Paddle 3.3.1 public names jitgrad lacked (the real-valued ones): paddle.special, the window
functions, nn.functional.pdist and embedding_renorm_, nn.spectral_norm, get_default_device,
device_guard, Tensor.resize_ and set_, the legacy FloatTensor ... constructors. Values are
Paddle 3.3.1's, measured with /work/peers/bin/python; gradients against Paddle's measured
ones, closed forms or finite differences."""

import math

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

F = paddle.nn.functional
TT = paddle.to_tensor


# ---- paddle.special -------------------------------------------------------------------------

def test_special_holds_paddles_expm1_logsumexp_and_softmax():
    import jitgrad.special as special
    x = TT([[1.0, 2.0], [3.0, 5.0]])
    # Paddle 3.3.1: paddle.special.expm1 / logsumexp / softmax (softmax is paddle.softmax)
    np.testing.assert_allclose(special.expm1(input=x).numpy(),      # (to one float32 ulp)
                               [[1.7182817459106445, 6.389056205749512],
                                [19.08553695678711, 147.4131622314453]], rtol=1.2e-7)
    np.testing.assert_allclose(special.logsumexp(x, dim=1).numpy(),
                               [2.3132617473602295, 5.126927852630615], rtol=1e-7)
    np.testing.assert_allclose(special.logsumexp(x, axis=[1], keepdim=True).numpy(),
                               [[2.3132617473602295], [5.126927852630615]], rtol=1e-7)
    np.testing.assert_allclose(special.softmax(x, 0).numpy(),
                               [[0.11920291185379028, 0.04742587357759476],
                                [0.8807970285415649, 0.9525741338729858]], rtol=1e-7)
    assert paddle.special is special and special.softmax is paddle.softmax
    assert sorted(n for n in dir(special) if not n.startswith("_")) == \
        ["expm1", "logsumexp", "softmax"]


# ---- window functions -----------------------------------------------------------------------

# Paddle 3.3.1, length 5: (periodic=True, periodic=False), float32
WINDOWS5 = {
    "hann_window": (
        [0.0, 0.3454914689064026, 0.9045084714889526, 0.9045084714889526, 0.3454914689064026],
        [0.0, 0.4999999701976776, 1.0, 0.4999999701976776, 0.0]),
    "hamming_window": (
        [0.08000001311302185, 0.39785218238830566, 0.9121478199958801, 0.9121478199958801,
         0.39785218238830566],
        [0.08000001311302185, 0.5400000214576721, 1.0, 0.5400000214576721,
         0.08000001311302185]),
    "blackman_window": (
        [-1.4901161193847656e-08, 0.20077010989189148, 0.8492298126220703, 0.8492298126220703,
         0.20077010989189148],
        [-1.4901161193847656e-08, 0.3399999737739563, 0.9999999403953552, 0.3399999737739563,
         -2.2351741790771484e-08]),
    "bartlett_window": (
        [0.0, 0.4000000059604645, 0.800000011920929, 0.7999999523162842, 0.3999999761581421],
        [0.0, 0.5, 1.0, 0.5, 0.0]),
    "kaiser_window": (
        [5.2773437346331775e-05, 0.10171971470117569, 0.7929394245147705, 0.7929394245147705,
         0.10171971470117569],
        [5.2773437346331775e-05, 0.21567265689373016, 1.0, 0.21567265689373016,
         5.2773437346331775e-05]),
}
# Paddle 3.3.1, length 4, periodic, dtype='float64'
WINDOWS4_F64 = {
    "hann_window": [0.0, 0.5, 1.0, 0.5],
    "hamming_window": [0.08000000000000007, 0.54, 1.0, 0.54],
    "blackman_window": [-1.3877787807814457e-17, 0.34, 0.9999999999999999, 0.34],
    "bartlett_window": [0.0, 0.5, 1.0, 0.5],
    "kaiser_window": [5.2773441320097665e-05, 0.2156727447589671, 1.0, 0.2156727447589671],
}


@pytest.mark.parametrize("name", sorted(WINDOWS5))
def test_windows_match_paddle_periodic_and_symmetric(name):
    fn = getattr(paddle, name)
    for periodic, want in zip((True, False), WINDOWS5[name]):
        w = fn(5, periodic)
        assert w.dtype == paddle.float32 and w.shape == [5] and w.stop_gradient
        # one float32 ulp: Paddle's float32 cos / i0 kernels round differently from numpy's
        np.testing.assert_allclose(w.numpy(), want, rtol=1.2e-7, atol=1e-8)
    assert fn(5).numpy().tolist() == fn(5, True).numpy().tolist()      # periodic by default
    w = fn(4, dtype="float64")
    assert w.dtype == paddle.float64
    np.testing.assert_allclose(w.numpy(), WINDOWS4_F64[name], rtol=2e-16, atol=1e-20)


@pytest.mark.parametrize("name", sorted(WINDOWS5))
def test_window_lengths_zero_and_one_and_bad_lengths(name):
    fn = getattr(paddle, name)
    assert fn(0).numpy().tolist() == [] and fn(1).numpy().tolist() == [1.0]   # Paddle 3.3.1
    with pytest.raises(ValueError, match="non-negative integer"):
        fn(-1)
    with pytest.raises(TypeError):          # Paddle 3.3.1: TypeError from paddle.full
        fn(3.0)
    with pytest.raises(TypeError, match="floating"):
        fn(3, dtype="int32")
    assert fn(3, requires_grad=True).stop_gradient is False
    with pytest.raises(ValueError):
        fn(3, device="gpu")


def test_window_parameters_alpha_beta():
    # Paddle 3.3.1: hamming_window(5, True, alpha=0.5, beta=0.5); kaiser_window(5, False,
    # beta=5.0); kaiser_window(6, True, 3.0, dtype='float64')
    np.testing.assert_allclose(
        paddle.hamming_window(5, True, alpha=0.5, beta=0.5).numpy(),
        [7.450580596923828e-09, 0.345491498708725, 0.9045085310935974, 0.9045085310935974,
         0.345491498708725], rtol=1.2e-7, atol=1e-8)
    np.testing.assert_allclose(
        paddle.kaiser_window(5, False, beta=5.0).numpy(),
        [0.036710888147354126, 0.5528515577316284, 1.0, 0.5528515577316284,
         0.036710888147354126], rtol=1.2e-7)
    np.testing.assert_allclose(
        paddle.kaiser_window(6, True, 3.0, dtype="float64").numpy(),
        [0.2048847564012536, 0.5530529017405882, 0.8712418740795513, 1.0,
         0.8712418740795513, 0.5530529017405882], rtol=1e-15)


def test_hann_window_is_its_closed_form():
    n = np.arange(8)
    np.testing.assert_allclose(paddle.hann_window(8, dtype="float64").numpy(),
                               0.5 - 0.5 * np.cos(2 * math.pi * n / 8), atol=1e-15)
    np.testing.assert_allclose(paddle.hann_window(8, False, dtype="float64").numpy(),
                               0.5 - 0.5 * np.cos(2 * math.pi * n / 7), atol=1e-15)


# ---- pdist ----------------------------------------------------------------------------------

X4 = np.array([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5], [3.0, 1.0, 2.0], [0.0, 1.0, 2.5]])
# Paddle 3.3.1: F.pdist(X4 float64, p), backward with upstream [1, 2, ..., 6]
PDIST = {
    0: ([3.0, 1.0, 1.0, 3.0, 3.0, 2.0], np.zeros((4, 3))),
    1: ([4.5, 3.0, 0.5, 5.5, 5.0, 3.5],
        [[-3.0, 1.0, -2.0], [2.0, -10.0, -10.0], [12.0, 4.0, -2.0], [-11.0, 5.0, 14.0]]),
    2: ([2.692582403567252, 3.0, 0.5, 3.2015621187164243, 3.0, 3.0413812651491097],
        [[-2.371390676353299, 0.7427813527079316, -2.4429139854630515],
         [-0.4607228471968395, -6.57489487625707, -5.764504490525859],
         [10.417143733207165, 2.4987801902169164, 0.8876912188308679],
         [-7.5850302096570275, 3.3333333333322224, 7.319727257158043]]),
    math.inf: ([2.0, 3.0, 0.5, 2.0, 2.0, 3.0],
               [[-2.0, 1.0, -3.0], [-4.0, -10.0, -5.0], [12.0, 4.0, 0.0], [-6.0, 5.0, 8.0]]),
}


@pytest.mark.parametrize("p", sorted(PDIST))
def test_functional_pdist_values_and_gradients_match_paddle(p):
    x = TT(X4, stop_gradient=False)
    y = F.pdist(x, p)
    y.backward(TT(np.arange(1, 7.0)))
    want, grad = PDIST[p]
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-15)
    # (Paddle's p_norm gradient carries an epsilon: -2.9999999999969997 for -3)
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-11, atol=1e-12)


def test_pdist_is_paddles_top_level_one_and_checks_shapes():
    assert F.pdist is paddle.pdist          # Paddle 3.3.1: the same function
    check_grads(lambda t: F.pdist(t, 3.0), X4)
    x = TT([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]], stop_gradient=False)
    F.pdist(x).sum().backward()             # Paddle 3.3.1: a zero distance adds nothing
    np.testing.assert_allclose(x.grad.numpy(), [[0.4472135901451111, 0.8944271802902222],
                                                [0.4472135901451111, 0.8944271802902222],
                                                [-0.8944271802902222, -1.7888543605804443]],
                               rtol=1e-7)
    assert F.pdist(TT(np.zeros((1, 3), "float32"))).shape == [0]
    with pytest.raises(ValueError, match="2-D"):     # (Paddle 3.3.1: AssertionError)
        F.pdist(TT([1.0, 2.0]))


# ---- embedding_renorm_ ----------------------------------------------------------------------

def rows():
    return [[3.0, 4.0], [0.3, 0.4], [1.0, 1.0], [6.0, 8.0]]


def test_embedding_renorm_scales_the_picked_rows_in_place_as_paddle():
    w = TT(rows())
    assert F.embedding_renorm_(TT([0, 3, 0, 1]), w, 1.0) is w
    # Paddle 3.3.1 (float32: 5 + 1e-7 rounds to 5, so 3 * 0.2f)
    assert w.numpy().tolist() == [[0.6000000238418579, 0.800000011920929],
                                  [0.30000001192092896, 0.4000000059604645], [1.0, 1.0],
                                  [0.6000000238418579, 0.800000011920929]]
    w = TT(rows(), dtype="float64")
    F.embedding_renorm_(TT([[2, 3]]), w, 2.0, 1.0)
    np.testing.assert_allclose(w.numpy(), [[3.0, 4.0], [0.3, 0.4], [1.0, 1.0],
                                           [0.8571428510204082, 1.1428571346938776]],
                               rtol=1e-15)
    w = TT(rows(), dtype="float64")
    F.embedding_renorm_(TT([0, 2, 3]), w, 2.0, math.inf)
    np.testing.assert_allclose(w.numpy(), [[1.499999962500001, 1.9999999500000012],
                                           [0.3, 0.4], [1.0, 1.0],
                                           [1.4999999812500002, 1.9999999750000004]],
                               rtol=1e-15)
    w = TT([[3.0, 4.0], [0.3, 0.4]])
    F.embedding_renorm_(TT([0]), w, 1.0, 0.0)      # the count of non-zeros: 2
    assert w.numpy().tolist()[0] == [1.5, 2.0]


def test_embedding_renorm_changes_a_leaf_that_needs_grad_and_refuses_bad_ids():
    w = TT(rows(), dtype="float64", stop_gradient=False)
    F.embedding_renorm_(TT([0]), w, 1.0)        # Paddle 3.3.1 runs it without grad
    np.testing.assert_allclose(w.numpy()[0], [0.5999999880000002, 0.7999999840000003],
                               rtol=1e-15)
    assert w.stop_gradient is False
    with pytest.raises(ValueError, match="int32 or int64"):
        F.embedding_renorm_(TT([0.0]), TT(rows()), 1.0)
    with pytest.raises(ValueError, match="must lie in"):
        F.embedding_renorm_(TT([5]), TT(rows()), 1.0)
    with pytest.raises(ValueError, match="2-D"):
        F.embedding_renorm_(TT([0]), TT([3.0, 4.0]), 1.0)


def test_embedding_max_norm_renorms_in_the_weights_dtype_as_paddle():
    w = TT([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    y = F.embedding(TT([0, 2]), w, max_norm=1.0)
    # Paddle 3.3.1: both rows [0.6000000238418579, 0.800000011920929], in y and in w
    assert y.numpy().tolist() == [[0.6000000238418579, 0.800000011920929]] * 2
    assert w.numpy().tolist()[2] == [0.6000000238418579, 0.800000011920929]


# ---- nn.spectral_norm, devices --------------------------------------------------------------

def test_nn_spectral_norm_is_the_utils_function():
    assert paddle.nn.spectral_norm is paddle.nn.utils.spectral_norm     # Paddle 3.3.1
    layer = paddle.nn.spectral_norm(paddle.nn.Linear(3, 2))
    assert hasattr(layer, "weight_orig")


def test_get_default_device_is_cpu():
    d = paddle.get_default_device()
    assert d == "cpu" and repr(d) == "'cpu'" and d.type == "cpu"    # Paddle 3.3.1


def test_device_guard_reads_the_device_as_paddle():
    for dev in ("cpu", "CPU", paddle.CPUPlace()):
        with paddle.device_guard(dev) as entered:
            assert entered is None
    assert paddle.device.device_guard is paddle.device_guard
    # Paddle 3.3.1: each raises ValueError
    for dev in (None, 0, 1.5, " cpu ", "cpu:0", "gpu", "gpu:0", "bogus"):
        with pytest.raises(ValueError):
            paddle.device_guard(dev)
    with pytest.raises(TypeError):
        paddle.device_guard()


# ---- legacy tensor constructors -------------------------------------------------------------

def test_dtype_tensor_constructors_as_paddle():
    # Paddle 3.3.1's paddle.FloatTensor ... (tensor.creation.dtype_tensor_factory)
    e = paddle.FloatTensor()
    assert e.shape == [0] and e.dtype == paddle.float32
    t = paddle.FloatTensor(2, 3)
    assert t.shape == [2, 3] and t.dtype == paddle.float32
    assert paddle.IntTensor(2).dtype == paddle.int32 and paddle.IntTensor(2).shape == [2]
    assert paddle.FloatTensor([1, 2]).numpy().tolist() == [1.0, 2.0]
    assert paddle.LongTensor([1.7, -2.5]).numpy().tolist() == [1, -2]
    assert paddle.BoolTensor([0, 2]).numpy().tolist() == [False, True]
    assert paddle.ByteTensor([1, 300]).numpy().tolist() == [1, 44]
    assert paddle.CharTensor([1, -3]).dtype == paddle.int8
    assert paddle.ShortTensor([1]).dtype == paddle.int16
    assert paddle.HalfTensor([1.0]).dtype == paddle.float16
    assert paddle.DoubleTensor((1.0,)).dtype == paddle.float64
    assert paddle.FloatTensor((2, 3)).shape == [2]         # a tuple is data, not a shape
    assert paddle.FloatTensor(TT([1, 2])).dtype == paddle.int64          # keeps its dtype
    assert paddle.FloatTensor(np.array([1.5, 2.0])).dtype == paddle.float64
    assert not isinstance(TT([1.0]), paddle.FloatTensor)
    with pytest.raises(ValueError):
        paddle.FloatTensor(1.5)
    with pytest.raises(ValueError):
        paddle.FloatTensor("a")
    assert paddle.tensor.creation.FloatTensor is paddle.FloatTensor


# ---- Tensor.resize_ -------------------------------------------------------------------------

def test_resize_keeps_the_first_elements_in_row_major_order():
    a = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert a.resize_([2, 2]) is a
    assert a.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]                # Paddle 3.3.1
    a = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert a.resize_((6,)).numpy().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    a = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    a.resize_([3, 3], fill_zero=True)
    assert a.numpy().tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.0, 0.0, 0.0]]
    assert TT([1.0, 2.0]).resize_([]).shape == [] and TT([1.0]).resize_([2, 0]).shape == [2, 0]
    assert paddle.tensor.creation.resize_(TT([1.0, 2.0]), [1]).numpy().tolist() == [1.0]
    assert not hasattr(paddle, "resize_")       # Paddle 3.3.1: a method, and tensor.creation's


def test_resize_refuses_bad_shapes_and_a_leaf_that_needs_grad():
    with pytest.raises(ValueError, match="list or tuple"):       # Paddle 3.3.1's words
        TT([1.0, 2.0]).resize_(1)
    with pytest.raises(ValueError):
        TT([1.0, 2.0]).resize_([-1])
    with pytest.raises(ValueError, match="leaf"):
        TT([1.0, 2.0], stop_gradient=False).resize_([1])


def test_resize_of_a_recorded_tensor_passes_the_gradient_to_the_kept_elements():
    a = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
    b = a * 2
    b.resize_([2, 2])
    (b * TT([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    # d/da of sum(w * 2 a_flat[:4]): 2 w on the kept elements, 0 on the dropped ones (Paddle
    # 3.3.1 gives a [2, 2] gradient to the [2, 3] a: README, kept differences)
    assert a.grad.numpy().tolist() == [[2.0, 4.0, 6.0], [8.0, 0.0, 0.0]]


# ---- Tensor.set_ ----------------------------------------------------------------------------

def test_set_takes_the_source_or_its_strided_view():
    a = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert a.set_() is a and a.shape == [0] and a.dtype == paddle.float32    # Paddle 3.3.1
    s = TT([7.0, 8.0, 9.0, 10.0])
    a = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert a.set_(s) is a and a.numpy().tolist() == [7.0, 8.0, 9.0, 10.0]
    a = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert a.set_(s, [2, 1]).numpy().tolist() == [[7.0], [8.0]]
    a = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert a.set_(s, [2, 2], [1, 2]).numpy().tolist() == [[7.0, 9.0], [8.0, 10.0]]
    a = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert a.set_(s, [1], [1], 8).numpy().tolist() == [9.0]        # offset in bytes
    assert paddle.tensor.creation.set_ is not None and not hasattr(paddle, "set_")


def test_set_refuses_what_paddle_reads_as_garbage_and_a_leaf_that_needs_grad():
    s = TT([7.0, 8.0, 9.0, 10.0])
    with pytest.raises(ValueError):        # Paddle 3.3.1 reads past the end: [7, 8, 9, 10, 0]
        TT([1.0]).set_(s, [5])
    with pytest.raises(TypeError, match="dtype"):      # Paddle 3.3.1 reinterprets the bytes
        TT([1.0]).set_(TT([7, 8]))
    with pytest.raises(ValueError, match="paddle.Tensor"):          # Paddle 3.3.1's words
        TT([1.0]).set_([1.0, 2.0])
    with pytest.raises(ValueError, match="leaf"):
        TT([1.0], stop_gradient=False).set_(s)


def test_set_sends_the_gradient_to_the_source_not_the_old_value():
    a = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
    s = TT([7.0, 8.0, 9.0], stop_gradient=False)
    b = a * 1
    b.set_(s, [2], [2])
    assert b.stop_gradient is False
    (b * TT([3.0, 5.0])).sum().backward()
    # b holds s[0] and s[2]: d/ds = [3, 0, 5], and a no longer reaches the loss (Paddle 3.3.1
    # gives a a gradient of b's new shape, [2], and s none: README, kept differences)
    assert a.grad is None and s.grad.numpy().tolist() == [3.0, 0.0, 5.0]


def test_set_of_a_tensor_to_itself_reads_its_current_value():
    a = TT([1.0, 2.0, 3.0], stop_gradient=False)
    b = a * 2
    b.set_(b, [2])                       # Paddle 3.3.1's resize_ is x.set_(x, shape)
    assert b.numpy().tolist() == [2.0, 4.0]                          # Paddle 3.3.1
    (b * TT([1.0, 10.0])).sum().backward()
    # d/da of 2 a[0] + 20 a[1] (Paddle 3.3.1: [2, 20], of b's shape, for the [3] a)
    assert a.grad.numpy().tolist() == [2.0, 20.0, 0.0]
