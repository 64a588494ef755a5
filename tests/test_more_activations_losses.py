"""Activations and losses added after the Paddle 3.3.1 sweep: values and gradients measured
on Paddle 3.3.1 (float32, pinned below), and float64 gradients against finite differences."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops.activation import (celu, glu, hardshrink, prelu, softshrink,
                                    thresholded_relu)
import jitgrad.ops.margin_losses as LS
from jitgrad.testing import check_grads
from backward_paths import PATHS, backward, leaf

F = paddle.nn.functional

XS = [-1.5, -0.5, -0.2, 0.3, 0.5, 2.0]


def _leaf(a, dtype="float32"):
    return paddle.to_tensor(np.array(a, dtype=dtype), stop_gradient=False)


def _value_and_grad(fn, *arrays, seed=None):
    """fn's output and the gradients of sum(out * seed) (seed defaults to ones)."""
    ts = [_leaf(a) for a in arrays]
    out = fn(*ts)
    w = np.ones(out.shape, "float32") if seed is None else np.array(seed, "float32")
    (out * paddle.to_tensor(w)).sum().backward()
    return out.numpy(), [t.grad.numpy() if t.grad is not None else None for t in ts]


def _close(got, want):
    np.testing.assert_allclose(got, np.array(want, dtype=np.float32), rtol=1e-6, atol=1e-7)


# ---- activations ---------------------------------------------------------------------------

# Paddle 3.3.1: (function, kwargs, output of XS, gradient of sum(out))
ACTIVATIONS = [
    (hardshrink, {}, [-1.5, -0.5, 0.0, 0.0, 0.5, 2.0], [1, 1, 0, 0, 1, 1]),
    (hardshrink, {"threshold": 0.3}, [-1.5, -0.5, 0.0, 0.30000001192092896, 0.5, 2.0],
     [1, 1, 0, 1, 1, 1]),
    (softshrink, {}, [-1.0, 0, 0, 0, 0, 1.5], [1, 0, 0, 0, 0, 1]),
    (softshrink, {"threshold": 0.2}, [-1.2999999523162842, -0.30000001192092896, 0.0,
                                      0.10000000894069672, 0.30000001192092896,
                                      1.7999999523162842], [1, 1, 0, 1, 1, 1]),
    (celu, {}, [-0.7768698334693909, -0.39346933364868164, -0.18126922845840454,
                0.30000001192092896, 0.5, 2.0],
     [0.22313016653060913, 0.6065306663513184, 0.8187307715415955, 1, 1, 1]),
    (celu, {"alpha": 0.5}, [-0.47510647773742676, -0.31606027483940125, -0.1648399829864502,
                            0.30000001192092896, 0.5, 2.0],
     [0.049787066876888275, 0.3678794503211975, 0.6703200340270996, 1, 1, 1]),
    (thresholded_relu, {}, [0, 0, 0, 0, 0, 2.0], [0, 0, 0, 0, 0, 1]),
    (thresholded_relu, {"threshold": 0.3, "value": -1.0}, [-1.0, -1.0, -1.0, -1.0, 0.5, 2.0],
     [0, 0, 0, 0, 1, 1]),
]


@pytest.mark.parametrize("fn,kw,want,want_grad", ACTIVATIONS,
                         ids=[f"{a[0].__name__}-{a[1]}" for a in ACTIVATIONS])
def test_activation_values_and_gradients_match_paddle(fn, kw, want, want_grad):
    out, (g,) = _value_and_grad(lambda x: fn(x, **kw), XS)
    assert out.dtype == np.float32
    _close(out, want)
    _close(g, want_grad)


def test_shrinks_at_the_threshold_follow_paddle():
    # Paddle 3.3.1: hardshrink keeps x at |x| == threshold (gradient 1), softshrink gives 0
    # there (gradient 0); thresholded_relu gives value at x == threshold (float32 compare).
    out, (g,) = _value_and_grad(hardshrink, [-0.5, 0.5])
    _close(out, [-0.5, 0.5])
    _close(g, [1, 1])
    out, (g,) = _value_and_grad(softshrink, [-0.5, 0.5])
    _close(out, [0, 0])
    _close(g, [0, 0])
    out, (g,) = _value_and_grad(lambda x: thresholded_relu(x, 0.3, 2.0), [0.3, 1.0])
    _close(out, [2.0, 1.0])
    _close(g, [0, 1])


def test_nan_propagates_through_the_shrinks_and_thresholded_relu():
    x = paddle.to_tensor(np.array([np.nan, -50.0, 50.0], "float32"))
    # Paddle 3.3.1: [nan, -49.5, 49.5] and [nan, 0, 50] (it also maps inf to nan: not here)
    _close(softshrink(x).numpy(), [np.nan, -49.5, 49.5])
    _close(thresholded_relu(x).numpy(), [np.nan, 0.0, 50.0])
    _close(hardshrink(x).numpy(), [np.nan, -50.0, 50.0])


def test_hardshrink_negative_threshold_keeps_everything():
    out, _ = _value_and_grad(lambda x: hardshrink(x, -0.5), XS)      # Paddle 3.3.1
    _close(out, np.float32(XS))


def test_celu_negative_alpha():
    # Paddle 3.3.1: celu(x, -1.0) at -2, 0.3: -6.389056205749512, 0.3; grads 7.38905..., 1
    out, (g,) = _value_and_grad(lambda x: celu(x, -1.0), [-2.0, 0.3])
    _close(out, [-6.389056205749512, 0.30000001192092896])
    _close(g, [7.389056205749512, 1.0])


def test_glu_halves_the_last_axis_by_default():
    x = [[0.5, -1.0, 2.0, 0.25], [-0.5, 1.5, 0.0, -2.0]]
    out, (g,) = _value_and_grad(glu, x, seed=[[1, 2], [3, 4]])   # Paddle 3.3.1
    _close(out, [[0.44039851427078247, -0.562176525592804], [-0.25, 0.17880438268184662]])
    _close(g, [[0.8807970285415649, 1.124353051185608, 0.052496813237667084,
                -0.4922681450843811],
               [1.5, 0.4768116772174835, -0.375, 0.6299614906311035]])
    out, (g,) = _value_and_grad(lambda t: glu(t, axis=0), x)        # Paddle 3.3.1
    _close(out, [[0.1887703388929367, -0.8175744414329529, 1.0, 0.02980072982609272]])
    _close(g, [[0.3775406777858734, 0.8175744414329529, 0.5, 0.11920291930437088],
               [0.11750185489654541, -0.14914646744728088, 0.5, 0.026248395442962646]])


def test_prelu_per_channel_channel_first_and_last():
    x = [[[-1.0, 2.0], [0.5, -0.5]], [[-2.0, -3.0], [1.0, 4.0]]]
    out, (gx, gw) = _value_and_grad(prelu, x, [0.1, 0.2])          # Paddle 3.3.1, NCL
    _close(out, [[[-0.1, 2.0], [0.5, -0.1]], [[-0.2, -0.3], [1.0, 4.0]]])
    _close(gx, [[[0.1, 1.0], [1.0, 0.2]], [[0.1, 0.1], [1.0, 1.0]]])
    _close(gw, [-6.0, -0.5])
    out, (gx, gw) = _value_and_grad(lambda a, w: prelu(a, w, data_format="NLC"), x, [0.1, 0.2])
    _close(out, [[[-0.1, 2.0], [0.5, -0.1]], [[-0.2, -0.6], [1.0, 4.0]]])    # Paddle 3.3.1
    _close(gx, [[[0.1, 1.0], [1.0, 0.2]], [[0.1, 0.2], [1.0, 1.0]]])
    _close(gw, [-3.0, -3.5])


def test_prelu_single_weight_gradient_at_zero_is_the_weight():
    out, (gx, gw) = _value_and_grad(prelu, [-2.0, 0.0, 3.0], [0.25], seed=[1, 2, 3])
    _close(out, [-0.5, 0.0, 3.0])          # Paddle 3.3.1
    _close(gx, [0.25, 0.5, 3.0])
    _close(gw, [-2.0])
    assert gw.shape == (1,)
    out = prelu(paddle.to_tensor(np.float32(-2.0)), paddle.to_tensor([0.3]))
    assert out.shape == []                 # a [1] weight does not broadcast a 0-d x up
    _close(out.numpy(), -0.6000000238418579)


@pytest.mark.parametrize("call,err", [
    (lambda: softshrink(paddle.to_tensor([1.0]), -1.0), ValueError),
    (lambda: celu(paddle.to_tensor([1.0]), 0.0), ValueError),
    (lambda: hardshrink(paddle.to_tensor([1, 2])), TypeError),
    (lambda: glu(paddle.to_tensor([[1.0, 2.0, 3.0]])), ValueError),
    (lambda: glu(paddle.to_tensor([[1.0, 2.0]]), axis=2), ValueError),
    (lambda: prelu(paddle.to_tensor([[1.0, 2.0]]), paddle.to_tensor([0.1, 0.2, 0.3])),
     ValueError),
    (lambda: prelu(paddle.to_tensor([[1.0, 2.0]]), paddle.to_tensor([[0.1]])), ValueError),
    (lambda: prelu(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([0.1, 0.2])), ValueError),
    (lambda: prelu(paddle.to_tensor([[1.0, 2.0]]), paddle.to_tensor([0.1, 0.2]), "NCX"),
     ValueError),
    (lambda: prelu(paddle.to_tensor([[1.0, 2.0]]),
                   paddle.to_tensor(np.array([0.1], "float64"))), TypeError),
])
def test_bad_arguments_raise(call, err):
    with pytest.raises(err):
        call()


X64 = np.array([[-1.7, -0.8, -0.35, 0.15], [0.4, 0.9, 1.6, 2.3]])
GRAD_CASES = {
    "hardshrink": (lambda x: hardshrink(x, 0.5), [X64]),
    "softshrink": (lambda x: softshrink(x, 0.5), [X64]),
    "celu": (lambda x: celu(x, 0.7), [X64]),
    "celu_negative_alpha": (lambda x: celu(x, -1.3), [X64]),
    "thresholded_relu": (lambda x: thresholded_relu(x, 0.2, 0.5), [X64]),
    "glu": (lambda x: glu(x), [X64]),
    "glu_axis0": (lambda x: glu(x, 0), [X64]),
    "prelu_channel": (lambda x, w: prelu(x, w), [X64.reshape(2, 2, 2), [0.2, -0.3]]),
    "prelu_nhwc": (lambda x, w: prelu(x, w, "NHWC"), [X64.reshape(1, 2, 1, 4),
                                                      [0.1, 0.2, 0.3, 0.4]]),
    "prelu_single": (lambda x, w: prelu(x, w), [X64, [0.25]]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_finite_differences(name):
    fn, arrays = GRAD_CASES[name]
    check_grads(fn, *arrays, order=2)


# ---- losses --------------------------------------------------------------------------------

X = [0.5, -1.0, 2.0, 0.3]
Y = [0.1, 0.4, 2.5, -0.2]
L = [1.0, -1.0, 1.0, -1.0]
LG = [[0.5, -1.0, 2.0], [-0.3, 0.8, -2.5]]
LB = [[1, 0, 1], [0, 1, 0]]
XP = [0.5, -1.0, 2.0, 0.1]
YP = [1.0, 0.5, 3.0, 2.5]
GX = [[0.5, -1.0, 2.0], [0.3, 0.8, -2.5]]
GY = [[1, 0, 1.5], [0, 1, -2]]
GV = [[0.5, 1.0, 2.0], [1.5, 0.2, 0.4]]
C1 = [[0.5, -1.0, 2.0], [0.3, 0.8, -2.5], [1.0, 1.0, 0.0]]
C2 = [[1, 0, 1.5], [0, 1, -2], [-1, 0.5, 0.2]]
PA, PB, PC = GX, GY, [[-1, 0.5, 0.2], [0.4, 0.7, -2.2]]

# Paddle 3.3.1, every float input a leaf, gradients of sum(out): (name, function, inputs,
# output, gradients; None where Paddle gives that input no gradient)
LOSSES = [
    ('margin_ranking_loss none m0.2',
     lambda a, b, c: LS.margin_ranking_loss(a, b, c, 0.2, 'none'),
     [X, Y, L],
     [0.0, 0.0, 0.699999988079071, 0.699999988079071],
     [[-0.0, 0.0, -1.0, 1.0], [0.0, -0.0, 1.0, -1.0], [-0.0, 0.0, 0.5, -0.5]]),
    ('margin_ranking_loss mean',
     lambda a, b, c: LS.margin_ranking_loss(a, b, c),
     [X, Y, L],
     0.25,
     [[-0.0, 0.0, -0.25, 0.25], [0.0, -0.0, 0.25, -0.25], [-0.0, 0.0, 0.125, -0.125]]),
    ('hinge none m0.5',
     lambda a, b: LS.hinge_embedding_loss(a, b, 0.5, 'none'),
     [X, [1, -1, -1, 0]],
     [0.5, 1.5, 0.0, 0.0],
     [[1.0, -1.0, 0.0, 0.0], None]),
    ('hinge mean',
     lambda a, b: LS.hinge_embedding_loss(a, b),
     [X, [1, -1, -1, 1]],
     0.699999988079071,
     [[0.25, -0.25, 0.0, 0.25], None]),
    ('soft_margin none',
     lambda a, b: LS.soft_margin_loss(a, b, 'none'),
     [X, L],
     [0.4740769863128662, 0.31326165795326233, 0.12692804634571075, 0.8543552160263062],
     [[-0.3775406777858734, 0.2689414322376251, -0.11920291185379028, 0.5744425654411316],
      [-0.1887703388929367, 0.2689414322376251, -0.23840582370758057, -0.1723327785730362]]),
    ('soft_margin mean',
     lambda a, b: LS.soft_margin_loss(a, b),
     [X, L],
     0.44215548038482666,
     [[-0.09438516944646835, 0.06723535805940628, -0.02980072796344757, 0.1436106413602829],
      [-0.04719258472323418, 0.06723535805940628, -0.05960145592689514, -0.04308319464325905]]),
    ('log_loss',
     lambda a, b: LS.log_loss(a, b),
     [[[0.2], [0.7], [0.9]], [[0.0], [1.0], [0.5]]],
     [[0.22301852703094482], [0.35653209686279297], [1.203417420387268]],
     [[[1.249843716621399], [-1.4283673763275146], [4.439509868621826]], None]),
    ('focal sum',
     lambda a, b: LS.sigmoid_focal_loss(a, b),
     [LG, LB],
     0.11889039725065231,
     [[[-0.034484244883060455, 0.039435841143131256, -0.0012177362805232406],
       [0.14430633187294006, -0.019754815846681595, 0.0009566886583343148]],
      [[-0.05570492520928383, 0.04707036167383194, -0.006663317326456308],
       [0.002488568425178528, -0.039691012352705, 0.00738776009529829]]]),
    ('focal none soft a0.4 g1.5',
     lambda a, b: LS.sigmoid_focal_loss(a, b, alpha=0.4, gamma=1.5, reduction='none'),
     [LG, [[0.3, 0.0, 1.0], [0.5, 1.0, 0.2]]],
     [[0.18100926280021667, 0.026214707642793655, 0.002089527901262045],
      [0.12451358884572983, 0.025624055415391922, 0.0394367016851902]],
     [[[0.11731930077075958, 0.0512525849044323, -0.004723029676824808],
       [-0.013159705325961113, -0.04792681336402893, 0.001677466556429863]],
      [[-0.18817126750946045, 0.05882815271615982, -0.02106991969048977],
       [0.005809172987937927, -0.05991701781749725, 0.19030335545539856]]]),
    ('focal normalizer mean',
     lambda a, b, n: LS.sigmoid_focal_loss(a, b, n, reduction='mean'),
     [LG, LB, [2.0]],
     0.009907533414661884,
     [[[-0.002873687306419015, 0.003286320250481367, -0.00010147802095161751],
       [0.012025527656078339, -0.0016462347703054547, 7.97240572865121e-05]],
      [[-0.0046420772559940815, 0.003922529984265566, -0.0005552765214815736],
       [0.00020738132297992706, -0.003307584673166275, 0.0006156467134132981]],
      [-0.004953766707330942]]),
    ('poisson none',
     lambda a, b: LS.poisson_nll_loss(a, b, reduction='none'),
     [XP, YP],
     [1.1487212181091309, 0.8678794503211975, 1.3890562057495117, 0.8551709651947021],
     [[0.6487212181091309, -0.1321205496788025, 4.389056205749512, -1.3948290348052979],
      [-0.5, 1.0, -2.0, -0.10000000149011612]]),
    ('poisson full sum',
     lambda a, b: LS.poisson_nll_loss(a, b, full=True, reduction='sum'),
     [XP, YP],
     7.19271993637085,
     [[0.6487212181091309, -0.1321205496788025, 4.389056205749512, -1.3948290348052979],
      [-0.5, 1.0, -0.7347210049629211, 1.0162907838821411]]),
    ('poisson nolog eps0.5 none',
     lambda a, b: LS.poisson_nll_loss(a, b, log_input=False, epsilon=0.5, reduction='none'),
     [[0.5, 1.0, 2.0, 0.3], YP],
     [0.5, 0.7972674369812012, -0.7488722801208496, 0.8578588366508484],
     [[0.0, 0.6666666269302368, -0.20000004768371582, -2.125],
      [-0.0, -0.40546509623527527, -0.9162907600402832, 0.2231435328722]]),
    ('gaussian none full',
     lambda a, b, c: LS.gaussian_nll_loss(a, b, c, full=True, reduction='none'),
     [GX, GY, GV],
     [[0.8223649263381958, 1.4189385175704956, 1.3280121088027954],
      [1.151671051979065, 0.21421951055526733, 0.773293137550354]],
     [[[-1.0, -1.0, 0.25], [0.20000001788139343, -0.9999999403953552, -1.25]],
      [[1.0, 1.0, -0.25], [-0.20000001788139343, 0.9999999403953552, 1.25]], None]),
    ('gaussian homo eps0.6 sum',
     lambda a, b, c: LS.gaussian_nll_loss(a, b, c, epsilon=0.6, reduction='sum'),
     [GX, GY, [0.5, 2.0]],
     1.6184824705123901,
     [[[-0.8333333134651184, -1.6666666269302368, 0.8333333134651184],
       [0.15000000596046448, -0.09999999403953552, -0.25]],
      [[0.8333333134651184, 1.6666666269302368, -0.8333333134651184],
       [-0.15000000596046448, 0.09999999403953552, 0.25]],
      None]),
    ('cosine m0.5 none',
     lambda a, b, c: LS.cosine_embedding_loss(a, b, c, 0.5, 'none'),
     [C1, C2, [1, -1, -1]],
     [0.1526814103126526, 0.4817824959754944, 0.0],
     [[[-0.16139401495456696, -0.16139402985572815, -0.04034847021102905],
       [-0.04219695180654526, 0.05674763768911362, 0.013095557689666748], [0.0, 0.0, 0.0]],
      [[0.13966791331768036, 0.24209102988243103, -0.09311193227767944],
       [0.05078185349702835, -0.06093819439411163, -0.030469149351119995], [0.0, 0.0, 0.0]],
      None]),
    ('cosine mean',
     lambda a, b, c: LS.cosine_embedding_loss(a, b, c),
     [C1, C2, [1, -1, 1]],
     0.8152500987052917,
     [[[-0.05379800498485565, -0.05379800498485565, -0.013449504971504211],
       [-0.014065652154386044, 0.018915876746177673, 0.004365198314189911],
       [0.15564320981502533, -0.15564322471618652, -0.04150485619902611]],
      [[0.04655596986413002, 0.08069700747728348, -0.03103730082511902],
       [0.016927285119891167, -0.020312737673521042, -0.010156378149986267],
       [-0.1270885169506073, -0.2477421760559082, -0.016087155789136887]],
      None]),
    ('pairwise p2',
     lambda a, b: LS.pairwise_distance(a, b),
     [PA, PB],
     [1.2247439622879028, 0.6164407730102539],
     [[[-0.40824776887893677, -0.8164963722229004, 0.4082494080066681],
       [0.48666641116142273, -0.324441522359848, -0.811106264591217]],
      [[0.40824776887893677, 0.8164963722229004, -0.4082494080066681],
       [-0.48666641116142273, 0.324441522359848, 0.811106264591217]]]),
    ('pairwise p1 keepdim',
     lambda a, b: LS.pairwise_distance(a, b, p=1.0, keepdim=True),
     [PA, PB],
     [[1.9999990463256836], [0.9999989867210388]],
     [[[-1.0, -1.0, 1.0], [1.0, -1.0, -1.0]], [[1.0, 1.0, -1.0], [-1.0, 1.0, 1.0]]]),
    ('pairwise p3 eps0',
     lambda a, b: LS.pairwise_distance(a, b, p=3.0, epsilon=0.0),
     [PA, PB],
     [1.0772173404693604, 0.5428835153579712],
     [[[-0.2154434770345688, -0.8617739081382751, 0.2154434770345688],
       [0.305372029542923, -0.1357208788394928, -0.8482555747032166]],
      [[0.2154434770345688, 0.8617739081382751, -0.2154434770345688],
       [-0.305372029542923, 0.1357208788394928, 0.8482555747032166]]]),
    ('pairwise pinf ties eps0',
     lambda a, b: LS.pairwise_distance(a, b, p=float('inf'), epsilon=0.0),
     [[[1.0, -1.0, 0.5]], [[0.0, 0.0, 0.0]]],
     [1.0],
     [[[1.0, -1.0, 0.0]], [[-1.0, 1.0, -0.0]]]),
    ('pairwise p0',
     lambda a, b: LS.pairwise_distance(a, b, p=0.0),
     [PA, PB],
     [3.0, 3.0],
     [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[-0.0, -0.0, -0.0], [-0.0, -0.0, -0.0]]]),
    ('triplet none m2',
     lambda a, b, c: LS.triplet_margin_loss(a, b, c, margin=2.0, reduction='none'),
     [PA, PB, PC],
     [0.44265782833099365, 2.2847793102264404],
     [[[-0.947411835193634, -0.27733296155929565, -0.23874744772911072],
       [0.7881755828857422, -0.6259568333625793, 0.09342718124389648]],
      [[0.40824776887893677, 0.8164963722229004, -0.4082494080066681],
       [-0.48666641116142273, 0.324441522359848, 0.811106264591217]],
      [[0.5391640663146973, -0.5391634106636047, 0.6469968557357788],
       [-0.30150917172431946, 0.3015153110027313, -0.9045334458351135]]]),
    ('triplet swap none m2',
     lambda a, b, c: LS.triplet_margin_loss(a, b, c, margin=2.0, swap=True, reduction='none'),
     [PA, PB, PC],
     [0.7875312566757202, 2.2847793102264404],
     [[[-0.40824776887893677, -0.8164963722229004, 0.4082494080066681],
       [0.7881755828857422, -0.6259568333625793, 0.09342718124389648]],
      [[-0.41236215829849243, 1.0216484069824219, -0.9416459798812866],
       [-0.48666641116142273, 0.324441522359848, 0.811106264591217]],
      [[0.8206099271774292, -0.2051519751548767, 0.5333966016769409],
       [-0.30150917172431946, 0.3015153110027313, -0.9045334458351135]]]),
    ('multilabel weight sum',
     lambda a, b, w: LS.multi_label_soft_margin_loss(a, b, w, reduction='sum'),
     [GX, [[1, 0, 1], [0, 1, 0]], [0.5, 1.0, 2.0]],
     0.5867379903793335,
     [[[-0.06292344629764557, 0.08964714407920837, -0.07946861535310745],
       [0.0957404226064682, -0.10334184765815735, 0.050572119653224945]],
      [[-0.0833333358168602, 0.3333333134651184, -1.3333333730697632],
       [-0.04999999701976776, -0.2666666507720947, 1.666666865348816]],
      [0.4428107738494873, 0.22812077403068542, 0.068605937063694]]),
    ('multilabel none',
     lambda a, b: LS.multi_label_soft_margin_loss(a, b, reduction='none'),
     [GX, [[1, 0, 1], [0, 1, 0]]],
     [0.3047555387020111, 0.43478187918663025],
     [[[-0.12584689259529114, 0.08964714407920837, -0.039734307676553726],
       [0.1914808452129364, -0.10334184765815735, 0.025286059826612473]],
      [[-0.1666666716337204, 0.3333333134651184, -0.6666666865348816],
       [-0.09999999403953552, -0.2666666507720947, 0.833333432674408]]]),
    ('label_smooth',
     lambda a: LS.label_smooth(a),
     [[[0, 1, 0], [1, 0, 0]]],
     [[0.03333333507180214, 0.9333333373069763, 0.03333333507180214],
      [0.9333333373069763, 0.03333333507180214, 0.03333333507180214]],
     [[[0.8999999761581421, 0.8999999761581421, 0.8999999761581421],
       [0.8999999761581421, 0.8999999761581421, 0.8999999761581421]]]),
    ('label_smooth prior eps0.5',
     lambda a, p: LS.label_smooth(a, p, epsilon=0.5),
     [[[0, 1, 0], [1, 0, 0]], [[0.2, 0.3, 0.5]]],
     [[0.10000000149011612, 0.6499999761581421, 0.25],
      [0.6000000238418579, 0.15000000596046448, 0.25]],
     [[[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]], None]),
]


@pytest.mark.parametrize("case", LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_values_and_gradients_match_paddle(case):
    name, fn, arrays, want, want_grads = case
    out, grads = _value_and_grad(fn, *arrays)
    assert out.dtype == np.float32 and out.shape == np.shape(want)
    np.testing.assert_allclose(out, np.float32(want), rtol=1e-5, atol=1e-7)
    for i, (got, exp) in enumerate(zip(grads, want_grads)):
        if name.startswith("gaussian") and i == 2:
            continue        # variance: Paddle gives None, see test_gaussian_nll_variance_...
        if exp is None:
            assert got is None, f"input {i} should get no gradient"
        else:
            np.testing.assert_allclose(got, np.float32(exp), rtol=1e-5, atol=1e-7)


def test_gaussian_nll_variance_gets_the_unclamped_gradient():
    # Paddle 3.3.1 gives variance no gradient (its clip runs under no_grad), against its docs
    # (variance is what the network predicts); here d/dvar of the loss at the clamped value
    # flows straight through the clamp, as in PyTorch. Values match Paddle's.
    x, y, v = [0.5, -1.0, 2.0], [1.0, 0.0, 1.5], [0.5, 1e-8, 2.0]
    out, (gx, gy, gv) = _value_and_grad(
        lambda a, b, c: LS.gaussian_nll_loss(a, b, c, reduction="none"), x, y, v)
    _close(out, [-0.0965735912322998, 499993.09375, 0.4090735912322998])    # Paddle 3.3.1
    _close(gx, [-1.0, -1000000.0, 0.25])                                     # Paddle 3.3.1
    _close(gy, [1.0, 1000000.0, -0.25])                                      # Paddle 3.3.1
    vc = np.maximum(np.float32(v), np.float32(1e-6))
    d2 = (np.float32(x) - np.float32(y)) ** 2
    np.testing.assert_allclose(gv, 0.5 * (1 / vc - d2 / vc ** 2), rtol=1e-5)


def test_poisson_full_label_gradient_is_zero_where_stirling_is_off():
    # Paddle 3.3.1 gives nan for label 0 (log(0) before the mask); the term is 0 for
    # label <= 1, so its gradient is too: only -input remains.
    out, (gx, gl) = _value_and_grad(
        lambda a, b: LS.poisson_nll_loss(a, b, full=True, reduction="none"),
        [0.5, 1.0, 0.2], [0.0, 1.0, 3.0])
    _close(out, [1.6487212181091309, 1.7182817459106445, 2.385484218597412])   # Paddle 3.3.1
    _close(gl, [-0.5, -1.0, 1.0652788877487183])    # Paddle 3.3.1: [nan, -1.0, 1.0652789]


def test_zero_d_losses_stay_zero_d_as_documented():
    # Paddle 3.3.1 returns shape [1] here (a [1] margin / zero tensor broadcasts up);
    # its docs say the output has the input's shape with reduction='none'.
    t = paddle.to_tensor
    out = LS.margin_ranking_loss(t(np.float32(0.5)), t(np.float32(0.1)), t(np.float32(-1.0)),
                                 0.2, "none")
    assert out.shape == []
    _close(out.numpy(), 0.6000000238418579)
    out = LS.hinge_embedding_loss(t(np.float32(0.3)), t(np.float32(-1.0)), reduction="none")
    assert out.shape == []
    _close(out.numpy(), 0.699999988079071)          # Paddle 3.3.1: [0.7]


def test_pairwise_distance_shapes():
    t = paddle.to_tensor
    assert LS.pairwise_distance(t(X), t(Y)).shape == []
    assert LS.pairwise_distance(t(X), t(Y), keepdim=True).shape == [1]
    assert LS.pairwise_distance(t(np.ones((2, 1, 3), "float32")),
                                t(np.zeros((2, 1, 3), "float32"))).shape == [2, 1]


def _t(a, dtype="float32"):
    return paddle.to_tensor(np.array(a, dtype=dtype))


@pytest.mark.parametrize("call,err", [
    (lambda: LS.margin_ranking_loss(_t(X), _t(Y), _t(L), reduction="avg"), ValueError),
    (lambda: LS.margin_ranking_loss(_t(X), _t(Y), _t(L, "int64")), TypeError),
    (lambda: LS.hinge_embedding_loss(_t(X), _t(L), reduction="x"), ValueError),
    (lambda: LS.soft_margin_loss(_t(X), _t([1.0])), ValueError),
    (lambda: LS.log_loss(_t(X), _t(X)), ValueError),
    (lambda: LS.log_loss(_t([[0.5, 0.5]]), _t([[1.0, 0.0]])), ValueError),
    (lambda: LS.log_loss(_t([[0.5]]), _t([[1]], "int64")), TypeError),
    (lambda: LS.sigmoid_focal_loss(_t(LG), _t(LB, "int64")), TypeError),
    (lambda: LS.sigmoid_focal_loss(_t(LG), _t(LB[0])), ValueError),
    (lambda: LS.sigmoid_focal_loss(_t(LG), _t(LB), _t([[2.0]])), ValueError),
    (lambda: LS.poisson_nll_loss(_t(X), _t(Y), epsilon=0.0), ValueError),
    (lambda: LS.poisson_nll_loss(_t(X), _t(Y[:2])), ValueError),
    (lambda: LS.gaussian_nll_loss(_t(GX), _t(GY), _t([0.5, 1.0, 2.0])), ValueError),
    (lambda: LS.gaussian_nll_loss(_t(GX), _t(GY), _t(0.5)), ValueError),
    (lambda: LS.gaussian_nll_loss(_t(GX), _t(GY), _t(GV) * -1.0), ValueError),
    (lambda: LS.gaussian_nll_loss(_t(GX), _t(GY, "int64"), _t(GV)), TypeError),
    (lambda: LS.cosine_embedding_loss(_t(C1), _t(C2), _t([[1], [1], [1]])), ValueError),
    (lambda: LS.cosine_embedding_loss(_t(C1), _t(C2[:2]), _t([1, 1, 1])), ValueError),
    (lambda: LS.cosine_embedding_loss(_t([C1]), _t([C2]), _t([1])), ValueError),
    (lambda: LS.cosine_embedding_loss(_t(C1), _t(C2), _t([1, 1, 1]), reduction="x"),
     ValueError),
    (lambda: LS.pairwise_distance(_t([1, 2], "int64"), _t([1, 2], "int64")), TypeError),
    (lambda: LS.triplet_margin_loss(_t(PA), _t(PB), _t(PC), margin=-1.0), ValueError),
    (lambda: LS.triplet_margin_loss(_t(PA), _t(PB), _t(PC[:1])), ValueError),
    (lambda: LS.multi_label_soft_margin_loss(_t(GX), _t(GY[:1])), ValueError),
    (lambda: LS.multi_label_soft_margin_loss(_t(GX), _t(LB, "int64")), TypeError),
    (lambda: LS.label_smooth(_t(LB), epsilon=1.5), ValueError),
    (lambda: LS.label_smooth(_t(LB, "int64")), TypeError),
    (lambda: LS.label_smooth(_t(1.0)), ValueError),
    (lambda: LS.label_smooth(_t(LB), _t([[0.5, 0.5]])), ValueError),
    (lambda: LS.label_smooth(_t(LB, "float64"), _t([[0.2, 0.3, 0.5]])), TypeError),
])
def test_bad_loss_arguments_raise(call, err):
    with pytest.raises(err):
        call()


R3 = np.array([[0.7, -1.3, 0.4], [-0.6, 1.1, 1.8]])
R3b = np.array([[0.2, 0.5, -0.9], [0.9, -0.4, 1.2]])
R3c = np.array([[-1.1, 0.3, 0.6], [0.1, 1.5, -0.7]])
SIGNS = paddle.to_tensor(np.array([[1.0, -1.0, -1.0], [1.0, 1.0, -1.0]]))
LOSS_GRAD_CASES = {
    "margin_ranking": (lambda a, b, c: LS.margin_ranking_loss(a, b, c, 0.3, "sum"),
                       [R3, R3b, [[1.0, -1.0, 0.5], [-1.0, 1.0, 2.0]]]),
    "hinge_embedding": (lambda a: LS.hinge_embedding_loss(a, SIGNS, 0.5, "none"), [R3]),
    "soft_margin": (lambda a, b: LS.soft_margin_loss(a, b, "none"), [R3, R3b]),
    "log_loss": (lambda a: LS.log_loss(a, paddle.to_tensor(np.array([[1.0], [0.0], [0.3]]))),
                 [[[0.2], [0.6], [0.9]]]),
    # the label is a constant: its gradient skips the cross-entropy term, as Paddle's does
    "sigmoid_focal": (lambda a, n: LS.sigmoid_focal_loss(
        a, paddle.to_tensor(np.array([[1.0, 0.0, 0.3], [0.0, 1.0, 0.8]])), n, 0.3, 1.5, "none"),
        [R3, [2.0]]),
    "poisson_log_full": (lambda a, b: LS.poisson_nll_loss(a, b, full=True, reduction="none"),
                         [R3, [[0.5, 2.0, 3.0], [1.5, 0.2, 4.0]]]),
    "poisson_linear": (lambda a, b: LS.poisson_nll_loss(a, b, False, epsilon=0.1),
                       [R3 ** 2 + 0.1, [[0.5, 2.0, 3.0], [1.5, 0.2, 4.0]]]),
    "gaussian_homoscedastic": (lambda a, b, v: LS.gaussian_nll_loss(a, b, v, True),
                               [R3, R3b, [0.5, 1.7]]),
    "cosine_embedding": (lambda a, b: LS.cosine_embedding_loss(
        a, b, paddle.to_tensor([1, -1]), 0.1, "none"), [R3, R3b]),
    "pairwise_p2": (lambda a, b: LS.pairwise_distance(a, b), [R3, R3b]),
    "pairwise_p3_keepdim": (lambda a, b: LS.pairwise_distance(a, b, 3.0, 0.0, True), [R3, R3b]),
    "pairwise_p_half": (lambda a, b: LS.pairwise_distance(a, b, 0.5), [R3, R3b]),
    "pairwise_inf": (lambda a, b: LS.pairwise_distance(a, b, float("inf")), [R3, R3c]),
    "pairwise_neg_inf": (lambda a, b: LS.pairwise_distance(a, b, float("-inf")), [R3, R3c]),
    "triplet": (lambda a, b, c: LS.triplet_margin_loss(a, b, c, 2.0, reduction="none"),
                [R3, R3b, R3c]),
    "triplet_swap_p1": (lambda a, b, c: LS.triplet_margin_loss(a, b, c, 3.0, 1, swap=True),
                        [R3, R3b, R3c]),
    "multi_label_soft_margin": (lambda a, b, w: LS.multi_label_soft_margin_loss(a, b, w, "none"),
                                [R3, [[1.0, 0.0, 0.3], [0.0, 1.0, 0.8]], [0.5, 1.0, 2.0]]),
    "label_smooth": (lambda a: LS.label_smooth(a, epsilon=0.2), [R3]),
    "label_smooth_prior": (lambda a: LS.label_smooth(
        a, paddle.to_tensor(np.array([0.2, 0.3, 0.5])), 0.4), [R3]),
}


@pytest.mark.parametrize("name", sorted(LOSS_GRAD_CASES))
def test_loss_gradients_match_finite_differences(name):
    fn, arrays = LOSS_GRAD_CASES[name]
    check_grads(fn, *arrays, order=2)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_elu_with_negative_alpha_keeps_its_slope_in_the_far_tail(path, dtype):
    # alpha * exp(x) from x, as Paddle 3.3.1 computes it for alpha < 0 (out + alpha cancels)
    x = leaf([-40.0, -20.0, -1.0, 0.5], dtype=dtype)
    backward(F.elu(x, alpha=-0.5).sum(), path)
    want = np.array([-0.5 * np.exp(-40.0), -0.5 * np.exp(-20.0), -0.5 * np.exp(-1.0), 1.0])
    np.testing.assert_allclose(x.grad.numpy(), want.astype(dtype), rtol=1e-6, atol=0)


def test_elu_with_negative_alpha_second_derivative_is_alpha_exp_x():
    x = leaf([-2.0, -0.5, 1.5], dtype="float64")
    (g,) = paddle.grad(F.elu(x, alpha=-0.5).sum(), [x], create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-0.5 * np.exp(-2.0), -0.5 * np.exp(-0.5), 0.0],
                               rtol=1e-12)


def test_maxout_gives_a_tie_to_the_first_maximum():
    # Paddle 3.3.1: x = [1, 1, 3, 2], groups 2 -> gradient [1, 0, 1, 0] (it was split)
    x = paddle.to_tensor(np.array([1.0, 1.0, 3.0, 2.0], "float32").reshape(1, 4, 1, 1),
                         stop_gradient=False)
    y = F.maxout(x, 2)
    y.sum().backward()
    assert y.numpy().ravel().tolist() == [1.0, 3.0]
    assert x.grad.numpy().ravel().tolist() == [1.0, 0.0, 1.0, 0.0]


def test_lp_pool_with_infinite_norm_is_max_pooling():
    x = paddle.to_tensor(np.array([[[[-3.0, 1.0], [2.0, -5.0]], [[1.0, 1.0], [0.0, 0.0]]]],
                                  "float32"), stop_gradient=False)
    y = F.lp_pool2d(x, float("inf"), 2)           # Paddle 3.3.1: [2, 1], the first maxima
    y.sum().backward()
    assert y.numpy().ravel().tolist() == [2.0, 1.0]
    assert x.grad.numpy().ravel().tolist() == [0, 0, 1, 0, 1, 0, 0, 0]
    assert F.lp_pool1d(x.reshape([1, 2, 4]), float("inf"), 2).numpy().ravel().tolist() == \
        [1.0, 2.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="norm_type"):
        F.lp_pool2d(x, float("-inf"), 2)


@pytest.mark.parametrize("p, want, grad", [
    (float("inf"), [[3.0, 2.0], [5.0, 4.0]], [[0.0, 0.0, 2.0], [0.0, 2.0, 0.0]]),
    (0.0, [[3.0, 2.0], [2.0, 2.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
])
def test_cdist_with_infinite_or_zero_p(p, want, grad):
    # Paddle 3.3.1 and torch: the largest |difference| (its gradient the sign there), and
    # the count of differing coordinates (no gradient)
    x = paddle.to_tensor([[1.0, 2.0, 3.0], [0.0, 5.0, 1.0]], stop_gradient=False)
    y = paddle.to_tensor([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    d = paddle.cdist(x, y, p=p)
    d.sum().backward()
    assert d.tolist() == want
    assert x.grad.tolist() == grad
