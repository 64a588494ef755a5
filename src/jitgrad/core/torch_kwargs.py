"""Paddle 3.x's torch-style keywords on the public functions that take them in Paddle 3.3.1:
`out=` (the result written into a given tensor), `device=`, `requires_grad=` and
`pin_memory=` (TABLE, measured with inspect.signature over the functions jitgrad also
exports: 247 names, perf/paddle_torch_kwargs.py).

Semantics, as measured on Paddle 3.3.1 (CPU build):
- `out=t`: t takes the result's values, shape, dtype and graph position (Paddle's out
  shares the result's storage and grad node; its old shape and dtype do not matter), and
  is returned. A gradient flows through it as through the result; t keeps
  stop_gradient=False if it had it (a leaf then stays one when the result has no graph). A
  function returning a tuple (topk) takes a tuple of as many tensors. jitgrad's `t` is
  the same object as the one returned; anything but a Tensor raises TypeError (Paddle
  ignores it).
- `device=`: None, 'cpu' (any case) or a CPU place run as without it; any other device
  raises ValueError ('cpu:0' too, as in Paddle; jitgrad computes on the CPU only).
- `requires_grad=True` (the bool True only, as Paddle's `requires_grad is True`): the new
  tensor has stop_gradient=False (so has `out`).
- `pin_memory=True` raises RuntimeError as Paddle's CPU build does; False is accepted.

They are read where param_aliases reads the aliases: only after a call failed with a
TypeError (an unknown keyword is refused before the body runs), so a call without them
pays nothing (core/param_aliases.py, ops/core.check_tensor_args). That needs the function's
wrapper, which every public function has (check_tensor_args', or with_aliases' for its
aliases, or one made for these keywords: arange, eye, linspace ...). A Tensor method has a
wrapper where it takes aliases (x.sum, x.add) or these keywords (x.round(out=o),
x.cumsum, x.new_zeros(device=)); the hot ones read out= themselves, as a positional-or-
keyword parameter (x.exp, x.tanh, x.sqrt, the other one-input math ops, x.clip, x.gather:
a wrapper costs ~0.35 us a call; the default and one `out is None` test cost 0.7-1.8%,
measured in-process on x.exp(), x.tanh(), x.log1p(), x.floor()). methods_without_out()
lists the methods that still refuse out= (none).
"""

from __future__ import annotations

from typing import Any, Callable

from .places import to_place

KWARGS = frozenset(("out", "device", "requires_grad", "pin_memory"))

# Which of them each function takes in Paddle 3.3.1 ("Tensor.exp": the method; the keyword
# is the function"s own subject in set_device, get_rng_state and requires_grad_: left out)
TABLE: dict[str, tuple[str, ...]] = {
    **dict.fromkeys((
        "Tensor.abs", "Tensor.acos", "Tensor.acosh", "Tensor.add", "Tensor.all",
        "Tensor.amax", "Tensor.amin", "Tensor.any", "Tensor.atanh", "Tensor.bitwise_and",
        "Tensor.bitwise_invert", "Tensor.bitwise_left_shift", "Tensor.bitwise_left_shift_",
        "Tensor.bitwise_not", "Tensor.bitwise_or", "Tensor.bitwise_right_shift",
        "Tensor.bitwise_right_shift_", "Tensor.bitwise_xor", "Tensor.bmm",
        "Tensor.bucketize", "Tensor.ceil", "Tensor.clamp", "Tensor.clip", "Tensor.concat",
        "Tensor.cos", "Tensor.cosh", "Tensor.cumprod", "Tensor.cumsum", "Tensor.diff",
        "Tensor.div", "Tensor.divide", "Tensor.dot", "Tensor.eq", "Tensor.equal",
        "Tensor.exp", "Tensor.expm1", "Tensor.floor", "Tensor.floor_divide",
        "Tensor.floor_mod", "Tensor.frac", "Tensor.gather", "Tensor.ge", "Tensor.greater",
        "Tensor.greater_equal", "Tensor.greater_than", "Tensor.gt", "Tensor.index_add",
        "Tensor.index_select", "Tensor.le", "Tensor.less", "Tensor.less_equal",
        "Tensor.less_than", "Tensor.log", "Tensor.log10", "Tensor.log1p", "Tensor.log2",
        "Tensor.logical_and", "Tensor.logical_not", "Tensor.logical_or",
        "Tensor.logical_xor", "Tensor.logsumexp", "Tensor.lt", "Tensor.masked_select",
        "Tensor.matmul", "Tensor.maximum", "Tensor.mean", "Tensor.median", "Tensor.minimum",
        "Tensor.mod", "Tensor.msort", "Tensor.mul", "Tensor.multinomial", "Tensor.multiply",
        "Tensor.ne", "Tensor.nonzero", "Tensor.norm", "Tensor.not_equal", "Tensor.outer",
        "Tensor.pow", "Tensor.prod", "Tensor.quantile", "Tensor.remainder", "Tensor.round",
        "Tensor.rsqrt", "Tensor.scatter", "Tensor.sigmoid", "Tensor.sign", "Tensor.sin",
        "Tensor.sinh", "Tensor.softmax", "Tensor.solve", "Tensor.sqrt", "Tensor.stack",
        "Tensor.sub", "Tensor.subtract", "Tensor.sum", "Tensor.take_along_axis",
        "Tensor.take_along_dim", "Tensor.tanh", "Tensor.topk", "Tensor.tril", "Tensor.triu",
        "Tensor.true_divide", "Tensor.var", "Tensor.where", "abs", "acos", "acosh", "add",
        "all", "amax", "amin", "any", "atanh", "bitwise_and", "bitwise_invert",
        "bitwise_left_shift", "bitwise_left_shift_", "bitwise_not", "bitwise_or",
        "bitwise_right_shift", "bitwise_right_shift_", "bitwise_xor", "bmm", "bucketize",
        "cat", "ceil", "clamp", "clip", "concat", "concatenate", "cos", "cosh", "cumprod",
        "cumsum", "diff", "div", "divide", "dot", "eq", "equal", "exp", "expm1", "floor",
        "floor_divide", "floor_mod", "frac", "gather", "ge", "ger", "greater",
        "greater_equal", "greater_than", "gt", "index_add", "index_select", "le", "less",
        "less_equal", "less_than", "linalg.norm", "linalg.solve", "linalg.svd",
        "linalg.vector_norm", "log", "log10", "log1p", "log2", "logical_and", "logical_not",
        "logical_or", "logical_xor", "logsumexp", "lt", "masked_select", "matmul",
        "maximum", "mean", "median", "minimum", "mod", "msort", "mul", "multinomial",
        "multiply", "ne", "nn.functional.normalize", "nn.functional.sigmoid",
        "nn.functional.softmax", "nn.functional.tanh", "nonzero", "norm", "normal",
        "not_equal", "outer", "pow", "prod", "quantile", "remainder", "round", "rsqrt",
        "scatter", "searchsorted", "sigmoid", "sign", "sin", "sinh", "softmax", "sqrt",
        "stack", "sub", "subtract", "sum", "take_along_axis", "take_along_dim", "tanh",
        "topk", "tril", "triu", "true_divide", "var", "where"
    ), ("out",)),
    # (found by calling Paddle 3.3.1's methods, not in their signatures: x.argmax(out=o)
    # writes o, and numpy's np.argmax(t) calls t.argmax(axis=None, out=None); x.clone,
    # x.detach and x.contiguous take any keyword and ignore it: left out)
    **dict.fromkeys(("Tensor.argmax", "Tensor.argmin", "Tensor.diagonal", "Tensor.expand_as",
                     "Tensor.roll"), ("out",)),
    **dict.fromkeys((
        "Tensor.new_empty", "Tensor.new_full", "Tensor.new_ones", "Tensor.new_zeros",
        "as_tensor", "empty_like", "full_like", "ones_like", "zeros_like"
    ), ("device", "requires_grad", "pin_memory")),
    **dict.fromkeys((
        "arange", "empty", "eye", "full", "ones", "rand", "randn", "randperm", "zeros"
    ), ("out", "device", "requires_grad", "pin_memory")),
    **dict.fromkeys((
        "linspace", "range", "standard_normal", "uniform"
    ), ("out", "device", "requires_grad")),
    **dict.fromkeys((
        "asarray", "rand_like", "randn_like"
    ), ("device", "requires_grad")),
}


def split(fn_name: str, allowed: Any, kwargs: dict) -> tuple[dict, dict] | None:
    """(kwargs without the torch-style keywords in `allowed`, those keywords) after checking
    device and pin_memory; None when kwargs has none of them."""
    if not allowed or allowed.isdisjoint(kwargs):
        return None
    rest, extras = {}, {}
    for k, v in kwargs.items():
        (extras if k in allowed else rest)[k] = v
    if "device" in extras:
        to_place(extras["device"], f"{fn_name}()")   # (None: the CPU)
    if extras.get("pin_memory"):
        raise RuntimeError(f"{fn_name}(): pin_memory=True is not supported: jitgrad has no "
                           "pinned memory, it runs on the CPU only (Paddle's CPU build: "
                           "'Pinning memory is not supported for Place(cpu)')")
    return rest, extras


def finish(fn_name: str, result: Any, extras: dict) -> Any:
    """The result of a call given the torch-style keywords in `extras` (split's)."""
    grad = extras.get("requires_grad") is True
    if grad:
        result.stop_gradient = False
    out = extras.get("out")
    if out is not None:
        result = write_out(fn_name, out, result)
        if grad:                # (a leaf out keeps its own stop_gradient otherwise)
            result.stop_gradient = False
    return result


# ops/inplace.py's write_result (x takes an op's result), which that module installs here:
# the core stage imports no later one
_write_result: Callable[[Any, Any], Any] | None = None


def set_result_writer(fn: Callable[[Any, Any], Any]) -> None:
    """Install the function that makes `out` an op's result (ops/inplace.write_result)."""
    global _write_result
    _write_result = fn


def write_out(fn_name: str, out: Any, result: Any) -> Any:
    """`out` (a Tensor, or a tuple of them for a tuple result) takes `result`: its values,
    shape, dtype and graph position. Returns out (a tuple of them: the result's type)."""
    from .tensor import Tensor
    write_result = _write_result
    if write_result is None:        # (never: importing jitgrad imports ops/inplace.py)
        raise RuntimeError("out= needs jitgrad.ops, which is not imported")
    if isinstance(result, Tensor):
        if not isinstance(out, Tensor):
            raise TypeError(f"{fn_name}(): out must be a Tensor, got {type(out).__name__}")
        return write_result(out, result)
    if isinstance(result, (tuple, list)):
        if not isinstance(out, (tuple, list)) or len(out) != len(result) or \
                not all(isinstance(t, Tensor) for t in out):
            raise TypeError(f"{fn_name}(): out must be a tuple of {len(result)} Tensors (the "
                            f"result's), got {type(out).__name__}"
                            + (f" of {len(out)}" if isinstance(out, (tuple, list)) else ""))
        outs = [write_result(t, r) if isinstance(r, Tensor) else r for t, r in zip(out, result)]
        return type(result)(*outs) if hasattr(result, "_fields") else type(result)(outs)
    raise TypeError(f"{fn_name}(): out= needs a Tensor result, got {type(result).__name__}")


def out_param(fn_name: str, out: Any, result: Any) -> Any:
    """For a function with an `out` parameter of its own (Paddle's is positional there:
    bitwise_not(x, out, name), norm(x, p, axis, keepdim, out)): result, written into out
    when one is given."""
    return result if out is None else write_out(fn_name, out, result)


def methods_without_out() -> list[str]:
    """The Tensor methods TABLE gives out= that refuse it in jitgrad (none, see above)."""
    from .param_aliases import _own_params
    from .tensor import Tensor
    names = [n.partition(".")[2] for n, kw in TABLE.items() if n.startswith("Tensor.")
             and "out" in kw]
    return sorted(n for n in names if not hasattr(getattr(Tensor, n), "torch_kwargs")
                  and "out" not in _own_params(getattr(Tensor, n)))
