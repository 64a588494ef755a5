"""Tensor methods take Paddle 3.3.1's torch-style keyword aliases where Paddle's methods
take them (core/param_aliases.METHOD_ALIASES), and refuse those Paddle's methods refuse.

The tables below are what was measured on paddle 3.3.1 (each alias param_aliases derives
for a jitgrad method, tried on Paddle's method: accepted with the result of the named call,
or refused with a TypeError)."""

import inspect

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import param_aliases, tape
from jitgrad.core.tensor import Tensor

TT = paddle.to_tensor
X = np.array([[1.5, -2.0, 0.5, 4.0], [3.0, -0.25, 2.0, 1.0], [0.0, 6.0, -1.0, 2.5]], "float32")
Y = np.array([[0.5, 1.0, 2.0, -1.0], [4.0, 0.5, 1.5, 1.0], [1.5, 6.0, 3.0, 2.0]], "float32")
SQ = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], "float32")
IX = np.array([[12, 18, 7], [4, 9, 30]], "int64")
IY = np.array([[8, 6, 14], [6, 3, 20]], "int64")


def env():
    return {"x": TT(X), "y": TT(Y), "s": TT(SQ), "s3": TT(SQ[None]), "v": TT(X[0]),
            "w": TT(Y[0]), "ix": TT(IX), "iy": TT(IY), "b": TT(X > 0), "c": TT(Y > 1),
            "i": TT(np.array([0, 2], "int64")), "u": TT(X[:2]),
            "j": TT(np.array([[0, 2, 1, 0]], "int64")), "x13": TT(X[:, :3]),
            "y13": TT(Y[:, :3]), "x1": TT(X[None])}


# (method, alias): the alias call, the call with jitgrad's (Paddle's) own name. Measured on
# paddle 3.3.1: every one of these runs there, giving the named call's result.
ACCEPTED = {
    ("sum", "dim"): ("x.sum(dim=0)", "x.sum(axis=0)"),
    ("mean", "dim"): ("x.mean(dim=1, keepdim=True)", "x.mean(axis=1, keepdim=True)"),
    ("prod", "dim"): ("x.prod(dim=0)", "x.prod(axis=0)"),
    ("var", "dim"): ("x.var(dim=0)", "x.var(axis=0)"),
    ("logsumexp", "dim"): ("x.logsumexp(dim=1)", "x.logsumexp(axis=1)"),
    ("all", "dim"): ("b.all(dim=0)", "b.all(axis=0)"),
    ("any", "dim"): ("b.any(dim=1)", "b.any(axis=1)"),
    ("amax", "dim"): ("x.amax(dim=0)", "x.amax(axis=0)"),
    ("amin", "dim"): ("x.amin(dim=1)", "x.amin(axis=1)"),
    ("argmax", "dim"): ("x.argmax(dim=1)", "x.argmax(axis=1)"),
    ("argmin", "dim"): ("x.argmin(dim=0)", "x.argmin(axis=0)"),
    ("argsort", "dim"): ("x.argsort(dim=0)", "x.argsort(axis=0)"),
    ("topk", "dim"): ("x.topk(k=1, dim=1)", "x.topk(k=1, axis=1)"),
    ("cumsum", "dim"): ("x.cumsum(dim=0)", "x.cumsum(axis=0)"),
    ("diff", "dim"): ("x.diff(dim=0)", "x.diff(axis=0)"),
    ("softmax", "dim"): ("x.softmax(dim=0)", "x.softmax(0)"),
    ("quantile", "dim"): ("x.quantile(0.5, dim=1)", "x.quantile(0.5, axis=1)"),
    ("unsqueeze", "dim"): ("x.unsqueeze(dim=0)", "x.unsqueeze(axis=0)"),
    ("squeeze", "dim"): ("x1.squeeze(dim=0)", "x1.squeeze(axis=0)"),
    ("unflatten", "dim"): ("x.unflatten(dim=1, shape=[2, 2])", "x.unflatten(axis=1, shape=[2, 2])"),
    ("chunk", "dim"): ("x.chunk(2, dim=1)", "x.chunk(2, axis=1)"),
    ("tensor_split", "dim"): ("x.tensor_split(2, dim=1)", "x.tensor_split(2, axis=1)"),
    ("unbind", "dim"): ("x.unbind(dim=1)", "x.unbind(axis=1)"),
    ("index_select", "dim"): ("x.index_select(i, dim=1)", "x.index_select(i, axis=1)"),
    ("index_add", "dim"): ("x.index_add(i, dim=0, value=u)", "x.index_add(i, axis=0, value=u)"),
    ("repeat_interleave", "dim"): ("x.repeat_interleave(2, dim=0)",
                                   "x.repeat_interleave(2, axis=0)"),
    ("take_along_axis", "dim"): ("x.take_along_axis(j, dim=0)", "x.take_along_axis(j, axis=0)"),
    ("take_along_dim", "dim"): ("x.take_along_dim(j, dim=0)", "x.take_along_dim(j, axis=0)"),
    ("unique_consecutive", "dim"): ("x.unique_consecutive(dim=0)",
                                    "x.unique_consecutive(axis=0)"),
    ("cross", "dim"): ("x13.cross(y13, dim=1)", "x13.cross(y13, axis=1)"),
    ("norm", "dim"): ("x.norm(dim=1)", "x.norm(axis=1)"),
    ("norm", "ord"): ("x.norm(ord=1)", "x.norm(p=1)"),
    ("diagonal", "dim1"): ("s.diagonal(dim1=1, dim2=0)", "s.diagonal(axis1=1, axis2=0)"),
    ("diagonal", "dim2"): ("s.diagonal(1, axis1=1, dim2=0)", "s.diagonal(1, axis1=1, axis2=0)"),
    ("dot", "tensor"): ("v.dot(tensor=w)", "v.dot(w)"),
    ("outer", "vec2"): ("v.outer(vec2=w)", "v.outer(w)"),
    ("bmm", "mat2"): ("s3.bmm(mat2=s3)", "s3.bmm(s3)"),
    ("mm", "mat2"): ("s.mm(mat2=s)", "s.mm(s)"),
    ("where", "input"): ("b.where(input=x, other=y)", "b.where(x, y)"),
    ("where", "other"): ("b.where(x, other=y)", "b.where(x, y)"),
    ("matmul", "other"): ("s.matmul(other=s)", "s.matmul(s)"),
    ("expand_as", "other"): ("v.expand_as(other=x)", "v.expand_as(x)"),
    ("isclose", "other"): ("x.isclose(other=y)", "x.isclose(y)"),
    **{(m, "other"): (f"x.{m}(other=y)", f"x.{m}(y)") for m in (
        "add", "sub", "subtract", "mul", "multiply", "div", "divide", "floor_divide",
        "floor_mod", "mod", "remainder", "maximum", "minimum", "eq", "equal", "ne",
        "not_equal", "ge", "greater", "greater_equal", "greater_than", "gt", "le", "less",
        "less_equal", "less_than", "lt")},
    **{(m, "other"): (f"b.{m}(other=c)", f"b.{m}(c)") for m in (
        "logical_and", "logical_or", "logical_xor")},
    **{(m, "other"): (f"ix.{m}(other=iy)", f"ix.{m}(iy)") for m in (
        "bitwise_or", "gcd", "lcm")},
    ("gcd_", "other"): ("ix.clone().gcd_(other=iy)", "ix.clone().gcd_(iy)"),
}

# Refused by Paddle 3.3.1's methods (a TypeError there; some a ValueError from its C++
# argument parser), so a TypeError here: aliases its functions may take, or whose method
# form means torch's op. x.gather(i, dim=0) is refused there
# too but runs torch's gather here, as x.gather(dim=0, index=i) does there (README).
REFUSED = ["x.max(dim=0)", "x.min(dim=0)", "x.sort(dim=0)", "x.split(2, dim=0)",
           "x.std(dim=0)", "x.flip(dim=0)", "x.cummax(dim=0)", "x.nansum(dim=0)",
           "x.roll(1, dim=0)",
           "x.add(tensor=y)", "x.add(vec2=y)", "s.matmul(mat2=s)", "s.mm(other=s)",
           "v.dot(other=w)", "v.outer(other=w)", "x.pow(other=y)", "x.atan2(other=y)",
           "ix.bitwise_and(other=iy)", "x13.cross(other=y13)", "s.trace(dim1=0)",
           "s.cond(ord=1)"]


def _values(r):
    if isinstance(r, (list, tuple)):
        return [_values(t) for t in r]
    return (r.numpy().tolist(), r.dtype, r.shape)


@pytest.mark.parametrize("key", sorted(ACCEPTED), ids=lambda k: f"{k[0]}-{k[1]}")
def test_a_method_takes_the_alias_paddles_method_takes_with_the_named_calls_result(key):
    alias_call, named_call = ACCEPTED[key]
    got, want = eval(alias_call, env()), eval(named_call, env())
    assert _values(got) == _values(want)


def test_the_table_of_method_aliases_is_the_measured_one():
    table = {(m, a) for m, aliases in param_aliases.METHOD_ALIASES.items() for a in aliases}
    assert table == set(ACCEPTED)
    for name, alias in table:           # each alias there is one the method reads (its
        method = paddle.ops.METHODS[name]   # wrapper's, or a parameter of its own: sum)
        assert alias in getattr(method, "param_aliases", inspect.signature(method).parameters), \
            (name, alias)


@pytest.mark.parametrize("call", REFUSED)
def test_an_alias_paddles_method_refuses_raises_type_error(call):
    with pytest.raises(TypeError):
        eval(call, env())


def test_the_examples_give_exactly_the_named_calls_values():
    x = TT(X)
    assert x.sum(dim=0).tolist() == x.sum(axis=0).tolist() == X.sum(0).tolist()
    assert x.mean(dim=0).tolist() == x.mean(axis=0).tolist()
    assert x.argmax(dim=1).tolist() == [3, 0, 1]
    assert x.cumsum(dim=0).tolist() == np.cumsum(X, 0).tolist()
    assert x.unsqueeze(dim=0).shape == [1, 3, 4] and x[None].squeeze(dim=0).shape == [3, 4]
    assert x.softmax(dim=0).tolist() == x.softmax(axis=0).tolist()
    assert x.add(other=x).tolist() == (2 * X).tolist()
    assert x.norm(ord=1).item() == x.norm(p=1).item() == float(np.abs(X).sum())
    values, indices = x.topk(k=1, dim=1)
    assert values.tolist() == [[4.0], [3.0], [6.0]] and indices.tolist() == [[3], [0], [1]]


def test_an_alias_and_its_own_name_together_raise_type_error_naming_both():
    x = TT(X)
    with pytest.raises(TypeError, match="sum\\(\\) got both 'dim' and 'axis'"):
        x.sum(dim=0, axis=1)
    with pytest.raises(TypeError, match="add\\(\\) got both 'other' and 'y'"):
        x.add(other=x, y=x)
    with pytest.raises(TypeError, match="unexpected keyword argument 'dims'"):
        x.sum(dims=0)                   # not an alias: Python's own error


def test_a_method_alias_gives_the_same_gradient_and_call_site(call_sites):
    x = TT(X, stop_gradient=False)
    (x.sum(dim=0) * TT(Y[0])).sum().backward()
    assert x.grad.tolist() == np.broadcast_to(Y[0], X.shape).tolist()
    line = inspect.currentframe().f_lineno
    out = x.sum(dim=1)                  # the user's line, not param_aliases' wrapper
    assert tape.site_line(out._node.site)[:2] == (__file__, line + 1)


def test_operators_and_methods_without_aliases_stay_the_bare_functions():
    x = TT(X)
    for name in ("exp", "tanh", "reshape", "transpose", "max"):
        getattr(x, name)
        assert not hasattr(Tensor.__dict__[name], "__wrapped__"), name
    for op in (Tensor.__mul__, Tensor.__add__, Tensor.__matmul__, Tensor.__getitem__):
        assert not hasattr(op, "__wrapped__") and not hasattr(op, "param_aliases")
    x.sum()
    assert Tensor.__dict__["sum"] is paddle.ops.METHODS["sum"]
    assert Tensor.__dict__["prod"].param_aliases == {"dim": "axis"}


def test_sum_and_mean_read_dim_and_out_themselves_so_their_methods_have_no_wrapper():
    x = TT(X)
    for name in ("sum", "mean"):
        getattr(x, name)
        method = Tensor.__dict__[name]
        assert method is getattr(paddle, name).__wrapped__ and not hasattr(method, "__wrapped__")
        fn = getattr(paddle, name)
        want = getattr(X, name)(axis=1)
        for call in (lambda: getattr(x, name)(dim=1), lambda: fn(x, dim=1),
                     lambda: fn(input=x, dim=1), lambda: getattr(x, name)(1)):
            np.testing.assert_allclose(call().numpy(), want, rtol=1e-6)
        out = paddle.zeros([3])
        assert getattr(x, name)(dim=1, out=out) is out
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
        assert fn(x, out=out) is out and out.shape == []
        with pytest.raises(TypeError, match=f"{name}\\(\\) got both 'dim' and 'axis'"):
            getattr(x, name)(0, dim=1)
        with pytest.raises(TypeError, match="unexpected keyword argument 'input'"):
            getattr(x, name)(input=x)
    m = TT(X, stop_gradient=False)
    m.mean(dim=0, dtype="float64").sum(dim=0).backward()
    np.testing.assert_array_equal(m.grad.numpy(), np.full(X.shape, 1 / 3, "float32"))


def test_install_methods_drops_a_functions_alias_wrapper_the_method_does_not_need():
    def mean(x, axis=None, dim=None, out=None):              # reads dim=, out= itself
        return ("mean", x, axis, dim, out)

    public = param_aliases.with_aliases(mean)                # takes input=
    assert public.param_aliases == {"input": "x"}
    methods = {"mean": public}
    param_aliases.install_methods(methods)
    assert methods["mean"] is mean


def test_install_methods_wraps_the_function_not_a_public_wrapper_and_unbinds_a_bound_one():
    def sum(x, axis=None, keepdim=False):                    # noqa: A001 (Paddle's name)
        return ("sum", x, axis, keepdim)

    public = param_aliases.with_aliases(sum)                 # takes dim= and input=
    assert public.param_aliases == {"dim": "axis", "input": "x"}

    class Fake:
        pass

    Fake.sum = public                                        # bound before the install
    methods = {"sum": public, "exp": lambda x: x}
    param_aliases.install_methods(methods, Fake)
    assert methods["sum"].__wrapped__ is sum
    assert methods["sum"].param_aliases == {"dim": "axis"}   # the method's, not input=
    assert "sum" not in vars(Fake)
    assert methods["sum"](1, dim=0) == ("sum", 1, 0, False)
    with pytest.raises(TypeError, match="unexpected keyword argument 'input'"):
        methods["sum"](input=1)
