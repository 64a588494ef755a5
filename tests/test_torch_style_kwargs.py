"""Paddle 3.x's torch-style keywords out=, device=, requires_grad=, pin_memory= on the
functions Paddle 3.3.1 gives them (core/torch_kwargs.TABLE, measured there with
inspect.signature), with Paddle's semantics as measured on its CPU build."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import torch_kwargs

TT = paddle.to_tensor
X = np.array([[0.5, -0.25, 0.75], [0.125, 0.625, -0.5]], "float32")
Y = np.array([[0.25, 0.5, -0.75], [0.375, 0.125, 0.5]], "float32")
SQ = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], "float32")


def env():
    return {"paddle": paddle, "F": paddle.nn.functional, "x": TT(X), "y": TT(Y),
            "big": TT(X + 2.0), "s": TT(SQ), "s3": TT(SQ[None]), "v": TT(X[0]), "w": TT(Y[0]),
            "ix": TT(np.array([[12, 18, 7], [4, 9, 30]], "int64")),
            "iy": TT(np.array([[1, 2, 3], [5, 1, 2]], "int64")),
            "b": TT(X > 0), "c": TT(Y > 0), "i": TT(np.array([0, 1], "int64")),
            "j": TT(np.array([[0, 1, 1]], "int64")), "sorted": TT(np.array([0.0, 0.5, 1.0],
                                                                            "float32")),
            "p": TT(np.array([0.25, 0.75], "float32"))}


# (a call of each function in TABLE, with {kw} where the keywords go)
BINARY = ("add", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
          "bitwise_right_shift", "div", "divide", "eq", "equal", "floor_divide", "floor_mod",
          "ge", "greater", "greater_equal", "greater_than", "gt", "le", "less", "less_equal",
          "less_than", "logical_and", "logical_or", "logical_xor", "lt", "maximum", "minimum",
          "mod", "mul", "multiply", "ne", "not_equal", "remainder", "sub", "subtract",
          "true_divide")
INTS = ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
        "bitwise_right_shift", "bitwise_not", "bitwise_invert", "floor_divide")
SPECIAL = {
    "acosh": "{f}(big{kw})", "bitwise_left_shift_": "{f}(ix, iy{kw})",
    "bitwise_right_shift_": "{f}(ix, iy{kw})", "bmm": "{f}(s3, s3{kw})",
    "bucketize": "{f}(x, sorted{kw})", "cat": "{f}([x, y]{kw})", "concat": "{f}([x, y]{kw})",
    "concatenate": "{f}([x, y]{kw})", "stack": "{f}([x, y]{kw})", "dot": "{f}(v, w{kw})",
    "outer": "{f}(v, w{kw})", "ger": "{f}(v, w{kw})", "matmul": "{f}(s, s{kw})",
    "gather": "{f}(x, i{kw})", "index_select": "{f}(x, i{kw})",
    "index_add": "{f}(x, i, 0, y{kw})", "masked_select": "{f}(x, b{kw})",
    "pow": "{f}(x, 2.0{kw})", "scatter": "{f}(x, i, y{kw})",
    "searchsorted": "{f}(sorted, x{kw})", "take_along_axis": "{f}(x, j, 0{kw})",
    "take_along_dim": "{f}(x, j, 0{kw})", "topk": "{f}(x, 2{kw})", "where": "{f}(b, x, y{kw})",
    "clip": "{f}(x, -0.3, 0.3{kw})", "clamp": "{f}(x, -0.3, 0.3{kw})",
    "expand_as": "{f}(x, y{kw})", "roll": "{f}(x, 1{kw})",
    "quantile": "{f}(x, 0.5{kw})", "multinomial": "{f}(p, 2{kw})", "median": "{f}(x{kw})",
    "nonzero": "{f}(x{kw})", "diff": "{f}(x{kw})", "cumsum": "{f}(x{kw})",
    "cumprod": "{f}(x, 1{kw})", "logsumexp": "{f}(x{kw})", "msort": "{f}(x{kw})",
    "arange": "{f}(5.0{kw})", "linspace": "{f}(0, 1, 5{kw})", "range": "{f}(0, 4{kw})",
    "eye": "{f}(3{kw})", "full": "{f}([2, 3], 1.5{kw})", "normal": "{f}(0.0, 1.0, [2, 3]{kw})",
    "randperm": "{f}(5, 'float32'{kw})", "solve": "{f}(s, s{kw})", "svd": "{f}(s{kw})",
    "new_full": "{f}([2, 3], 1.5{kw})", "full_like": "{f}(x, 1.5{kw})",
    "as_tensor": "{f}([1.0, 2.0]{kw})", "asarray": "{f}([1.0, 2.0]{kw})",
}
for _n in ("empty", "ones", "zeros", "rand", "randn", "standard_normal", "uniform",
           "new_empty", "new_ones", "new_zeros"):
    SPECIAL[_n] = "{f}([2, 3]{kw})"


METHODS = {"concat": "paddle.Tensor.concat([x, y]{kw})",
           "stack": "paddle.Tensor.stack([x, y]{kw})",
           "new_full": "x.new_full([2, 3], 1.5{kw})"}
for _n in ("new_empty", "new_ones", "new_zeros"):
    METHODS[_n] = "x." + _n + "([2, 3]{kw})"


def call_of(name):
    """The expression calling TABLE's `name` ("Tensor.exp": x.exp(...))."""
    where, _, f = name.rpartition(".")
    if where == "Tensor" and f in METHODS:
        return METHODS[f]
    if f in SPECIAL:
        expr = SPECIAL[f]
    elif f in BINARY:
        expr = "{f}(x, y{kw})"
    else:
        expr = "{f}(x{kw})"
    if f in INTS or f.startswith("bitwise"):
        expr = expr.replace("(x, y", "(ix, iy").replace("(x{", "(ix{")
    if f.startswith(("logical", "bitwise")) and f not in INTS and "shift" not in f:
        expr = expr.replace("(x, y", "(b, c").replace("(x{", "(b{")
    if where == "Tensor":
        recv, _, rest = expr[len("{f}("):].partition(", ")
        if recv.endswith("{kw})"):             # x.exp(out=o): no other argument
            recv, rest = recv[:-len("{kw})")], "{kw})"
        elif "{kw}" in recv:
            recv, rest = recv.split("{kw}")[0], "{kw})"
        expr = recv + "." + f + "(" + rest
        return expr.replace("({kw", "({kw0")   # no leading comma: handled by fill()
    return expr.replace("{f}", ("paddle." + where + "." if where else "paddle.") + f)


def fill(expr, kw):
    """expr with the keywords `kw` (a string like "out=o") in place of {kw}."""
    return expr.replace("{kw0}", kw).replace("{kw}", (", " + kw) if kw else "")


def run(name, kw="", **names):
    e = {**env(), **names}
    paddle.seed(7)
    return eval(fill(call_of(name), kw), e)


BARE = {"Tensor." + n for n in torch_kwargs.methods_without_out()}
OUT_NAMES = sorted(n for n, k in torch_kwargs.TABLE.items() if "out" in k and n not in BARE)
DEVICE_NAMES = sorted(n for n, k in torch_kwargs.TABLE.items() if "device" in k)
GRAD_NAMES = sorted(n for n, k in torch_kwargs.TABLE.items() if "requires_grad" in k)
PIN_NAMES = sorted(n for n, k in torch_kwargs.TABLE.items() if "pin_memory" in k)


def values(r):
    return [values(t) for t in r] if isinstance(r, (tuple, list)) else \
        (r.numpy(), str(r.dtype))


def assert_same(a, b):
    if isinstance(a, list):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            assert_same(u, v)
        return
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1] == b[1]


def blank_out(r):
    """Tensors to pass as out= for a result like r (of another shape and dtype: Paddle's
    out takes the result's)."""
    if isinstance(r, (tuple, list)):
        return tuple(paddle.zeros([7], dtype="float64") for _ in r)
    return paddle.zeros([7], dtype="float64")


@pytest.mark.parametrize("name", [n for n in OUT_NAMES if not n.endswith("_")])
def test_each_out_function_writes_its_result_into_out(name):
    expected = run(name)
    o = blank_out(expected)
    got = run(name, "out=o", o=o)
    assert_same(values(o if isinstance(o, paddle.Tensor) else list(o)), values(expected))
    if isinstance(o, paddle.Tensor):
        assert got is o
    else:
        assert all(g is t for g, t in zip(got, o))


@pytest.mark.parametrize("name", DEVICE_NAMES)
def test_each_device_function_accepts_cpu_and_refuses_gpu(name):
    assert_same(values(run(name, "device='cpu'")), values(run(name)))
    with pytest.raises(ValueError, match="CPU only"):
        run(name, "device='gpu:0'")


@pytest.mark.parametrize("name", GRAD_NAMES)
def test_each_requires_grad_function_makes_a_tensor_that_needs_grad(name):
    assert run(name, "requires_grad=True").stop_gradient is False
    assert run(name, "requires_grad=False").stop_gradient is True


@pytest.mark.parametrize("name", PIN_NAMES)
def test_each_pin_memory_function_refuses_pinning_as_paddles_cpu_build(name):
    assert_same(values(run(name, "pin_memory=False")), values(run(name)))
    with pytest.raises(RuntimeError, match="pin"):
        run(name, "pin_memory=True")


@pytest.mark.parametrize("name", [n for n in OUT_NAMES if n.endswith("_")])
def test_an_in_place_function_taking_out_changes_its_tensor_and_leaves_out_alone(name):
    e = {**env(), "o": paddle.zeros([2])}
    got = eval(fill(call_of(name), "out=o"), e)
    assert got is e["ix"]
    assert e["ix"].numpy().tolist() != [[12, 18, 7], [4, 9, 30]]
    assert e["o"].numpy().tolist() == [0.0, 0.0]


def test_hot_methods_take_out_and_stay_unwrapped():
    # Paddle 3.3.1's x.exp(out=o) writes o; a wrapper would cost every x.exp(), so the hot
    # functions read out= themselves (every method TABLE gives out= takes it: BARE is empty)
    assert BARE == set()
    x = TT(X)
    for name in ("exp", "tanh", "sqrt", "sigmoid", "abs", "log1p", "floor", "clip", "gather"):
        assert not hasattr(paddle.Tensor.__dict__[name], "__wrapped__")
    o = paddle.zeros([2])
    assert x.exp(out=o) is o
    np.testing.assert_array_equal(o.numpy(), x.exp().numpy())


def test_out_takes_the_results_shape_and_dtype_and_is_returned():
    o = paddle.zeros([3], dtype="float64")
    r = paddle.add(TT([1.0, 2.0]), TT([3.0, 4.0]), out=o)
    assert r is o
    assert o.shape == [2] and o.dtype == paddle.float32
    assert o.numpy().tolist() == [4.0, 6.0]


def test_out_with_aliases_in_the_same_call():
    o = paddle.zeros([1])
    paddle.sum(input=TT([[1.0, 2.0], [3.0, 4.0]]), dim=1, keepdim=True, out=o)
    assert o.numpy().tolist() == [[3.0], [7.0]]


def test_gradient_flows_through_out():
    x = TT([1.0, 2.0], stop_gradient=False)
    o = paddle.zeros([2])
    paddle.multiply(x, x, out=o)
    assert o.stop_gradient is False and not o.is_leaf
    (o * TT([1.0, 10.0])).sum().backward()
    assert x.grad.numpy().tolist() == [2.0, 40.0]


def test_out_under_no_grad_stops_gradient():
    x = TT([1.0, 2.0], stop_gradient=False)
    o = paddle.zeros([2])
    with paddle.no_grad():
        paddle.multiply(x, x, out=o)
    assert o.stop_gradient is True and o.numpy().tolist() == [1.0, 4.0]


def test_out_leaf_that_needs_grad_stays_a_leaf_for_a_result_without_graph():
    o = TT([0.0, 0.0], stop_gradient=False)
    paddle.add(TT([1.0, 2.0]), TT([3.0, 4.0]), out=o)
    assert o.is_leaf and o.stop_gradient is False
    (o * TT([2.0, 3.0])).sum().backward()
    assert o.grad.numpy().tolist() == [2.0, 3.0]


def test_a_gradient_reading_outs_overwritten_value_raises_as_after_an_in_place_change():
    # (Paddle 3.3.1 gives w.grad [40, 40] here, from h's new values; jitgrad refuses)
    w = TT([1.0, 1.0], stop_gradient=False)
    h = w * 2.0
    y = h * h                      # its gradient reads h's values [2, 2]
    paddle.add(TT([5.0, 5.0]), TT([5.0, 5.0]), out=h)
    assert h.numpy().tolist() == [10.0, 10.0]
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


def test_out_into_an_input_with_a_graph():
    x = TT([1.0, 2.0], stop_gradient=False)
    h = x * 1.0
    paddle.add(h, TT([1.0, 1.0]), out=h)
    assert h.numpy().tolist() == [2.0, 3.0]
    (h * h).sum().backward()
    assert x.grad.numpy().tolist() == [4.0, 6.0]


def test_tuple_out_for_a_tuple_result():
    v, i = paddle.zeros([1]), paddle.zeros([1], dtype="int64")
    got = paddle.topk(TT([1.0, 3.0, 2.0]), 2, out=(v, i))
    assert got[0] is v and got[1] is i
    assert v.numpy().tolist() == [3.0, 2.0] and i.numpy().tolist() == [1, 2]


def test_out_must_be_a_tensor():
    with pytest.raises(TypeError, match="out must be a Tensor"):
        paddle.add(TT([1.0]), TT([2.0]), out=[0.0])
    with pytest.raises(TypeError, match="tuple of 2 Tensors"):
        paddle.topk(TT([1.0, 3.0]), 1, out=paddle.zeros([1]))


def test_functions_paddle_gives_no_out_refuse_it():
    with pytest.raises(TypeError, match="out"):
        paddle.nn.functional.relu(TT([1.0]), out=paddle.zeros([1]))
    with pytest.raises(TypeError, match="device"):
        paddle.exp(TT([1.0]), device="cpu")


def test_creation_out_and_requires_grad_together():
    o = TT([5.0])
    got = paddle.zeros([2], out=o, requires_grad=True)
    assert got is o and o.numpy().tolist() == [0.0, 0.0] and o.stop_gradient is False


def test_requires_grad_true_only_as_paddle():
    # Paddle tests `requires_grad is True`: a truthy 1 leaves stop_gradient=True
    assert paddle.ones([2], requires_grad=1).stop_gradient is True
    t = paddle.full([2], 1.5, requires_grad=True)
    (t * t).sum().backward()
    assert t.grad.numpy().tolist() == [3.0, 3.0]


def test_requires_grad_on_an_integer_result_is_refused_as_jitgrad_refuses_int_grads():
    with pytest.raises(TypeError, match="int64 tensor cannot require gradients"):
        paddle.arange(3, requires_grad=True)


@pytest.mark.parametrize("device", ["cpu", "CPU", None])
def test_cpu_devices_are_accepted(device):
    assert paddle.ones([2], device=device).numpy().tolist() == [1.0, 1.0]


def test_a_cpu_place_is_accepted_as_device():
    assert paddle.zeros([1], device=paddle.CPUPlace()).place == paddle.CPUPlace()
    x = TT([1.0])
    assert paddle.ones_like(x, device=x.place).numpy().tolist() == [1.0]


# ('cpu:0' too: Paddle 3.3.1's device= has no CPU index, tests/test_devices.py)
@pytest.mark.parametrize("device", ["gpu", "gpu:0", "cuda", "xpu", "foo", 0, "cpu:0"])
def test_other_devices_raise_a_clear_error(device):
    with pytest.raises(ValueError, match="jitgrad runs on the CPU only"):
        paddle.zeros([2], device=device)


def test_pin_memory_false_is_accepted_and_true_refused():
    assert paddle.empty([2], pin_memory=False).shape == [2]
    with pytest.raises(RuntimeError, match="pin_memory=True is not supported"):
        paddle.zeros_like(TT([1.0]), pin_memory=True)


def test_range_honours_its_own_out_and_device():
    o = paddle.zeros([1])
    assert paddle.range(0, 2, out=o) is o and o.numpy().tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="CPU only"):
        paddle.range(0, 2, device="gpu")


def test_norm_takes_out_by_position_as_paddle():
    o = paddle.zeros([1])
    assert paddle.linalg.norm(TT([3.0, 4.0]), 2.0, None, False, o) is o
    assert o.numpy().tolist() == 5.0


def test_new_zeros_takes_device_and_requires_grad():
    t = TT([1.0], dtype="float64").new_zeros([2], device="cpu", requires_grad=True)
    assert t.stop_gradient is False and t.dtype == paddle.float64
    with pytest.raises(ValueError, match="CPU only"):
        TT([1.0]).new_ones([2], device="gpu")


def test_every_table_function_is_wrapped_or_takes_the_keyword_itself():
    from jitgrad.core.param_aliases import _own_params
    spaces = {"": paddle, "nn.functional": paddle.nn.functional, "linalg": paddle.linalg,
              "Tensor": paddle.Tensor}
    for name, kws in torch_kwargs.TABLE.items():
        if name in BARE:
            continue
        where, _, f = name.rpartition(".")
        fn = getattr(spaces[where], f)
        have = set(getattr(fn, "torch_kwargs", ())) | _own_params(fn)
        assert set(kws) <= have, name


# Paddle 3.3.1's documented aliases the derivation misses (param_aliases.EXTRA_ALIASES): the
# alias call (accepted there) and the same call with the parameter's own name
A = "paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])"
V = "paddle.to_tensor([1.0, 2.0, 3.0])"
EXTRA_CALLS = {
    "broadcast_to": (f"paddle.broadcast_to({V}, size=[2, 3])",
                     f"paddle.broadcast_to({V}, shape=[2, 3])"),
    "expand": (f"paddle.expand({V}, size=[2, 3])", f"paddle.expand({V}, shape=[2, 3])"),
    "bucketize": (f"paddle.bucketize({A}, boundaries=paddle.to_tensor([2.0, 4.0]))",
                  f"paddle.bucketize({A}, sorted_sequence=paddle.to_tensor([2.0, 4.0]))"),
    "cat": (f"paddle.cat(tensors=[{A}, {A}], dim=0)", f"paddle.cat(x=[{A}, {A}], axis=0)"),
    "concat": (f"paddle.concat(tensors=[{A}, {A}])", f"paddle.concat(x=[{A}, {A}])"),
    "concatenate": (f"paddle.concatenate(tensors=[{A}])", f"paddle.concatenate(x=[{A}])"),
    "stack": (f"paddle.stack(tensors=[{A}, {A}])", f"paddle.stack(x=[{A}, {A}])"),
    "eye": ("paddle.eye(n=2, m=3)", "paddle.eye(num_rows=2, num_columns=3)"),
    "group_norm": (f"paddle.group_norm({A}.reshape([1, 2, 3]), 1, eps=0.5)",
                   f"paddle.group_norm({A}.reshape([1, 2, 3]), 1, epsilon=0.5)"),
    "layer_norm": (f"paddle.layer_norm({A}, [3], eps=0.5)",
                   f"paddle.layer_norm({A}, [3], epsilon=0.5)"),
    "nn.functional.group_norm": (f"F.group_norm({A}.reshape([1, 2, 3]), 1, eps=0.5)",
                                 f"F.group_norm({A}.reshape([1, 2, 3]), 1, epsilon=0.5)"),
    "nn.functional.layer_norm": (f"F.layer_norm({A}, [3], eps=0.5)",
                                 f"F.layer_norm({A}, [3], epsilon=0.5)"),
    "index_add": (f"paddle.index_add({A}, paddle.to_tensor([0]), 0, source={A}[:1])",
                  f"paddle.index_add({A}, paddle.to_tensor([0]), 0, value={A}[:1])"),
    "is_tensor": (f"paddle.is_tensor(obj={A})", f"paddle.is_tensor(x={A})"),
    "isin": (f"paddle.isin(elements={A}, test_elements=paddle.to_tensor([2.0]))",
             f"paddle.isin(x={A}, test_x=paddle.to_tensor([2.0]))"),
    "linalg.solve": ("paddle.linalg.solve(A=paddle.to_tensor([[2.0, 0.0], [0.0, 4.0]]), "
                     "B=paddle.to_tensor([[2.0], [4.0]]))",
                     "paddle.linalg.solve(x=paddle.to_tensor([[2.0, 0.0], [0.0, 4.0]]), "
                     "y=paddle.to_tensor([[2.0], [4.0]]))"),
    "linspace": ("paddle.linspace(0, end=1, steps=3)", "paddle.linspace(0, stop=1, num=3)"),
    "normal": ("paddle.normal(0.0, 1.0, size=[2])", "paddle.normal(0.0, 1.0, shape=[2])"),
    "pow": (f"paddle.pow({A}, exponent=2)", f"paddle.pow({A}, y=2)"),
    "roll": (f"paddle.roll({A}, 1, dims=0)", f"paddle.roll({A}, 1, axis=0)"),
    "searchsorted": ("paddle.searchsorted(paddle.to_tensor([1.0, 3.0]), "
                     "input=paddle.to_tensor([2.0]))",
                     "paddle.searchsorted(paddle.to_tensor([1.0, 3.0]), "
                     "values=paddle.to_tensor([2.0]))"),
    "take_along_axis": (f"paddle.take_along_axis(input={A}, "
                        "indices=paddle.to_tensor([[0, 1, 0]]), axis=0)",
                        f"paddle.take_along_axis(arr={A}, "
                        "indices=paddle.to_tensor([[0, 1, 0]]), axis=0)"),
    "take_along_dim": (f"paddle.take_along_dim(input={A}, "
                       "indices=paddle.to_tensor([[0, 1, 0]]), dim=0)",
                       f"paddle.take_along_dim(arr={A}, "
                       "indices=paddle.to_tensor([[0, 1, 0]]), axis=0)"),
    "tensor_split": (f"paddle.tensor_split({A}, sections=3, dim=1)",
                     f"paddle.tensor_split({A}, num_or_indices=3, axis=1)"),
    "tile": ("paddle.tile(paddle.to_tensor([1.0, 2.0]), dims=[2])",
             "paddle.tile(paddle.to_tensor([1.0, 2.0]), repeat_times=[2])"),
    "unflatten": (f"paddle.unflatten({V}[:2], 0, sizes=[2, 1])",
                  f"paddle.unflatten({V}[:2], 0, shape=[2, 1])"),
    "unfold": (f"paddle.unfold({V}, dimension=0, size=2, step=1)",
               f"paddle.unfold({V}, axis=0, size=2, step=1)"),
    "nn.functional.adaptive_max_pool1d": (
        f"F.adaptive_max_pool1d({A}.reshape([1, 2, 3]), 1, return_indices=True)",
        f"F.adaptive_max_pool1d({A}.reshape([1, 2, 3]), 1, return_mask=True)"),
    "nn.functional.adaptive_max_pool2d": (
        f"F.adaptive_max_pool2d({A}.reshape([1, 1, 2, 3]), 1, return_indices=True)",
        f"F.adaptive_max_pool2d({A}.reshape([1, 1, 2, 3]), 1, return_mask=True)"),
    "nn.functional.adaptive_max_pool3d": (
        f"F.adaptive_max_pool3d({A}.reshape([1, 1, 1, 2, 3]), 1, return_indices=True)",
        f"F.adaptive_max_pool3d({A}.reshape([1, 1, 1, 2, 3]), 1, return_mask=True)"),
    "nn.functional.hardshrink": (f"F.hardshrink({A}, lambd=2.5)",
                                 f"F.hardshrink({A}, threshold=2.5)"),
    "nn.functional.softshrink": (f"F.softshrink({A}, lambd=2.5)",
                                 f"F.softshrink({A}, threshold=2.5)"),
}
for _n in ("div_", "divide_", "multiply_", "sub_", "subtract_", "lcm_"):
    _a, _b = ("paddle.to_tensor([4, 6])", "paddle.to_tensor([2, 4])") if _n == "lcm_" else \
        ("paddle.to_tensor([4.0, 6.0])", "paddle.to_tensor([2.0, 4.0])")
    EXTRA_CALLS[_n] = (f"paddle.{_n}(input={_a}, other={_b})", f"paddle.{_n}({_a}, {_b})")


def test_every_extra_alias_has_a_call_here():
    from jitgrad.core.param_aliases import EXTRA_ALIASES
    assert set(EXTRA_CALLS) == set(EXTRA_ALIASES)


@pytest.mark.parametrize("name", sorted(EXTRA_CALLS))
def test_each_extra_alias_gives_the_named_calls_result(name):
    alias, own = EXTRA_CALLS[name]
    e = {"paddle": paddle, "F": paddle.nn.functional}
    paddle.seed(3)
    a = eval(alias, e)
    paddle.seed(3)
    b = eval(own, e)
    if isinstance(a, bool):
        assert a is b
    else:
        assert_same(values(a), values(b))


def test_extra_aliases_values_as_paddle():
    # (values printed by Paddle 3.3.1 for the same calls)
    assert paddle.eye(n=2, m=3).numpy().tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert paddle.linspace(0, end=1, steps=3).numpy().tolist() == [0.0, 0.5, 1.0]
    x = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert paddle.bucketize(x, boundaries=TT([2.0, 4.0])).numpy().tolist() == \
        [[0, 0, 1], [1, 2, 2]]
    assert paddle.nn.functional.softshrink(x, lambd=2.5).numpy().tolist() == \
        [[0.0, 0.0, 0.5], [1.5, 2.5, 3.5]]


def test_an_sgd_step_through_out_keeps_the_parameter_a_leaf():
    # (the same values, is_leaf and stop_gradient as Paddle 3.3.1)
    p = TT([1.0, 2.0], stop_gradient=False)
    (p * p).sum().backward()
    with paddle.no_grad():
        assert paddle.subtract(p, p.grad * 0.5, out=p) is p
    assert p.numpy().tolist() == [0.0, 0.0] and p.is_leaf and p.stop_gradient is False
    p.clear_gradient()
    (p * 3.0).sum().backward()
    assert p.grad.numpy().tolist() == [3.0, 3.0]


def test_out_leaf_that_needs_grad_takes_a_results_graph():
    x = TT([1.0, 2.0], stop_gradient=False)
    o = TT([0.0, 0.0], stop_gradient=False)
    paddle.multiply(x, x, out=o)
    assert not o.is_leaf and o.stop_gradient is False
    o.sum().backward()
    assert x.grad.numpy().tolist() == [2.0, 4.0] and o.grad is None


def test_an_in_place_function_takes_input_and_other_and_changes_input():
    a = TT([4.0, 6.0])
    assert paddle.sub_(input=a, other=TT([1.0, 2.0])) is a
    assert a.numpy().tolist() == [3.0, 4.0]


def test_methods_take_the_extra_aliases_paddles_methods_take():
    x = TT([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x.index_add(TT([0]), 0, source=TT([[1.0, 1.0, 1.0]])).numpy().tolist() == \
        [[2.0, 3.0, 4.0], [4.0, 5.0, 6.0]]
    assert [t.numpy().tolist() for t in x.tensor_split(indices=[1], dim=1)] == \
        [[[1.0], [4.0]], [[2.0, 3.0], [5.0, 6.0]]]
    assert len(x.tensor_split(sections=3, dim=1)) == 3
    assert TT([1.0, 2.0, 3.0, 4.0]).unflatten(0, sizes=[2, 2]).numpy().tolist() == \
        [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(TypeError):          # (refused by Paddle's method too)
        x.take_along_axis(input=TT([[0, 1, 0]]), axis=0)
