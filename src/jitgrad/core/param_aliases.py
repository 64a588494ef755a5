"""Paddle 3.x's torch-style keyword aliases on the public functions (`paddle.sum(x, dim=0)`,
`paddle.add(input=a, other=b)`, `F.softmax(x, dim=-1)`, `paddle.zeros(size=[2])`,
`paddle.linalg.norm(x, ord=1)`, `paddle.where(c, input=a, other=b)`) and Tensor methods
(`x.sum(dim=0)`) run as Paddle 3.3.1 runs them (its param-alias decorators).

The aliases are derived from each function's own signature, once, at import: `dim` names
`axis` (`dim1`/`dim2`: `axis1`/`axis2`), `ord` names `p`, `size` names a first parameter
`shape`, `input` a parameter `x`, and `other` (`tensor`, `vec2`, `mat2`) a parameter `y`.
They are read only after the call failed: a keyword the function does not have raises a
TypeError before its body runs, and the call is made again with the names it has. The
public op functions do this in the wrapper that already checks their Tensor arguments
(ops/core.check_tensor_args); the others get a wrapper of their own when an alias applies.

Tensor methods take fewer: a method takes an alias only where Paddle 3.3.1's method does
(METHOD_ALIASES, measured: `x.sum(dim=0)`, `x.add(other=y)`, `x.norm(ord=1)`, but not
`x.max(dim=0)` or `x.add(tensor=y)`), with the same derivation and the same retry
(install_methods). A method has no wrapper to share, so the aliased ones get with_aliases'
(one call layer on every call, 0.2-0.4 us: the TypeError of an unknown keyword is
raised at the call site, where nothing else can catch it); the other methods, the
operators (`x * y`) and the functions jitgrad calls internally are not wrapped.

The same retry reads the torch-style keywords out=, device=, requires_grad=, pin_memory=
where Paddle gives them (core/torch_kwargs.py: each wrapper's `torch_kwargs`, set by
install and install_methods from torch_kwargs.TABLE).
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Callable

from . import torch_kwargs

_RENAMES = {"dim": "axis", "dim1": "axis1", "dim2": "axis2", "ord": "p"}
_SECOND = ("other", "tensor", "vec2", "mat2")
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def aliases_of(fn: Callable) -> dict[str, str]:
    """{alias: parameter} for fn's signature (empty when none applies, or fn takes
    **kwargs: an alias could be one of them). A parameter only given by position (`*axis1`,
    one before `/`) has none: the renamed keyword would not reach it."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return {}
    names = set(params)
    keyword = {p.name for p in params.values() if p.kind in _KEYWORD}   # (not *axis1)
    found = {a: t for a, t in _RENAMES.items() if a not in names and t in keyword}
    pos = [p.name for p in params.values() if p.kind in _POSITIONAL]
    if pos and pos[0] == "shape" and "shape" in keyword and "size" not in names:
        found["size"] = "shape"
    if "x" in pos and "x" in keyword and "input" not in names:
        found["input"] = "x"
    if "y" in pos and "y" in keyword:
        found.update((a, "y") for a in _SECOND if a not in names)
    return found


def renamed(fn: Callable, mapping: dict[str, str], kwargs: dict) -> dict | None:
    """kwargs with its aliases under fn's own names; None when it has none."""
    if mapping.keys().isdisjoint(kwargs):
        return None
    out = dict(kwargs)
    for alias in mapping.keys() & kwargs.keys():
        target = mapping[alias]
        if target in out:
            raise TypeError(f"{fn.__name__}() got both {alias!r} and {target!r} (the same "
                            f"argument)")
        out[target] = out.pop(alias)
    return out


# The default of an alias a hot function reads itself (no wrapper's call layer: the
# reductions' dim=, the unary ops' input=), and of the parameter it names when that one
# has none of its own (x): dim_axis, input_x
UNSET: Any = type("Unset", (), {"__repr__": lambda self: "<unset>"})()


def dim_axis(fn_name: str, axis: Any, dim: Any, default: Any = None) -> Any:
    """The axis of a call given `axis` (its default: not given) and torch's `dim` (UNSET
    when not given)."""
    if dim is UNSET:
        return axis
    if axis is not default and axis != default:
        raise TypeError(f"{fn_name}() got both 'dim' and 'axis' (the same argument)")
    return dim


def input_x(fn_name: str, x: Any, input: Any) -> Any:
    """The x of a call given `x` and torch's `input` (each UNSET when not given)."""
    if input is UNSET:
        if x is UNSET:
            raise TypeError(f"{fn_name}() missing 1 required positional argument: 'x'")
        return x
    if x is not UNSET:
        raise TypeError(f"{fn_name}() got both 'input' and 'x' (the same argument)")
    return input


_WRAPPERS: dict[Any, Callable] = {}     # one wrapper per function and alias set
#                                          (paddle.cross is paddle.linalg.cross)


def with_aliases(fn: Callable, mapping: dict[str, str] | None = None) -> Callable:
    """fn taking its aliases as keywords too (fn itself when it has none, or when its
    wrapper already reads them: param_aliases). `mapping`: only these aliases (a subset of
    aliases_of(fn): a Tensor method's, METHOD_ALIASES); all of them by default."""
    if mapping is None:
        if hasattr(fn, "param_aliases"):
            return fn
        key: Any = fn
    else:
        key = (fn, tuple(sorted(mapping.items())))
    found = _WRAPPERS.get(key)
    if found is not None:
        return found
    forced = mapping is not None and not mapping     # {}: a wrapper for torch_kwargs only
    if mapping is None:
        mapping = aliases_of(fn)
    if not mapping and not forced:
        return fn

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TypeError:
            again = retry(fn, call, kwargs) if kwargs else None
            if again is None:
                raise
        return torch_kwargs.finish(fn.__name__, fn(*args, **again[0]), again[1])

    call.param_aliases = mapping        # type: ignore[attr-defined]
    call.torch_kwargs = frozenset()     # type: ignore[attr-defined]  (install: TABLE's)
    _WRAPPERS[key] = call
    return call


def retry(fn: Callable, wrapper: Any, kwargs: dict) -> tuple[dict, dict] | None:
    """After fn(**kwargs) raised TypeError: (kwargs with the aliases under fn's own names and
    without the torch-style keywords, those keywords: torch_kwargs.finish's) when kwargs
    has some that `wrapper` (with_aliases' or check_tensor_args') takes; else None."""
    extras: dict = {}
    split = torch_kwargs.split(fn.__name__, wrapper.torch_kwargs, kwargs)
    if split is not None:
        kwargs, extras = split
    again = renamed(fn, wrapper.param_aliases, kwargs) if wrapper.param_aliases else None
    if again is None:
        return None if split is None else (kwargs, extras)
    return again, extras


def _wrapper(fn: Callable) -> Any:
    """fn's alias wrapper (fn itself when it is one), made with no alias when fn has none:
    the wrapper whose retry reads the keywords added to it."""
    return with_aliases(fn, None if hasattr(fn, "param_aliases") or aliases_of(fn) else {})


def with_torch_kwargs(fn: Callable, names: Any) -> Callable:
    """fn taking the torch-style keywords `names` too (torch_kwargs.TABLE's): its alias
    wrapper, made with no alias when it has none, takes them (the names of every table
    row naming the same function, together)."""
    names = frozenset(names) - _own_params(fn)
    if not names:
        return fn
    wrapped = _wrapper(fn)
    wrapped.torch_kwargs = wrapped.torch_kwargs | names     # type: ignore[attr-defined]
    return wrapped


def _own_params(fn: Callable) -> frozenset:
    """The parameter names fn has itself (a keyword it has is its own to read); all of
    torch_kwargs.KWARGS when it takes **kwargs (no TypeError to catch: its own to read)."""
    try:
        params = inspect.signature(inspect.unwrap(fn)).parameters
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return torch_kwargs.KWARGS
    return frozenset(params)


# Aliases the derivation above does not give, by function (measured on Paddle 3.3.1: each
# one its docstring names, tried there and accepted; perf/paddle_torch_kwargs.py lists the
# documented ones). The in-place functions take **kwargs: `paddle.sub_(input=a, other=b)`
# fails in take_x (no x), before anything changed, and is retried with x= and y=.
_EPS = {"eps": "epsilon"}
EXTRA_ALIASES: dict[str, dict[str, str]] = {
    **dict.fromkeys(("div_", "divide_", "lcm_", "multiply_", "sub_", "subtract_"),
                    {"input": "x", "other": "y"}),
    **dict.fromkeys(("broadcast_to", "expand"), {"size": "shape"}),
    **dict.fromkeys(("cat", "concat", "concatenate", "stack"), {"tensors": "x"}),
    **dict.fromkeys(("group_norm", "layer_norm", "nn.functional.group_norm",
                     "nn.functional.layer_norm"), _EPS),
    **dict.fromkeys(("nn.functional.adaptive_max_pool1d", "nn.functional.adaptive_max_pool2d",
                     "nn.functional.adaptive_max_pool3d"), {"return_indices": "return_mask"}),
    **dict.fromkeys(("nn.functional.hardshrink", "nn.functional.softshrink"),
                    {"lambd": "threshold"}),
    **dict.fromkeys(("take_along_axis", "take_along_dim"), {"input": "arr"}),
    "bucketize": {"boundaries": "sorted_sequence"}, "eye": {"n": "num_rows", "m": "num_columns"},
    "index_add": {"source": "value"}, "is_tensor": {"obj": "x"},
    "isin": {"elements": "x", "test_elements": "test_x"},
    "linalg.solve": {"A": "x", "B": "y"}, "linspace": {"end": "stop", "steps": "num"},
    "normal": {"size": "shape"}, "pow": {"exponent": "y"}, "roll": {"dims": "axis"},
    "searchsorted": {"input": "values"},
    "tensor_split": {"indices": "num_or_indices", "sections": "num_or_indices"},
    "tile": {"dims": "repeat_times"}, "unflatten": {"sizes": "shape"},
    "unfold": {"dimension": "axis"},
}


def with_extra_aliases(fn: Callable, mapping: dict[str, str]) -> Callable:
    """fn taking the aliases in `mapping` too (those naming a parameter it has, and not
    one itself): its alias wrapper (one made when it has none) reads them."""
    own = _own_params(fn)
    if own is not torch_kwargs.KWARGS:         # (**kwargs: the table's word for it)
        mapping = {a: t for a, t in mapping.items() if t in own and a not in own}
    if not mapping:
        return fn
    wrapped = _wrapper(fn)
    wrapped.param_aliases = {**wrapped.param_aliases, **mapping}    # type: ignore
    return wrapped


def install(module: types.ModuleType, names: Any = None, key: str | None = None) -> None:
    """Replace module's public functions (or those in `names`) by their aliased forms;
    `key`: the module's prefix in torch_kwargs.TABLE ('' for jitgrad, 'linalg'), whose
    functions take their torch-style keywords too."""
    prefix = f"{key}." if key else ""
    for name in list(vars(module) if names is None else names):
        if name.startswith("_"):
            continue
        fn = getattr(module, name, None)
        if isinstance(fn, types.FunctionType):
            wrapped = with_aliases(fn)
            extra = torch_kwargs.TABLE.get(prefix + name) if key is not None else None
            if extra:
                wrapped = with_torch_kwargs(wrapped, extra)
            more = EXTRA_ALIASES.get(prefix + name) if key is not None else None
            if more:
                wrapped = with_extra_aliases(wrapped, more)
            if wrapped is not fn:
                setattr(module, name, wrapped)


# The aliases Paddle 3.3.1's Tensor methods accept, by method (measured on paddle 3.3.1:
# each alias aliases_of derives for a jitgrad method, tried on Paddle's method; refused
# there means a TypeError here too). Paddle's methods are narrower than its functions:
# x.max(dim=0), x.sort(dim=0), x.split(2, dim=0), x.std(dim=0), x.flip(dim=0),
# x.add(tensor=y), x.matmul(mat2=y), x.pow(other=2), x.atan2(other=y) are refused;
# x.median(dim=0) and x.gather(dim=0, index=i) are accepted but switch to torch's meaning
# (a (values, indices) pair; torch.gather): median and gather read dim= themselves, so
# no rename here. tests/test_param_aliases_methods.py pins this table's calls.
_DIM = ("dim",)
_OTHER = ("other",)
METHOD_ALIASES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        ("all", "amax", "amin", "any", "argmax", "argmin", "argsort", "chunk", "cross",
         "cumsum", "diff", "index_add", "index_select", "logsumexp", "mean", "prod",
         "quantile", "repeat_interleave", "softmax", "squeeze", "sum", "take_along_axis",
         "take_along_dim", "tensor_split", "topk", "unbind", "unflatten",
         "unique_consecutive", "unsqueeze", "var"), _DIM),
    **dict.fromkeys(
        ("add", "bitwise_or", "div", "divide", "eq", "equal", "expand_as", "floor_divide",
         "floor_mod", "gcd", "gcd_", "ge", "greater", "greater_equal", "greater_than", "gt",
         "isclose", "lcm", "le", "less", "less_equal", "less_than", "logical_and",
         "logical_or", "logical_xor", "lt", "matmul", "maximum", "minimum", "mod", "mul",
         "multiply", "ne", "not_equal", "remainder", "sub", "subtract"), _OTHER),
    "norm": ("dim", "ord"), "diagonal": ("dim1", "dim2"), "dot": ("tensor",),
    "outer": ("vec2",), "bmm": ("mat2",), "mm": ("mat2",), "where": ("input", "other"),
}


# EXTRA_ALIASES' rows Paddle 3.3.1's methods accept too (measured; x.take_along_axis(input=)
# and x.dot(other=) are refused there), and keywords only its methods take
# (x.argmax(keepdims=True)). A method wrapped only for these (roll, tile, unfold, pow)
# pays the wrapper's call layer on every call (~0.35 us, measured: none is a hot path;
# flatten, transpose, view, permute and gather read their torch-style forms themselves).
METHOD_EXTRA_ALIASES: dict[str, dict[str, str]] = {
    "index_add": {"source": "value"}, "unflatten": {"sizes": "shape"},
    "tensor_split": {"indices": "num_or_indices", "sections": "num_or_indices"},
    "roll": {"dims": "axis"}, "tile": {"dims": "repeat_times"}, "unfold": {"dimension": "axis"},
    "pow": {"exponent": "y"}, "argmax": {"keepdims": "keepdim"},
    "argmin": {"keepdims": "keepdim"},
}


def method_aliases(name: str, fn: Callable) -> dict[str, str]:
    """{alias: parameter} the method `name` (the function fn, its receiver first) takes:
    aliases_of(fn) as far as Paddle's method accepts them, never one for the receiver."""
    accepted = METHOD_ALIASES.get(name, ())
    extra = METHOD_EXTRA_ALIASES.get(name, {})
    if not accepted and not extra:
        return {}
    try:
        receiver = next(iter(inspect.signature(fn).parameters))
    except (TypeError, ValueError, StopIteration):
        return {}
    found = {a: t for a, t in aliases_of(fn).items() if a in accepted and t != receiver}
    own = _own_params(fn)
    return {**found, **{a: t for a, t in extra.items() if t in own and a not in own}}


def install_methods(methods: dict[str, Callable], cls: type | None = None) -> None:
    """Replace the Tensor methods in `methods` (name -> function) that take aliases by
    their aliased forms; a form `cls` already bound (Tensor binds a method on first use)
    is unbound, to be bound again."""
    torch_names = {n.partition(".")[2]: kw for n, kw in torch_kwargs.TABLE.items()
                   if n.startswith("Tensor.")}
    for name in {**dict.fromkeys(METHOD_ALIASES), **dict.fromkeys(METHOD_EXTRA_ALIASES),
                 **torch_names}:
        bound = fn = methods.get(name)
        if hasattr(fn, "param_aliases") and hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__     # a public wrapper: its function (a method takes only
            #                         the aliases Paddle's does; tanh reads its own input=)
        if not isinstance(fn, types.FunctionType):
            continue
        mapping = method_aliases(name, fn)
        extra = frozenset(torch_names.get(name, ())) - _own_params(fn)
        # (the hot ones read out= themselves, x.exp(out=o): no wrapper, torch_kwargs.py)
        if mapping or extra:
            wrapped = with_aliases(fn, mapping)
            wrapped.torch_kwargs = wrapped.torch_kwargs | extra  # type: ignore[attr-defined]
        elif bound is not fn and _WRAPPERS.get(fn) is bound:
            # the function's alias wrapper, of no use to the method (sum and mean read
            # dim= and out= themselves): the function, without the wrapper's call layer
            wrapped = fn
        else:
            continue
        methods[name] = wrapped
        if cls is not None and vars(cls).get(name) is bound:
            delattr(cls, name)
