"""A gradient of a tensor narrower than the backward's arena (float16 in a float32 Program,
float32 in a float64 one) is rounded to that tensor's dtype, as the eager path rounds it (each
contribution cast to the tensor's dtype and summed in it), on both interpreters: the
compiled backward's ROUND rows (lower.lower_rounded)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.vm.program import OP, WIDTH
from jitgrad import vm
from jitgrad.vm import execute

TT = paddle.to_tensor
F32 = np.float32
MODES = ("eager", "reference", "numba")


@pytest.fixture(autouse=True)
def compiled_from_the_first_call():
    vm.warmup(quiet=True)           # "numba" means compiled, not the tiered start


def grads(mode, build, leaves, seed=None):
    """The leaves' gradients of build(*leaves) seeded with `seed`, on one path. The graph is
    built and run twice (the second run replays a cached Program); both must agree."""
    results = []
    for _ in range(2):
        ts = [TT(v, stop_gradient=False) for v in leaves]
        z = build(*ts)
        s = None if seed is None else TT(seed)
        if mode == "eager":
            z.backward(s, create_graph=True)    # each op's vjp, run in jitgrad ops
        else:
            with paddle.vm.using(mode):
                paddle.autograd.backward([z], None if s is None else [s])
        results.append([t.grad.numpy() for t in ts])
    for a, b in zip(*results):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    return results[0]


def assert_all_paths(build, leaves, seed, expected):
    for mode in MODES:
        got = grads(mode, build, leaves, seed)
        for g, want, leaf in zip(got, expected, leaves):
            assert g.dtype == np.asarray(leaf).dtype, mode
            assert g.tolist() == np.asarray(want, g.dtype).tolist(), mode


def test_a_gradient_through_a_float16_cast_is_rounded_to_float16():
    # 1.6243454 is not a float16; the nearest one is 1.6240234375
    assert_all_paths(lambda x: x.astype("float16").astype("float32"),
                     [np.array([1.0], F32)], np.array([1.6243454], F32), [[1.6240234375]])


def test_float16_products_round_each_gradient_to_float16():
    # d/dx of (float16(x) * c) in float16: float16(float16(seed) * c), then to float32
    c = np.array([3.0, 0.1], np.float16)
    seed = np.array([1.6243454, 0.7], F32)
    g16 = seed.astype(np.float16)
    assert_all_paths(lambda x, c: (x.astype("float16") * c).astype("float32"),
                     [np.array([1.0, 2.0], F32), c], seed,
                     [(g16 * c).astype(F32), g16 * np.array([1.0, 2.0], np.float16)])


def test_a_float16_root_gets_its_seed_rounded_to_float16():
    # float16(5 * 1.6240234375) = 8.1171875; float16(5 * 1.6243454) would be 8.125
    assert_all_paths(lambda x: x * 5, [np.array([1.0], np.float16)],
                     np.array([1.6243454], F32), [[8.1171875]])


def test_float32_intermediates_in_a_float64_program_round_their_gradients_to_float32():
    # z = sum((x * c) * w) with x, c float32 and w float64: the Program is float64. The
    # gradient of x * c is float32(w), and x's is float32(float32(w) * c): 1.6666667, where
    # float32(w * c) would give 1.6666666
    w = np.array([1 / 3])
    assert F32(F32(w[0]) * F32(5)) == F32(1.6666667) != F32(w[0] * 5)
    assert_all_paths(lambda x, c, w: ((x * c) * w).sum(),
                     [np.array([1.0], F32), np.array([5.0], F32), w], None,
                     [[F32(1.6666667)], [F32(1 / 3)], [5.0]])


def test_two_contributions_to_a_float32_gradient_add_up_in_float32():
    # x * a + x * b in float64: x's gradient is float32(a) + float32(b) added in float32
    a, b = np.array([1 / 3]), np.array([1 / 7])
    assert F32(F32(1 / 3) + F32(1 / 7)) == F32(0.4761905) != F32(1 / 3 + 1 / 7)
    assert_all_paths(lambda x, a, b: x * a + x * b,
                     [np.array([1.0], F32), a, b], np.array([1.0]),
                     [[F32(0.4761905)], [1.0], [1.0]])


def test_a_float32_root_in_a_float64_program_gets_its_seed_rounded_to_float32():
    # z = (x + float32(w)) * 5 is float32, the Program float64 (w is); the float64 seed 1/3
    # becomes float32(1/3) first, as in eager: 5 * float32(1/3) rounds to 1.6666667, where
    # float32(5 / 3) is 1.6666666
    assert_all_paths(lambda x, w: (x + w.astype("float32")) * 5.0,
                     [np.array([1.0], F32), np.array([1.0])], np.array([1 / 3]),
                     [[F32(1.6666667)], [float(F32(1.6666667))]])


# ---- the ROUND opcode: numpy's astype, on both interpreters --------------------------------

EDGES = [1.6243454, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11,     # ties: to even, down and up
         65504.0, 65519.0, 65520.0, -65520.0, 1e30, 2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -26,
         1e-30, -1e-30, -0.0, 0.0, np.inf, -np.inf, np.nan, 0.1, -7.3]


@pytest.mark.parametrize("arena, bits", [(np.float32, 16), (np.float64, 16),
                                         (np.float64, 32)])
@pytest.mark.parametrize("vm", ["reference", "numba"])
def test_round_rounds_as_numpys_astype(arena, bits, vm):
    with np.errstate(over="ignore"):            # (the float32 edges overflow a float32 arena)
        values = np.array(EDGES + [1.0 + 2.0 ** -24, 3.4028235677973366e38, 2.0 ** -150,
                                   2.0 ** -149 * 1.5], arena)
    n = values.size
    code = np.array([[OP["ROUND"] << 1, n, 0, 0, 0, n, 0, 0],       # out = round(a)
                     [OP["ROUND"] << 1 | 1, 2 * n, 0, 0, 0, n, 0, 0]], np.int64)   # (+)=
    data = np.concatenate([values, np.zeros(n, arena), np.ones(n, arena)])
    with np.errstate(over="ignore", invalid="ignore"):
        want = values.astype(np.float16 if bits == 16 else np.float32).astype(arena)
        execute(code.reshape(-1, WIDTH), data, np.array([bits], np.int64),
                np.array([1.0], arena), vm=vm)
    np.testing.assert_array_equal(data[n:2 * n], want)
    assert np.array_equal(np.signbit(data[n:2 * n]), np.signbit(want))
    np.testing.assert_array_equal(data[2 * n:], want + 1)
