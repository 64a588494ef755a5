"""Audit against PADDLE_SEMANTICS.md (Paddle 3.3.1): the items no other test pinned.

Each test names the item it pins (`# A.5` = section A, item 5). User-level porting checks
(bad input, aliasing) are in test_porting_user.py.
"""

import contextlib
import inspect
import io

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor
F = paddle.nn.functional


def leaf(values, dtype="float32"):
    return TT(values, dtype=dtype, stop_gradient=False)


def text(shape, sg, body, dtype="float32"):
    """Paddle's printed form of a tensor whose data lines are `body`."""
    return (f"Tensor(shape={shape}, dtype={dtype}, place=Place(cpu), stop_gradient={sg},\n"
            f"       {body})")


# ---- A. printing -------------------------------------------------------------------------------

def test_print_wraps_a_long_row_at_80_columns():
    # A.5: Paddle's to_string puts (80 - indent) // (width + 2) items on a line.
    assert str(TT([0.1] * 10)) == text([10], True, (
        "[0.10000000, 0.10000000, 0.10000000, 0.10000000, 0.10000000, 0.10000000,\n"
        "        0.10000000, 0.10000000, 0.10000000, 0.10000000]"))


def test_print_wraps_rows_of_a_matrix_under_their_first_item():
    # A.5: inner rows are indented one more, so 14 items of width 3 fit per line.
    m = TT(np.arange(30.0, dtype=np.float32).reshape(2, 15))
    assert str(m) == text([2, 15], True, (
        "[[0. , 1. , 2. , 3. , 4. , 5. , 6. , 7. , 8. , 9. , 10., 11., 12., 13.,\n"
        "         14.],\n"
        "        [15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27., 28.,\n"
        "         29.]]"))


def test_set_printoptions_linewidth():
    try:
        paddle.set_printoptions(linewidth=32)        # (32 - 7) // (10 + 2) = 2 per line
        assert str(TT([1.5, 2.5, 3.5])) == text([3], True, "[1.50000000, 2.50000000,\n"
                                                          "        3.50000000]")
    finally:
        paddle.set_printoptions(linewidth=80)
    with pytest.raises(TypeError, match="linewidth"):
        paddle.set_printoptions(linewidth=80.0)


def test_print_empty_tensors():
    # A.5: Paddle prints [] for a tensor with a zero dimension (this used to crash).
    assert str(TT(np.zeros((0, 3), np.float32))) == text([0, 3], True, "[]")
    assert str(TT(np.zeros((2, 0), np.float32))) == text([2, 0], True, "[[],\n        []]")


def test_print_inf_and_nan_like_paddle():
    # A.5: ceil(inf) == inf, so Paddle prints `inf.`; nan takes the 8-decimal branch.
    assert str(TT([np.inf, -np.inf, np.nan, 1.5])) == text(
        [4], True, "[ inf.     , -inf.     ,  nan      , 1.50000000]")


def test_format_spec_needs_a_0d_tensor():
    # A.5: format specs work on 0-d tensors only (Paddle defers to object.__format__).
    assert "{:.3f}".format(paddle.sum(TT([1.0, 1.5]))) == "2.500"
    with pytest.raises(TypeError):
        "{:.2f}".format(TT([2.5]))


def test_float64_prints_its_dtype_and_8_decimals():
    # A.1/A.5: a float64 array stays float64 and prints with the same layout.
    assert str(TT(np.array([1.5, 2.0]))) == text([2], True, "[1.50000000, 2.        ]",
                                                 dtype="float64")


# ---- A.4: 0-d tensors everywhere ------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda z: paddle.sum(z, axis=0), lambda z: paddle.mean(z, axis=-1),
    lambda z: paddle.max(z, axis=0), lambda z: paddle.min(z, axis=-1, keepdim=True),
    lambda z: paddle.sum(z, axis=[0])])
def test_reducing_a_0d_tensor_over_axis_0_or_minus_1_gives_0d(fn):
    # A.4: Paddle accepts axis 0 / -1 on a 0-d tensor (this used to raise numpy's AxisError).
    z = leaf(2.5)
    y = fn(z)
    assert y.shape == [] and y.item() == 2.5
    (g,) = paddle.grad(y, z)
    assert g.shape == [] and g.item() == 1.0


def test_reducing_a_0d_tensor_over_axis_1_is_a_value_error():
    with pytest.raises(ValueError, match="out of range"):
        paddle.sum(TT(2.0), axis=1)


@pytest.mark.parametrize("create_graph", [False, True])
def test_0d_leaf_gets_a_0d_grad_on_every_path(create_graph):
    # A.4: a 0-d leaf's grad is 0-d, compiled or eager, with a retained non-leaf too.
    z = leaf(3.0)
    h = z * z
    h.retain_grads()
    loss = paddle.exp(h) * 0 + h * 2
    loss.backward(retain_graph=True, create_graph=create_graph)
    assert z.grad.shape == [] and z.grad.item() == 12.0
    assert h.grad.shape == [] and h.grad.item() == 2.0
    assert paddle.grad(h * 3, z, create_graph=create_graph)[0].shape == []


# ---- A.1, A.3: float64 stays float64 through every path --------------------------------------------

def _f64_graph(x, w):
    h = paddle.tanh(paddle.matmul(x, w))
    h.register_hook(lambda g: g * 2)
    return paddle.sum(F.softmax(h, axis=-1) * h) + paddle.mean(paddle.exp(x) * 1.5)


@pytest.mark.parametrize("vm_name", ["numba", "reference"])
def test_float64_stays_float64_compiled_and_replayed(vm_name):
    rng = np.random.default_rng(0)
    xv, wv = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    x, w = TT(xv, stop_gradient=False), TT(wv, stop_gradient=False)
    assert x.dtype == paddle.float64
    loss = _f64_graph(x, w)
    assert loss.dtype == paddle.float64 and loss.shape == []
    with paddle.vm.using(vm_name):
        loss.backward(retain_graph=True)
        first = x.grad.numpy()
        loss.backward()                                   # the replay
    assert x.grad.dtype == w.grad.dtype == paddle.float64
    np.testing.assert_allclose(x.grad.numpy(), 2 * first, rtol=1e-14)
    # The compiled result equals the eager rules' result to float64 precision.
    x2, w2 = TT(xv, stop_gradient=False), TT(wv, stop_gradient=False)
    gx, gw = paddle.grad(_f64_graph(x2, w2), [x2, w2], create_graph=True)
    assert gx.dtype == gw.dtype == paddle.float64
    np.testing.assert_allclose(first, gx.numpy(), rtol=1e-13, atol=1e-15)


def test_float64_through_pylayer_and_double_grad():
    class Cube(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, v):
            ctx.save_for_backward(v)
            return v ** 3

        @staticmethod
        def backward(ctx, g):
            (v,) = ctx.saved_tensor()
            return g * 3 * v * v

    x = TT(np.array([0.1, 0.2]), stop_gradient=False)
    y = Cube.apply(x)
    assert y.dtype == paddle.float64
    (d1,) = paddle.grad(y.sum(), x, create_graph=True)
    (d2,) = paddle.grad(d1.sum(), x)
    assert d1.dtype == d2.dtype == paddle.float64
    np.testing.assert_allclose(d2.numpy(), [0.6, 1.2], rtol=1e-15)   # 6x, exact in float64
    y.sum().backward()
    assert x.grad.dtype == paddle.float64
    np.testing.assert_allclose(x.grad.numpy(), [0.03, 0.12], rtol=1e-15)


def test_float32_leaf_with_float64_constant_gets_a_float32_grad():
    # A.3: float32 op float64 gives float64; the float32 leaf's grad comes back float32.
    x = leaf([1.0, 2.0])
    y = x * TT(np.array([3.0, 4.0]))
    assert y.dtype == paddle.float64
    y.sum().backward()
    assert x.grad.dtype == paddle.float32 and x.grad.tolist() == [3.0, 4.0]


# ---- B.7, F.29, M.63: signatures -------------------------------------------------------------

def _params(fn):
    return [(p.name, p.kind.name, p.default) for p in inspect.signature(fn).parameters.values()]


def test_backward_signatures_match_paddle_plus_create_graph():
    pk, kw = "POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY"
    empty = inspect.Parameter.empty
    # retain_graph's default None means False (True with create_graph): see its docstring.
    assert _params(paddle.autograd.backward) == [
        ("tensors", pk, empty), ("grad_tensors", pk, None), ("retain_graph", pk, None),
        ("create_graph", pk, False), ("dump_backward_graph_path", kw, None)]
    assert _params(paddle.Tensor.backward) == [
        ("self", pk, empty), ("grad_tensor", pk, None), ("retain_graph", pk, None),
        ("create_graph", pk, False), ("dump_backward_graph_path", kw, None)]
    with pytest.raises(TypeError):
        paddle.autograd.backward(leaf([1.0]) * 2, None, False, False, None)  # dump: keyword


def test_grad_signature_matches_paddle():
    pk, kw = "POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY"
    empty = inspect.Parameter.empty
    assert _params(paddle.grad) == [
        ("outputs", pk, empty), ("inputs", pk, empty), ("grad_outputs", pk, None),
        ("retain_graph", pk, None), ("create_graph", pk, False), ("only_inputs", pk, True),
        ("allow_unused", pk, False), ("no_grad_vars", pk, None),
        ("dump_backward_graph_path", kw, None),
        ("batched", kw, False)]               # jitgrad's extension: keyword-only, after
    assert paddle.autograd.grad is paddle.grad


def test_retain_graph_default_frees_and_positional_true_retains():
    # B.7: the third positional argument is retain_graph (the docstring seed passes True).
    x = leaf([1.0])
    y = x * 3
    paddle.autograd.backward(y, None, True)
    paddle.autograd.backward(y)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        paddle.autograd.backward(y)
    assert x.grad.tolist() == [6.0]


# ---- C.16 ----------------------------------------------------------------------------------------

def test_clear_gradient_is_the_deprecated_alias_of_clear_grad():
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    kept = x.grad
    x.clear_gradient()
    assert x.grad.tolist() == [0.0, 0.0] and kept.tolist() == [0.0, 0.0]


def test_clear_gradient_false_drops_the_gradient():
    # (Paddle 3.3.1: clear_gradient(set_to_zero=True, /); False leaves .grad None)
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    x.clear_gradient(False)
    assert x.grad is None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    (x * 3).sum().backward()
    x.clear_gradient(set_to_zero=False)             # by name too, as Paddle's docs say
    assert x.grad is None


# ---- E.28: in-place ops ----------------------------------------------------------------------------

def test_inplace_op_on_a_leaf_that_needs_grad_is_a_value_error():
    x = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="in place"):
        x.add_(TT([1.0, 1.0]))
    with pytest.raises(ValueError, match="in place"):
        x[0] = 5.0
    assert x.tolist() == [1.0, 2.0]
    with paddle.no_grad():                             # the optimizer's way
        x.add_(TT([1.0, 1.0]))
    assert x.tolist() == [2.0, 3.0] and x.stop_gradient is False


# ---- I.44 ------------------------------------------------------------------------------------------

def test_bare_no_grad_decorator_is_a_type_error_with_a_hint():
    with pytest.raises(TypeError, match=r"@no_grad\(\)"):
        @paddle.no_grad
        def f(t):
            return t * 2


# ---- K.50-51 ----------------------------------------------------------------------------------------

def test_leaky_relu_gradient_at_zero_is_one():
    # K.50: Paddle's leaky_relu'(0) = 1 (torch gives the slope).
    x = leaf([-1.0, 0.0, 2.0])
    F.leaky_relu(x, negative_slope=0.1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.1, 1.0, 1.0], rtol=1e-7)


@pytest.mark.parametrize("labels", [[2, 0], [[2], [0]]])
def test_cross_entropy_labels_n_or_n1_mean_of_softmax_log_loss(labels):
    # K.51: labels [N] or [N, 1]; mean reduction with softmax applied.
    logits = np.array([[1.0, 2.0, 3.0], [0.5, -0.5, 0.0]])
    x = TT(logits, stop_gradient=False)
    loss = F.cross_entropy(x, TT(labels))
    assert loss.shape == [] and loss.dtype == paddle.float64
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    want = -np.mean(np.log(p[[0, 1], [2, 0]]))
    np.testing.assert_allclose(loss.item(), want, rtol=1e-14)
    loss.backward()
    onehot = np.eye(3)[[2, 0]]
    np.testing.assert_allclose(x.grad.numpy(), (p - onehot) / 2, rtol=1e-13)


# ---- L.53-57: the seed blog, run as written (with `import jitgrad as paddle`) -------------------

BLOG = '''
import sys,os,math,time
from numpy import *
import jitgrad as paddle
from jitgrad import to_tensor as TT

x = TT([1], dtype='float32', stop_gradient=False)
y = TT([2], dtype='float32')
z = paddle.matmul(x, y)
print("x: {}".format(x),"y: {}".format(y),"z: {}".format(z))
print("x.grad: {}".format(x.grad), "y.grad: {}".format(y.grad), "z.grad: {}".format(z.grad))
paddle.autograd.backward(z, TT([3], dtype='float32'))
print("x.grad: {}".format(x.grad), "y.grad: {}".format(y.grad), "z.grad: {}".format(z.grad))
try:
    paddle.autograd.backward(z, TT([3], dtype='float32'))
except RuntimeError as e:
    print("RuntimeError:", "retain_graph=True" in str(e), "MatmulGradNode" in str(e))
x.clear_grad()
y.clear_grad()
z.clear_grad()

x = TT([1], dtype='float32', stop_gradient=False)
y = TT([2], dtype='float32')
z = paddle.matmul(x, y)
paddle.autograd.backward(z, TT([3], dtype='float32'), retain_graph=True)
print("x.grad: {}".format(x.grad), "y.grad: {}".format(y.grad), "z.grad: {}".format(z.grad))
paddle.autograd.backward(z, TT([3], dtype='float32'), retain_graph=True)
print("x.grad: {}".format(x.grad), "y.grad: {}".format(y.grad), "z.grad: {}".format(z.grad))

x = TT([[1,2],[3,4]], dtype='float32', stop_gradient=False)
y = TT([[3,2],[3,4]], dtype='float32')
z = paddle.matmul(x, y)
print("x: {}".format(x),"y: {}".format(y),"z: {}".format(z))
paddle.autograd.backward(z, TT([[1,2],[2,3]], dtype='float32'), retain_graph=True)
print("x.grad: {}".format(x.grad), "y.grad: {}".format(y.grad), "z.grad: {}".format(z.grad))

x = TT([[1,2],[3,4]], dtype='float32', stop_gradient=False)
y = TT([[3,2],[3,4]], dtype='float32')
z1 = paddle.matmul(x, y)
z2 = paddle.matmul(x, y)
paddle.autograd.backward(z1, TT([[1,2],[2,3]], dtype='float32'))
paddle.autograd.backward(z2, TT([[1,1],[1,1]], dtype='float32'))
print("x.grad: {}".format(x.grad), "y.grad: {}".format(y.grad))

for f in (paddle.square, paddle.exp, paddle.log):
    x = TT([1,2], dtype='float32', stop_gradient=False)
    z1 = f(x)
    print("z1: {}".format(z1))
    paddle.autograd.backward(z1)
    print("x.grad: {}".format(x.grad), "z1.grad: {}".format(z1.grad))

x = TT([1,2], dtype='float32', stop_gradient=False)
z1 = paddle.exp(x) / paddle.sum(paddle.exp(x))
print("z1: {}".format(z1))
paddle.autograd.backward(z1)
print("x.grad: {}".format(x.grad))

x = TT([1,2], dtype='float32', stop_gradient=False)
z1 = paddle.exp(x) / paddle.sum(paddle.exp(x))
paddle.autograd.backward(z1,TT([1,2], dtype='float32'))
print("x.grad: {}".format(x.grad))
'''


def _blog_expected():
    """The blog's printed output as Paddle 3.3.1 gives it: Place(cpu) (L.53), a 0-d matmul
    (L.54, so `"{}".format(z)` is `2.0`, A.5), non-leaf grads None (L.55), and a
    RuntimeError naming the op and retain_graph=True for the second backward (L.56, M.59).
    Every number is the blog's."""
    t = text
    lines = [
        "x: " + t([1], False, "[1.]") + " y: " + t([1], True, "[2.]") + " z: 2.0",
        "x.grad: None y.grad: None z.grad: None",
        "x.grad: " + t([1], False, "[6.]") + " y.grad: None z.grad: None",
        "RuntimeError: True True",
        "x.grad: " + t([1], False, "[6.]") + " y.grad: None z.grad: None",
        "x.grad: " + t([1], False, "[12.]") + " y.grad: None z.grad: None",
        "x: " + t([2, 2], False, "[[1., 2.],\n        [3., 4.]]")
        + " y: " + t([2, 2], True, "[[3., 2.],\n        [3., 4.]]")
        + " z: " + t([2, 2], False, "[[9. , 10.],\n        [21., 22.]]"),
        "x.grad: " + t([2, 2], False, "[[7. , 11.],\n        [12., 18.]]")
        + " y.grad: None z.grad: None",
        "x.grad: " + t([2, 2], False, "[[12., 18.],\n        [17., 25.]]") + " y.grad: None",
        "z1: " + t([2], False, "[1., 4.]"),
        "x.grad: " + t([2], False, "[2., 4.]") + " z1.grad: None",
        "z1: " + t([2], False, "[2.71828175, 7.38905621]"),
        "x.grad: " + t([2], False, "[2.71828175, 7.38905621]") + " z1.grad: None",
        "z1: " + t([2], False, "[0.        , 0.69314718]"),
        "x.grad: " + t([2], False, "[1.        , 0.50000000]") + " z1.grad: None",
        "z1: " + t([2], False, "[0.26894140, 0.73105860]"),
        "x.grad: " + t([2], False, "[0., 0.]"),
        "x.grad: " + t([2], False, "[-0.19661194,  0.19661200]"),
    ]
    return "\n".join(lines) + "\n"


def test_seed_blog_runs_unchanged_and_prints_every_number():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(BLOG, "seed_blog.py", "exec"), {"__name__": "seed_blog"})
    assert out.getvalue() == _blog_expected()


def test_docstring_seed_prints_x_grad_exactly():
    # The seed backward_mode.py docstring: print(x.grad) after each call.
    x = TT([[1, 2], [3, 4]], dtype="float32", stop_gradient=False)
    y = TT([[3, 2], [3, 4]], dtype="float32")
    g1 = TT([[1, 2], [2, 3]], dtype="float32")
    g2 = TT([[1, 1], [1, 1]], dtype="float32")
    z1, z2 = paddle.matmul(x, y), paddle.matmul(x, y)
    shown = []
    paddle.autograd.backward([z1, z2], [g1, g2], True)
    shown.append(str(x.grad))
    x.clear_grad()
    paddle.autograd.backward([z1, z2], [g1, None], True)
    shown.append(str(x.grad))
    x.clear_grad()
    paddle.autograd.backward([z1, z2])
    shown.append(str(x.grad))
    a = text([2, 2], False, "[[12., 18.],\n        [17., 25.]]")
    assert shown == [a, a, text([2, 2], False, "[[10., 14.],\n        [10., 14.]]")]


# ---- A.2: Tensor.shape is a paddle.Size ----------------------------------------------------------

def test_shape_is_a_list_like_size_equal_to_lists_and_tuples():
    # A.2: list-like `paddle.Size`; Paddle 3.3 prints it as paddle.Size([...]) and lets it
    # compare with tuples (torch-style `x.shape == (2, 3)` in ported code).
    s = paddle.ones([2, 3]).shape
    assert isinstance(s, list) and isinstance(s, paddle.Size)
    assert s == [2, 3] and s == (2, 3) and [2, 3] == s and (2, 3) == s
    assert s != (3, 2) and not (s != [2, 3]) and s != [2, 3, 1]
    assert str(s) == repr(s) == "paddle.Size([2, 3])" and f"{s}" == "paddle.Size([2, 3])"
    assert str(paddle.sum(paddle.ones([2])).shape) == "paddle.Size([])"
    assert s + [4] == [2, 3, 4] and s[-1] == 3 and list(s) == [2, 3]
    n, m = s
    assert (n, m) == (2, 3)
    assert paddle.reshape(paddle.ones([6]), s).shape == [2, 3]
    assert "shape=[2, 3]," in str(paddle.ones([2, 3]))            # A.5 unchanged


# ---- B-E, H, K on every backward path: compiled (Numba), reference interpreter, eager -------------

def _semantics_probe(cg):
    out = {}
    x = leaf([[1.0, 2.0]])                                          # B.11 equal numel
    paddle.autograd.backward(x * 2, TT([3.0, 4.0]), create_graph=cg)
    out["B11"] = x.grad.tolist()
    x = leaf([1.0, 2.0])                                            # B.12 float64 seed
    paddle.autograd.backward(x * 2, TT(np.array([1.0, 1.0])), create_graph=cg)
    out["B12"] = (x.grad.dtype, x.grad.tolist())
    x = TT([1.0, 2.0])                                              # B.13 silent no-op
    paddle.autograd.backward(x * 2, create_graph=cg)
    out["B13"] = x.grad
    x = leaf([1.0, 2.0])                                            # B.14 leaf backward
    x.backward(create_graph=cg)
    x.backward(create_graph=cg)
    out["B14"] = x.grad.tolist()
    x, seen = leaf([5.0]), []                                       # C.15
    for _ in range(3):
        paddle.pow(x, 4).backward(create_graph=cg)
        seen.append(x.grad.item())
    out["C15"] = seen
    x = leaf([1.0])                                                 # C.16
    (x * 2).backward(create_graph=cg)
    x.clear_grad()
    out["C16"] = x.grad.tolist()
    (x * 3).backward(create_graph=cg)
    out["C16b"] = x.grad.tolist()
    x = leaf([1.0])                                                 # D.19, D.21
    y = x * 6
    y.backward(retain_graph=True, create_graph=cg)
    y.backward(retain_graph=False, create_graph=cg)
    with pytest.raises(RuntimeError, match="MultiplyGradNode.*retain_graph=True"):
        y.backward(create_graph=cg)
    out["D21"] = x.grad.tolist()
    x = leaf([1.0])                                                 # E.25-26
    z = x * 2
    z.retain_grads()
    w = z * 1
    for s in (3.0, 5.0):
        w.backward(TT([s]), retain_graph=True, create_graph=cg)
    out["E26"] = (z.grad.tolist(), x.grad.tolist(), w.grad)
    x = leaf([1.0])                                                 # E.27
    y = x * 2
    y.stop_gradient = True
    (y * 3 + x).backward(create_graph=cg)
    out["E27"] = x.grad.tolist()
    x = leaf([1.0, 2.0])                                            # E.28 astype
    y = x.astype("float64")
    (y * y).sum().backward(create_graph=cg)
    out["E28"] = (x.grad.dtype, x.grad.tolist())
    y = leaf(1.0)                                                   # K.48 0-d broadcast
    (TT(np.ones((2, 3), np.float32)) * y).sum().backward(create_graph=cg)
    out["K48"] = (y.grad.shape, y.grad.item())
    x = leaf([3.0, 1.0, 3.0])                                       # K.49
    paddle.max(x).backward(create_graph=cg)
    out["K49"] = x.grad.tolist()
    x = leaf([0.0, -1.0, 1.0])                                      # K.50 kinks
    (paddle.relu(x) + paddle.abs(x) + paddle.clip(x, -1.0, 1.0)
     + F.leaky_relu(x, 0.25)).sum().backward(create_graph=cg)
    out["K50"] = x.grad.tolist()
    x, calls = leaf([1.0, 2.0]), []                                 # H.40
    x.register_hook(lambda g: calls.append(1) or g * 10)
    ((x * x).sum() + x.sum()).backward(create_graph=cg)
    out["H40"] = (x.grad.tolist(), len(calls))
    return out


@pytest.mark.parametrize("path", ["numba", "reference", "eager"])
def test_semantics_hold_on_every_backward_path(path):
    with paddle.vm.using("reference" if path == "reference" else "numba"):
        got = _semantics_probe(cg=path == "eager")
    assert got == {
        "B11": [[6.0, 8.0]], "B12": (paddle.float32, [2.0, 2.0]), "B13": None,
        "B14": [2.0, 2.0], "C15": [500.0, 1000.0, 1500.0], "C16": [0.0], "C16b": [3.0],
        "D21": [12.0], "E26": ([5.0], [16.0], None), "E27": [1.0],
        "E28": (paddle.float32, [2.0, 4.0]), "K48": ([], 6.0), "K49": [0.5, 0.0, 0.5],
        "K50": [2.0, 0.25, 4.0], "H40": ([30.0, 50.0], 1)}


@pytest.mark.parametrize("path", ["numba", "reference", "eager"])
def test_retained_grad_is_overwritten_per_call_and_summed_within_one(path):
    # E.26: each backward overwrites a retained non-leaf grad; within one call the
    # contributions of all roots are summed (C.15).
    cg = path == "eager"
    with paddle.vm.using("reference" if path == "reference" else "numba"):
        x = leaf([1.0])
        y = x * 1
        y.retain_grads()
        z1, z2 = y * 2, y * 3
        z1.backward(retain_graph=True, create_graph=cg)
        first = y.grad.tolist()
        z2.backward(create_graph=cg)
        assert (first, y.grad.tolist(), x.grad.tolist()) == ([2.0], [3.0], [5.0])
        x = leaf([1.0])
        y = x * 1
        y.retain_grads()
        paddle.autograd.backward([y * 2, y * 3], create_graph=cg)
        assert (y.grad.tolist(), x.grad.tolist()) == ([5.0], [5.0])
