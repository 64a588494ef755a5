"""What a user porting Paddle code tries: bad input gets a clear TypeError/ValueError (never
a bare numpy traceback, never a silent no-op), small API conveniences, and aliasing cases that
used to give silently wrong gradients. Item numbers refer to PADDLE_SEMANTICS.md.
"""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor
F = paddle.nn.functional


def leaf(values, dtype="float32"):
    return TT(values, dtype=dtype, stop_gradient=False)


# ---- bad input: clear errors, never a bare numpy traceback or a silent no-op ---------------

@pytest.mark.parametrize("make", [
    lambda: TT([1, 2]).sum(),                                   # int64
    lambda: TT([1.0, 2.0], stop_gradient=False) > 1.0,          # bool
    lambda: TT([1.5, 2.5], stop_gradient=False).astype("int64"),
])
def test_backward_from_an_integer_or_bool_tensor_is_a_type_error(make):
    # Paddle silently does nothing (or, for a cast, sends a gradient through the cast);
    # jitgrad says that integer results carry no gradient (M.62's rule, from the output side).
    y = make()
    with pytest.raises(TypeError, match=r"tensors\[0\] has dtype (int64|bool)"):
        y.backward()
    with pytest.raises(TypeError, match=r"tensors\[1\]"):
        paddle.autograd.backward([leaf([1.0]) * 2, y])
    with pytest.raises(TypeError, match=r"outputs\[0\]"):
        paddle.grad(y, leaf([1.0]), allow_unused=True)


def test_backward_on_a_non_scalar_without_seed_uses_ones():
    # B.10: no error (unlike torch), the seed is ones.
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    (x * x).backward()
    assert x.grad.tolist() == [[2.0, 4.0], [6.0, 8.0]]


def test_grad_of_a_stop_gradient_output_is_a_value_error_naming_allow_unused():
    # F.32: an output with no gradient path reaches no input.
    x = leaf([1.0])
    with pytest.raises(ValueError, match="0-th input.*allow_unused=True"):
        paddle.grad(TT([1.0]) * 2, x)


@pytest.mark.parametrize("bad_seed, err, match", [
    (np.ones(2, np.float32), TypeError, "grad_tensors"),
    ([np.ones(2, np.float32)], TypeError, r"grad_tensors\[0\]"),
    ([1.0, 1.0], ValueError, "2 entries"),
    (TT([1.0, 2.0, 3.0]), ValueError, "3 elements"),
])
def test_bad_seeds_are_clear_errors_and_change_nothing(bad_seed, err, match):
    # B.9, M.58, M.60
    x = leaf([1.0, 2.0])
    y = x * 2
    with pytest.raises(err, match=match):
        paddle.autograd.backward(y, bad_seed)
    assert x.grad is None
    y.backward()                                           # the graph was not freed
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("call", [
    lambda: paddle.exp([1.0, 2.0]), lambda: paddle.sum(np.ones(3)),
    lambda: paddle.reshape([1.0, 2.0], [2]), lambda: F.softmax(np.ones(3)),
    lambda: F.gelu([1.0]), lambda: paddle.concat([[1.0], [2.0]]),
    lambda: paddle.stack([TT([1.0]), [2.0]]), lambda: paddle.mean(x=[1.0]),
])
def test_ops_given_a_list_or_array_raise_type_error_naming_the_argument(call):
    with pytest.raises(TypeError, match=r"argument 'x' must be .*to_tensor"):
        call()


def test_ops_still_take_python_scalars_where_paddle_does():
    x = TT([1.0, 2.0])
    assert paddle.add(x, 1.0).tolist() == [2.0, 3.0]
    assert (2.0 - x).tolist() == [1.0, 0.0] and (2.0 ** x).tolist() == [2.0, 4.0]
    assert paddle.concat((x, x)).shape == [4]
    assert F.tanh is paddle.tanh


def test_to_tensor_ragged_list_is_a_value_error():
    with pytest.raises(ValueError, match="rectangular"):
        TT([[1.0, 2.0], [3.0]])


def test_mismatched_shapes_are_value_errors():
    with pytest.raises(ValueError, match="broadcast"):
        TT([1.0, 2.0]) + TT([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="matmul"):
        paddle.matmul(TT(np.ones((2, 3), np.float32)), TT(np.ones((2, 3), np.float32)))


# ---- H.39-41: what a hook may return ------------------------------------------------------------

@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("on_leaf", [False, True])
def test_hook_returning_an_int_tensor_is_a_type_error_on_every_path(create_graph, on_leaf):
    # M.61's rule, extended: the compiled path used to cast silently, the eager one failed
    # deep inside with an int/float promotion error.
    x = leaf([1.0, 2.0])
    y = x * 2
    (x if on_leaf else y).register_hook(lambda g: TT([1, 1]))
    with pytest.raises(TypeError, match="float Tensor, got int64"):
        (y * 3).sum().backward(create_graph=create_graph)


@pytest.mark.parametrize("create_graph", [False, True])
def test_hook_returning_float64_for_a_float32_gradient_raises_as_paddle(create_graph):
    x = leaf([1.0, 2.0])
    y = x * 2
    y.register_hook(lambda g: g.astype("float64") * 2)
    with pytest.raises(RuntimeError, match=r"astype\('float32'\)"):
        (y * 3).sum().backward(create_graph=create_graph)
    assert x.grad is None


# ---- porting scripts: Paddle's small API surface around tensors -----------------------------------

def test_tensor_dim_is_a_method_and_ndim_a_property():
    x = TT(np.zeros((2, 3), np.float32))
    assert x.dim() == 2 and x.ndim == 2 and TT(1.0).dim() == 0
    assert x.is_floating_point() and not TT([1]).is_floating_point()
    assert paddle.is_floating_point(x)


def test_device_and_mode_switches_of_a_cpu_script():
    # (Paddle 3.3.1's set_device returns the place: Place(cpu), a CPUPlace)
    assert paddle.set_device("cpu") == paddle.CPUPlace() and paddle.get_device() == "cpu"
    with pytest.raises(ValueError, match="CPU only"):
        paddle.set_device("gpu:0")
    assert paddle.disable_static() is None and paddle.in_dynamic_mode() is True
    with pytest.raises(NotImplementedError):
        paddle.enable_static()
    t = TT([1.0], place=paddle.CPUPlace())
    assert paddle.is_tensor(t) and not paddle.is_tensor(t.numpy())
    assert isinstance(t.dtype, paddle.dtype)


def test_floor_divide_operator():
    x = TT([5.0, -3.0], stop_gradient=False)
    y = x // 2
    assert y.tolist() == [2.0, -2.0] and y.dtype == paddle.float32 and y.stop_gradient
    assert (TT([7, -7]) // TT([2, 2])).tolist() == [3, -4] and (7 // TT([2])).tolist() == [3]


def test_remainder_operator_and_its_gradient():
    x = TT([5.0, -3.0], stop_gradient=False)
    y = x % 2
    assert y.tolist() == [1.0, 1.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("vm_name", ["numba", "reference"])
def test_remainder_takes_the_divisors_sign_and_its_gradients(vm_name):
    # Paddle's remainder/mod/floor_mod: x - floor(x / y) * y; d/dx 1, d/dy -floor(x / y).
    with paddle.vm.using(vm_name):
        x = TT([5.0, -5.0, 5.0, -5.0, 7.5], dtype="float64", stop_gradient=False)
        y = TT([3.0, 3.0, -3.0, -3.0, 2.0], dtype="float64", stop_gradient=False)
        r = paddle.remainder(x, y)
        assert r.tolist() == [2.0, 1.0, -1.0, -2.0, 1.5]
        assert paddle.mod(x, y).tolist() == paddle.floor_mod(x, y).tolist() == (x % y).tolist()
        assert x.remainder(y).tolist() == r.tolist() and (8.0 % y).tolist()[:2] == [2.0, 2.0]
        (r * TT([1.0, 2.0, 3.0, 4.0, 5.0], dtype="float64")).sum().backward()
        assert x.grad.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
        assert y.grad.tolist() == [-1.0, 2 * 2.0, 3 * 2.0, -4 * 1.0, -5 * 3.0]
        assert (TT([7, -7]) % TT([3, 3])).tolist() == [1, 2]
        with pytest.raises(ValueError, match="division by zero"):
            TT([7]) % 0


def test_stop_gradient_accepts_only_bools():
    # E.27: Paddle's setter takes a bool; a truthy string used to mean True silently.
    x = TT([1.0])
    for bad in ("no", 0, 1, None):
        with pytest.raises(TypeError, match="stop_gradient must be True or False"):
            x.stop_gradient = bad
    x.stop_gradient = np.bool_(False)
    assert x.stop_gradient is False


# ---- retained programs are cached per graph: a recycled id must not pick a stale one ------------

def _tensor_with_recycled_id(old_id, make):
    """Call make() until a result lands on `old_id` (CPython reuses a freed slot)."""
    keep = []
    for _ in range(200):
        t = make()
        if id(t) == old_id:
            return t
        keep.append(t)
    pytest.skip("CPython did not recycle the id here; the stale-cache case cannot arise")


def test_backward_after_a_roots_id_is_recycled_uses_the_new_graph():
    # Was a silent wrong result: the cached program of the dead z2 ran for z3 ([5, 5]).
    x = leaf([1.0, 2.0])
    w = TT([7.0, 7.0])
    z1, z2 = x * 2, x * 3
    paddle.autograd.backward([z1, z2], retain_graph=True)
    old = id(z2)
    del z2
    z3 = _tensor_with_recycled_id(old, lambda: x * w)
    x.clear_grad()
    paddle.autograd.backward([z1, z3], retain_graph=True)
    assert x.grad.tolist() == [9.0, 9.0]


def test_grad_after_an_outputs_id_is_recycled_uses_the_new_graph():
    x = leaf([1.0, 2.0])
    w = TT([7.0, 7.0])
    z1, z2 = x * 2, x * 3
    assert paddle.grad([z1, z2], x, retain_graph=True)[0].tolist() == [5.0, 5.0]
    old = id(z2)
    del z2
    z3 = _tensor_with_recycled_id(old, lambda: x * w)
    assert paddle.grad([z1, z3], x)[0].tolist() == [9.0, 9.0]


@pytest.mark.parametrize("create_graph", [False, True])
def test_roots_may_be_leaves_or_inside_other_roots_graphs(create_graph):
    # B.8-9, F.35: every root is seeded (ones or its seed) and all paths add up.
    x = leaf([1.0, 2.0])
    paddle.autograd.backward([x * 2, x], create_graph=create_graph)
    assert x.grad.tolist() == [3.0, 3.0]
    x = leaf([1.0, 2.0])
    y = x * 3
    y.retain_grads()
    z = y * y                                          # dz/dy = 2y = [6, 12]
    paddle.autograd.backward([z, y], [None, TT([10.0, 10.0])], create_graph=create_graph)
    assert y.grad.tolist() == [16.0, 22.0] and x.grad.tolist() == [48.0, 66.0]
    x = leaf([1.0, 2.0])
    y = x * 3
    gy, gx = paddle.grad([y * y, y], [y, x], create_graph=create_graph)
    assert gy.tolist() == [7.0, 13.0] and gx.tolist() == [21.0, 39.0]


def test_linear_parameters_follow_the_default_dtype():
    paddle.set_default_dtype("float64")
    try:
        layer = paddle.nn.Linear(3, 2)
        others = [paddle.nn.Conv2D(1, 2, 3), paddle.nn.Conv1D(1, 2, 3),
                  paddle.nn.BatchNorm2D(2), paddle.nn.LayerNorm(4), paddle.nn.Embedding(5, 3),
                  # (these five stayed float32; Paddle 3.3.1 makes them float64)
                  paddle.nn.PReLU(), paddle.nn.Bilinear(3, 4, 5), paddle.nn.GroupNorm(2, 4),
                  paddle.nn.HSigmoidLoss(4, 5), paddle.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])]
    finally:
        paddle.set_default_dtype("float32")
    assert layer.weight.dtype == paddle.float64 and layer.bias.dtype == paddle.float64
    assert {p.dtype for m in others for p in m.parameters()} == {paddle.float64}
    x = TT(np.arange(6.0).reshape(2, 3), dtype="float64")
    assert layer(x).dtype == paddle.float64
    assert others[5](x).dtype == paddle.float64                         # PReLU
    assert paddle.nn.Linear(3, 2).weight.dtype == paddle.float32      # after the reset


def test_np_asarray_of_a_tensor_is_a_copy():
    # Was silently wrong: np.asarray(x) shared x's memory, so writing into it changed x
    # (and the values its graph saved) without any version bump.
    x = leaf([1.0, 2.0])
    y = x * x
    a = np.asarray(x)
    a[0] = 100.0
    y.sum().backward()
    assert x.tolist() == [1.0, 2.0] and x.grad.tolist() == [2.0, 4.0]
    assert np.asarray(x, dtype=np.float64).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("create_graph", [False, True])
def test_inplace_ops_on_x_grad_under_no_grad_change_x_grad(create_graph):
    # C.18: x.grad shares the accumulator, so an in-place op on it (manual clipping, a
    # torch-style p.grad.zero_()) changes x's gradient. It used to change a private copy.
    x = leaf([1.0, 2.0])
    (x * x).sum().backward(create_graph=create_graph)
    g = x.grad
    with paddle.no_grad():
        x.grad.multiply_(TT([0.5, 0.5]))
        assert x.grad.tolist() == [1.0, 2.0] and g.tolist() == [1.0, 2.0]
        g[0] = 7.0
        assert x.grad.tolist() == [7.0, 2.0]
        x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    # A recorded (create_graph) gradient keeps its values; a plain wrapper sees the sum.
    assert g.tolist() == ([0.0, 0.0] if create_graph else [3.0, 3.0])
    with pytest.raises(ValueError, match="in place"):     # outside no_grad, as in Paddle
        x.grad.zero_()


def test_inplace_on_a_detached_copy_leaves_x_alone_and_a_grad_wrapper_writes_through():
    # Copy-on-write stays the rule for everything else (ops/inplace.py). A detached copy
    # shares x's version counter (Paddle): the backward that read x refuses.
    x = leaf([1.0, 2.0])
    y = x * x
    d = x.detach()
    d.add_(TT([10.0, 10.0]))
    assert x.tolist() == [1.0, 2.0] and x.inplace_version == 1
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]
    old = x.grad
    x.grad = TT([5.0, 5.0])            # copied into the accumulator old wraps (Paddle 3.3.1)
    assert old.tolist() == [5.0, 5.0]
    with paddle.no_grad():
        old.zero_()                    # a .grad wrapper writes through (Paddle, measured)
    assert x.grad.tolist() == [0.0, 0.0] and old.tolist() == [0.0, 0.0]


def test_overwriting_a_slice_with_a_function_of_itself():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    y[1:] = y[1:] * 3
    (y * TT([1.0, 10.0, 100.0])).sum().backward()
    assert y.tolist() == [2.0, 12.0, 18.0] and x.grad.tolist() == [2.0, 60.0, 600.0]


@pytest.mark.parametrize("create_graph", [False, True])
def test_setitem_on_a_non_leaf_routes_gradients_to_the_value(create_graph):
    # E.28: x[key] = v on a non-leaf is recorded; overwritten positions get no gradient.
    x = leaf([1.0, 2.0, 3.0])
    v = leaf(5.0)
    y = x * 2
    y[0] = v * 1
    (y * TT([1.0, 10.0, 100.0])).sum().backward(create_graph=create_graph)
    assert y.tolist() == [5.0, 4.0, 6.0]
    assert x.grad.tolist() == [0.0, 20.0, 200.0] and v.grad.item() == 1.0


@pytest.mark.parametrize("vm_name", ["numba", "reference"])
def test_rebuilt_identical_graphs_with_a_cast_give_each_new_leaf_its_own_gradient(vm_name):
    # A training loop rebuilds the same graph every step with fresh leaves; a float32 leaf
    # whose graph runs in float64 (astype) must get its own gradient each time (C.15 is
    # per tensor). Guards graph-structure caches against leaking a slot between leaves.
    with paddle.vm.using(vm_name):
        seen = []
        for _ in range(3):
            x = leaf([1.0, 2.0])
            (x.astype("float64") ** 2).sum().backward()
            seen.append((x.grad.dtype, x.grad.tolist()))
    assert seen == [(paddle.float32, [2.0, 4.0])] * 3


@pytest.mark.parametrize("vm_name", ["numba", "reference"])
def test_float32_leaf_in_a_float64_graph_accumulates_exactly_on_replay(vm_name):
    # A.3 + C.15/D.21: float32 x times a float64 constant runs in float64; each retained
    # replay adds one gradient. The fast path used to leave the float64 slot of a float32
    # leaf un-zeroed, so replays added 1x, 2x, 3x ... ([3, 4] -> [9, 12] -> [18, 24]).
    with paddle.vm.using(vm_name):
        x = leaf([1.0, 2.0])
        loss = (x * TT(np.array([3.0, 4.0]))).sum()
        seen = []
        for _ in range(3):
            loss.backward(retain_graph=True)
            seen.append(x.grad.tolist())
        x.clear_grad()
        loss.backward()
        seen.append(x.grad.tolist())
    assert seen == [[3.0, 4.0], [6.0, 8.0], [9.0, 12.0], [3.0, 4.0]]
    assert x.grad.dtype == paddle.float32
