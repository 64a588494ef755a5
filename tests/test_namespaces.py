"""Function namespaces (paddle.linalg, paddle.optimizer.lr, paddle.tensor.<submodule>): what
they hold, and missing names reported in jitgrad's words. The Paddle name lists were
measured on Paddle 3.3.1 (perf/paddle_api_names.py)."""

import importlib

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core.paddle_names import NAMES


def message(get):
    with pytest.raises(AttributeError) as info:
        get()
    return str(info.value)


def test_a_name_paddle_has_and_jitgrad_lacks_says_so():
    missing = next(n for n in NAMES["linalg"] if not hasattr(paddle.linalg, n))
    assert message(lambda: getattr(paddle.linalg, missing)) == (
        f"jitgrad.linalg has no {missing!r} (not implemented in jitgrad; Paddle 3.3.1 has "
        f"paddle.linalg.{missing})")
    assert "not implemented in jitgrad; Paddle 3.3.1 has paddle.optimizer.lr.noam_decay" in \
        message(lambda: paddle.optimizer.lr.noam_decay)
    # paddle.distribution's list too (it was missing: "nor has Paddle 3.3.1's")
    missing = next(n for n in NAMES["distribution"] if not hasattr(paddle.distribution, n))
    assert message(lambda: getattr(paddle.distribution, missing)) == (
        f"jitgrad.distribution has no {missing!r} (not implemented in jitgrad; Paddle 3.3.1 "
        f"has paddle.distribution.{missing})")


def test_a_name_nobody_has_says_that_and_suggests_close_ones():
    assert message(lambda: paddle.linalg.foo) == \
        "jitgrad.linalg has no 'foo' (nor has Paddle 3.3.1's paddle.linalg)"
    assert "did you mean StepDecay" in message(lambda: paddle.optimizer.lr.StepDecayy)


def test_namespaces_still_hold_their_members():
    assert paddle.linalg.inv is not None and paddle.linalg.norm is not None
    assert paddle.optimizer.lr.StepDecay is paddle.optimizer.lr.StepDecay
    assert "inv" in dir(paddle.linalg) and "CosineAnnealingDecay" in dir(paddle.optimizer.lr)


@pytest.mark.parametrize("sub", ["math", "manipulation", "creation", "linalg", "search",
                                 "logic", "stat", "random", "attribute"])
def test_tensor_submodules_expose_jitgrads_functions_under_paddles_names(sub):
    ns = getattr(paddle.tensor, sub)
    names = dir(ns)
    assert names and set(names) <= set(NAMES[f"tensor.{sub}"])
    for name in names:
        assert callable(getattr(ns, name))
    assert importlib.import_module(f"jitgrad.tensor.{sub}") is ns


def test_tensor_submodule_members_are_the_top_level_functions():
    assert paddle.tensor.math.add is paddle.add
    assert paddle.tensor.manipulation.reshape is paddle.reshape
    assert paddle.tensor.abs is paddle.abs and paddle.tensor.Tensor is paddle.Tensor
    assert "jitgrad.tensor.math has no 'nope'" in message(lambda: paddle.tensor.math.nope)
    assert message(lambda: paddle.tensor.nope) == \
        "module 'jitgrad.tensor' has no attribute 'nope'"


def test_fill_constant_casts_its_value_to_the_dtype():
    """Measured: fill_constant([2], 'int64', 3.7) holds 3."""
    t = paddle.tensor.fill_constant([2], "int64", 3.7)
    assert t.dtype == paddle.int64 and t.numpy().tolist() == [3, 3]
    out = paddle.zeros([3])
    assert paddle.tensor.creation.fill_constant([3], "float32", 2.5, out=out) is out
    assert out.numpy().tolist() == [2.5, 2.5, 2.5]
    assert paddle.tensor.fill_constant([1], "float32", paddle.to_tensor(4.0)).item() == 4.0


def test_gaussian_follows_paddle_seed_and_its_own_seed():
    paddle.seed(3)
    a = paddle.tensor.random.gaussian([4], mean=1.0, std=2.0)
    paddle.seed(3)
    b = paddle.tensor.random.gaussian([4], mean=1.0, std=2.0)
    assert a.dtype == paddle.float32 and a.numpy().tolist() == b.numpy().tolist()
    c = paddle.tensor.random.gaussian([2], seed=9, dtype="float64")
    assert c.dtype == paddle.float64 and c.numpy().tolist() == \
        paddle.tensor.random.gaussian([2], seed=9, dtype="float64").numpy().tolist()
    assert not paddle.tensor.random.gaussian([2], requires_grad=True).stop_gradient
    with pytest.raises(ValueError, match="std must be >= 0"):
        paddle.tensor.random.gaussian([2], std=-1.0)


def test_jitgrad_nn_and_functional_word_missing_names_the_same_way():
    missing = next(n for n in NAMES["nn"] if not hasattr(paddle.nn, n))   # (every class is there)
    assert message(lambda: getattr(paddle.nn, missing)) == (
        f"jitgrad.nn has no {missing!r} (not implemented in jitgrad; Paddle 3.3.1 has "
        f"paddle.nn.{missing})")
    assert "Paddle 3.3.1 has paddle.fft" in message(lambda: paddle.fft)
    assert "did you mean matmul" in message(lambda: paddle.matmull)
    assert "nor has Paddle 3.3.1's paddle.nn.functional" in \
        message(lambda: paddle.nn.functional.nope)
    with pytest.raises(ImportError):
        from jitgrad import nope  # noqa: F401
    assert not hasattr(paddle, "__wrapped__")


@pytest.mark.parametrize("path", ["", "autograd", "optimizer", "nn", "nn.functional", "linalg",
                                  "io", "incubate", "incubate.autograd", "tensor", "utils",
                                  "regularizer", "distributed"])
def test_public_namespaces_show_no_helper_imports(path):
    ns = paddle
    for part in filter(None, path.split(".")):
        ns = getattr(ns, part)
    import functools, math, sys, types, typing
    helpers = [np, typing.Any, typing.Callable, typing.Sequence, typing.Iterable, sys, types,
               math, functools]
    leaked = [n for n in dir(ns)
              if not n.startswith("_") and any(getattr(ns, n) is h for h in helpers)]
    assert leaked == [] and "annotations" not in dir(ns)


def test_autograd_lists_exactly_paddles_api_and_graphviz():
    assert dir(paddle.autograd) == sorted(
        ["backward", "grad", "PyLayer", "PyLayerContext", "Function", "saved_tensors_hooks",
         "jacobian", "hessian", "Jacobian", "Hessian", "graphviz"])


def test_constants_limits_and_predicates_as_paddle():
    import math
    assert (paddle.pi, paddle.e, paddle.inf) == (math.pi, math.e, math.inf)
    assert math.isnan(paddle.nan) and paddle.newaxis is None
    f = paddle.finfo(paddle.float32)
    assert (f.eps, f.resolution, f.bits, f.dtype) == (2.0 ** -23, 1e-06, 32, "float32")
    assert f.max == -f.min == float(np.finfo(np.float32).max)
    assert paddle.finfo("float64").eps == 2.0 ** -52
    i = paddle.iinfo(paddle.int32)
    assert (i.min, i.max, i.bits) == (-2 ** 31, 2 ** 31 - 1, 32)
    with pytest.raises(TypeError, match="not a float dtype"):
        paddle.finfo(paddle.int32)
    x, n = paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1, 2])
    assert (paddle.is_complex(x), paddle.is_integer(x), paddle.is_integer(n)) == \
        (False, False, True)
    assert paddle.is_empty(paddle.zeros([0, 3])).item() is True
    assert paddle.is_empty(x).shape == [] and paddle.tolist(x) == [1.0, 2.0]
    with pytest.raises(TypeError, match="must be a Tensor"):
        paddle.is_integer([1])


def test_torch_style_creation_names():
    a = np.arange(3, dtype="float64")
    t = paddle.from_numpy(a)
    a[0] = 100.0
    assert t.tolist() == [0.0, 1.0, 2.0] and t.dtype == paddle.float64   # a copy
    assert paddle.as_tensor([1, 2.5]).dtype == paddle.float32
    assert paddle.as_tensor([1.0], requires_grad=True).stop_gradient is False
    assert paddle.asarray([1, 2]).dtype == paddle.int64
    x = paddle.ones([2, 3], dtype="float64")
    assert paddle.rand_like(x).dtype == paddle.float64 and paddle.rand_like(x).shape == [2, 3]
    assert paddle.randn_like(x, dtype="float32").dtype == paddle.float32
    r = paddle.randint_like(x, 2, 5).numpy()
    assert r.dtype == np.float64 and r.min() >= 2 and r.max() < 5
    assert paddle.standard_normal([2, 2]).dtype == paddle.float32
    paddle.manual_seed(5)
    first = paddle.rand([3]).tolist()
    paddle.seed(5)
    assert paddle.rand([3]).tolist() == first
    with pytest.raises(TypeError, match="numpy array"):
        paddle.from_numpy([1.0])
