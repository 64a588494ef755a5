"""In-place ops (Paddle's trailing-underscore methods) and `x[key] = value`.

Without a gradient involved the tensor gets a new buffer with the new values (copy on write:
tensors sharing the old buffer keep their values, so nothing recorded changes unseen). When
one is (a non-leaf that needs grad, or a value that needs grad), the out-of-place op is
recorded and the tensor is rebound to its result, keeping the old value alive for the nodes
that recorded it. Either way the tensor's version counter goes up, and a backward through a
node that recorded the older version raises RuntimeError (tape.check_versions). A leaf that
needs a gradient cannot be changed in place while grad mode is on (ValueError), as in Paddle.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, NamedTuple

import numpy as np

from ..core import dtypes, tape, torch_kwargs
from ..core.grad_store import ViewLinks
from ..core.grad_store import grad_owner as _grad_owner
from ..core.tensor import VERSION_GROUPS_MADE, Tensor
from .core import apply_xy
from . import aliases as AL
from . import elementwise as E
from . import indexing as IX
from . import lookup as LK
from . import math as M
from . import composites as MO
from . import numeric as NU
from . import search as SE
from . import special as SP


def check_inplace(x: Tensor, opname: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{opname} needs a jitgrad Tensor, got {type(x).__name__}")
    if x._node is None and not x._stop_gradient and tape.is_grad_enabled():
        raise ValueError(
            f"{opname}: a leaf tensor that needs a gradient (stop_gradient=False) cannot be "
            "changed in place while gradients are recorded; wrap the update in "
            "`with paddle.no_grad():` (as optimizers do) or use the out-of-place op")


# The slots themselves: reading an unset one raises AttributeError at once, where getattr(x,
# name, None) first goes through Tensor.__getattr__ (~1 us each, twice per setitem step).
_vgroup_of = Tensor._vgroup.__get__
_MODE = tape.MODE
_shadows_of = Tensor._shadows.__get__


def bump(x: Tensor) -> None:
    """Record that x's values changed in place (and those of the tensors sharing its version
    counter: its detach()es, tensor.share_version)."""
    x._version += 1
    group = None
    if VERSION_GROUPS_MADE[0]:
        try:
            group = _vgroup_of(x)
        except AttributeError:
            pass
    if group is not None:
        v = x._version
        for t in group:
            t._version = v
    tape.bump_epoch()           # lowered Programs may hold the old values: re-lower


def inplace(x: Tensor, fn: Callable[[Tensor], Tensor], opname: str,
            keep_dtype: bool = False) -> Tensor:
    """x = fn(x), in place: writes into x's buffer, or rebinds x when a graph is recorded.
    A float result of an integer or bool x, or a wider float one, gives x its dtype (as
    Paddle 3.3.1's in-place ops do), unless `keep_dtype` (clip_: Paddle casts it back)."""
    check_inplace(x, opname)
    # (a stand-in only where fn may record a node: without grad mode a leaf x is read as is)
    shadow = x if x._node is None and not _MODE.grad_enabled else stand_in(x)
    new = fn(shadow)
    if not isinstance(new, Tensor):
        raise TypeError(f"{opname} produced {type(new).__name__}, not a Tensor")
    if tuple(new._data.shape) != tuple(x._data.shape):
        raise ValueError(f"{opname}: the shape of the output {list(new.shape)} is different "
                         f"from that of inplace tensor {list(x.shape)} in the Inplace "
                         "operation; an in-place op cannot change its tensor's shape: use "
                         f"the out-of-place paddle.{opname.rstrip('_')} instead")
    nd, xd = new._data.dtype, x._data.dtype
    if nd is not xd and nd != xd and nd.kind == "f" and not keep_dtype and (
            xd.kind != "f" or nd.itemsize > xd.itemsize):
        # a float result of an integer or bool x (exp_, log_, divide_ of ints), or a wider
        # float (float32 x, float64 y): x takes its dtype, as in Paddle 3.3.1 (cast back
        # to x's dtype, an integer x's values were truncated)
        if new._node is None:
            _write(x, new._data, dtype=nd)
            return x
        return rebind(x, shadow, new, keep_dtype=False)
    if new._node is None:
        _write(x, new._data)
        return x
    return rebind(x, shadow, new)


def stand_in(x: Tensor) -> Tensor:
    """A stand-in for x's current value and graph position, so that a node recording an
    in-place change of x does not take x as its own input."""
    shadow = Tensor._make(x._data, x._stop_gradient, x._node)
    shadow._version = x._version
    return shadow


def rebind(x: Tensor, shadow: Tensor, new: Tensor, keep_dtype: bool = True) -> Tensor:
    """x becomes `new` (a recorded op's result computed from `shadow`, x's stand-in): its
    values and graph position (cast to x's dtype, unless not `keep_dtype`: cast_). Readers
    of x's old version reach its old node through the stand-in, and x's version goes up.
    Returns x."""
    leave_stand_in(x, shadow)
    old = x._data
    if keep_dtype and new._data.dtype != old.dtype:
        new = E.astype(new, old.dtype)
    trained_leaf = x._node is None and x._grad is not None
    x._data, x._node, x._stop_gradient = new._data, new._node, new._stop_gradient
    new._node.out_ref = weakref.ref(x)
    bump(x)
    node = x._node
    node.versions = node.versions[:-1] + (x._version,)
    _write_through_data_view(x, old)
    if trained_leaf and not x._retain:
        # a leaf with a gradient made a non-leaf by a recorded write: the hand-written SGD
        # step `w.stop_gradient = True; w.subtract_(lr * w.grad); w.stop_gradient = False`
        # records it (w.grad needs a gradient, as in Paddle). w keeps getting its gradient
        # in .grad, as Paddle 3.3.1 gives it at the next backward (which then fails at the
        # one after: its graph of w reaches the freed step); it stalled silently here
        x.retain_grads()
    return x


def _write_through_data_view(x: Tensor, old: np.ndarray) -> None:
    """x is `source.data` still holding source's buffer `old`: source takes x's new values
    (not its graph), as _write does; also when the change was recorded, a value that needs
    a gradient (`p.data.subtract_(lr * p.grad)`: Paddle 3.3.1's p changes; p kept its
    values), and when it gave x another shape or dtype (`p.data.uniform_()`, `cast_`,
    `reshape_`: Paddle's p shares x's storage). (The version went up with x's: they share
    the counter.)"""
    source = _DATA_VIEWS.owner(x)
    if source is not None and source._data is old:
        source._data = x._data


def leave_stand_in(x: Tensor, shadow: Tensor) -> None:
    """x's current version is `shadow` from now on: x's node (if any) outputs the stand-in,
    and consumers of this version reach that node through it (tape.check_versions)."""
    if x._node is not None:
        x._node.out_ref = weakref.ref(shadow)
    try:
        shadows = _shadows_of(x)
    except AttributeError:
        shadows = None
    if shadows is None:
        x._shadows = shadows = {}
    shadows[x._version] = shadow


def _write(x: Tensor, values: np.ndarray, key: Any = None, dtype: Any = None) -> None:
    """Copy on write: x gets a fresh buffer holding the new values. Another tensor may share
    the old buffer (a detach(), a reshape or slice view, a node's saved output); it keeps its
    values, so no recorded gradient can change behind its version counter. Except `x.grad`'s
    wrapper: it writes through into x's accumulator, which it shares (Paddle, item 18).
    With `dtype` (and no key), x takes the values in that dtype (the accumulator of a
    `.grad` wrapper keeps its own)."""
    owner = _grad_owner(x)
    if owner is not None and owner._grad is x._data:
        if key is None:
            np.copyto(x._data, values, casting="unsafe")
        else:
            x._data[key] = values
        bump(x)
        return
    old = x._data
    if dtype is not None and key is None:
        data = np.array(values, dtype=dtype, copy=True)
    elif key is None and values.shape == old.shape and values.flags.c_contiguous \
            and old.flags.c_contiguous:
        data = np.array(values, dtype=old.dtype, copy=True)    # (one pass: copy and cast)
    else:
        data = np.array(old, copy=True)
        if key is None:
            np.copyto(data, values, casting="unsafe")
        else:
            data[key] = values
    x._data = data
    bump(x)
    source = _DATA_VIEWS.owner(x)
    if source is not None and source._data is old:     # x is source.data: write through
        source._data = data                             # (its version went up with x's)
    if owner is not None:       # x is owner's differentiable grad: keep .grad's values equal
        np.copyto(owner._grad, data, casting="unsafe")


def _positions(x: Tensor, key: Any) -> np.ndarray:
    from .shape import _flat_positions, _normalize_key
    return _flat_positions(x._data.shape)[_normalize_key(key, x._data.shape)]


# ---- x[key] = value recorded, for a key of ints and slices: its tables kept per shape -------
# A training loop writes the same slice of the same shape each step. put_flat's index table
# and its two saved masks depend only on (shape, key, dtype): built once, read-only, and
# shared by the steps' nodes, so a step neither rebuilds them (~5 us) nor, the table being
# the same read-only array as last time, recopies it into the Program (binding.bind_values).

class _PutPlan(NamedTuple):
    attrs: dict             # put_flat's attributes: the flat positions written, "assign"
    shape: tuple            # x[key]'s shape: value broadcasts to it
    saved: tuple            # put_flat's saved (kept, written) masks (indexing._put_save)


_PUT_PLANS: dict[tuple, _PutPlan] = {}
_PUT_PLANS_KEPT = 256                   # entries, and bytes (a large x's masks are large)
_PUT_PLANS_BYTES = 32 << 20
_put_plans_bytes = 0


def _plain_key(key: Any) -> tuple | None:
    """A hashable spelling of a key of Python ints, slices of ints, None and Ellipsis; None
    for any other key (an index array, a bool, a numpy int or a Tensor in a slice: their
    values could change under a cache key holding them)."""
    out = []
    for k in (key if type(key) is tuple else (key,)):
        t = type(k)
        if t is slice:
            a, b, c = k.start, k.stop, k.step
            if not ((a is None or type(a) is int) and (b is None or type(b) is int)
                    and (c is None or type(c) is int)):
                return None
            out.append((a, b, c))
        elif t is int or k is None or k is Ellipsis:
            out.append(k)
        else:
            return None
    return tuple(out)


def _put_plan(d: np.ndarray, key: Any) -> tuple[_PutPlan, tuple] | None:
    """The cached plan of x[key] = value for x's values d, with the key as a tuple; None
    when the key is not plain (_plain_key) or d is not C-contiguous (a transpose's view
    takes put_flat's own path, whose forward copies it in C order)."""
    if not d.flags.c_contiguous:
        return None
    plain = _plain_key(key)
    if plain is None:
        return None
    k = key if type(key) is tuple else (key,)
    ck = (d.shape, plain, d.dtype)
    plan = _PUT_PLANS.get(ck)
    if plan is None:
        plan = _new_plan(d.shape, k, d.dtype)       # (an IndexError as without the cache)
        _keep_plan(ck, plan)
    return plan, k


def _new_plan(shape: tuple, key: tuple, dtype: np.dtype) -> _PutPlan:
    """put_flat's table and masks for x[key] = value, x of this shape and dtype, read-only;
    the masks are indexing's numpy spelling of what _put_save computes (the same 0/1)."""
    from .shape import _flat_positions
    pos = _flat_positions(shape)[key]
    idx = np.asarray(pos, dtype=np.int64).flatten()     # (a copy: owns its data)
    # (copies that own their data: a read-only view's writable base could still change)
    kept = np.array(IX._kept_mask(shape, idx, dtype))
    written = np.array(IX._written_mask(idx, dtype))
    for a in (idx, kept, written):
        a.setflags(write=False)
    return _PutPlan({"idx": idx, "reduce": "assign"}, np.shape(pos), (kept, written))


def _keep_plan(ck: tuple, plan: _PutPlan) -> None:
    """Cache a plan, emptying the cache first when it would exceed its bounds."""
    global _put_plans_bytes
    size = plan.attrs["idx"].nbytes + sum(a.nbytes for a in plan.saved)
    if size > _PUT_PLANS_BYTES:
        return                                      # (too big to keep: rebuilt each time)
    if len(_PUT_PLANS) >= _PUT_PLANS_KEPT or _put_plans_bytes + size > _PUT_PLANS_BYTES:
        _PUT_PLANS.clear()
        _put_plans_bytes = 0
    _PUT_PLANS[ck] = plan
    _put_plans_bytes += size


def _put_planned(s: Tensor, key: tuple, plan: _PutPlan, value: Any) -> Tensor:
    """put_flat(s, positions of key, value) from a cached plan: the same node (op, inputs,
    attributes, saved masks) and values. The forward copies s and assigns value by the key
    itself (a strided copy; numpy's fancy assignment by position costs more), which puts
    the same values at the same places as put_flat's flat assignment."""
    values = IX._values_for(s, value, plan.shape)
    out = np.array(s._data, copy=True)
    out[key] = values._data
    return apply_xy(IX.put_flat_op, s, values, plan.attrs, out=out, saved=plan.saved)


def setitem(x: Tensor, key: Any, value: Any) -> None:
    """x[key] = value. Values broadcast to the indexed shape; gradients reach the rest of
    x (a non-leaf) and value (when it is a Tensor that needs grad)."""
    check_inplace(x, "__setitem__")
    if value is None:       # (numpy reads None as NaN: x[0] = None wrote NaN silently)
        raise ValueError("cannot assign None to a tensor's elements: the value must be a "
                         "Tensor, numpy array, int, float or bool (Paddle's rule)")
    value_needs = isinstance(value, Tensor) and not value._stop_gradient
    if not tape.is_grad_enabled() or (x._stop_gradient and not value_needs):
        from .shape import _normalize_key
        v = value._data if isinstance(value, Tensor) else np.asarray(value)
        if x._data.dtype == np.float16 and v.dtype != np.float16 and \
                not isinstance(value, (np.ndarray, list, tuple)):
            # a number or a tensor reaches float16 through float32, as Paddle converts;
            # numpy arrays and lists directly, as its to_tensor does
            v = dtypes.to_dtype_array(v, x._data.dtype)
        k = _normalize_key(key, x._data.shape)
        try:
            try:
                _write(x, v, k)
            except ValueError:
                if not (v.ndim and v.shape[0] == 1):
                    raise
                # a value with leading ones into fewer dims, one element included
                # (c[0] = [5.]): dropped, as Paddle 3.3.1 drops them (numpy keeps them
                # for a single element)
                while v.ndim and v.shape[0] == 1:
                    v = v[0]
                _write(x, v, k)
        except (IndexError, ValueError) as e:
            raise type(e)(f"cannot assign to index {key!r} of a tensor of shape {list(x.shape)}: "
                          f"{e}") from None
        return
    planned = _put_plan(x._data, key)
    if planned is not None:
        plan, k = planned
        inplace(x, lambda s: _put_planned(s, k, plan, value), "__setitem__")
        return
    pos = _positions(x, key)
    inplace(x, lambda s: IX.put_flat(s, pos, value), "__setitem__")


# ---- the trailing-underscore methods --------------------------------------------------------

def _scale(x, scale=1.0, bias=0.0, bias_after_scale=True):
    from .attribute import scale as scale_op
    return scale_op(x, scale, bias, bias_after_scale)


def _keeping_dtype(x: Tensor, fn: Callable[[Tensor], Tensor], opname: str) -> Tensor:
    return inplace(x, fn, opname, keep_dtype=True)


def _fill(x, value):
    return E.add(E.multiply(x, 0.0), value) if x._data.dtype.kind == "f" else \
        Tensor._make(np.full_like(x._data, value))


def check_broadcast(x: Any, others: tuple, opname: str) -> None:
    """Refuse operands that would broadcast x to a bigger shape: an in-place op never
    changes x's shape (Paddle's ValueError and wording). Python numbers and operands that
    broadcast to x's shape pass."""
    if not isinstance(x, Tensor):
        return                                  # (check_inplace says what is wrong)
    xs = x._data.shape
    for o in others:
        if isinstance(o, Tensor):
            s = o._data.shape
        elif isinstance(o, (np.ndarray, list, tuple)):
            try:
                s = np.shape(o)
            except ValueError:          # a ragged list: the op itself says what is wrong
                continue
        else:
            continue
        if s != xs and not _fits(s, xs):
            _refuse(xs, s, opname)


def _fits(s: tuple, xs: tuple) -> bool:
    """Whether shape s broadcasts to xs (without making it bigger)."""
    n = len(s)
    if n > len(xs):
        return False
    for d, e in zip(s, xs[len(xs) - n:]):
        if d != e and d != 1:
            return False
    return True


def _refuse(xs: tuple, s: tuple, opname: str) -> None:
    try:
        out = np.broadcast_shapes(xs, s)
    except ValueError:
        raise ValueError(f"{opname}: operands could not be broadcast together: x has shape "
                         f"{list(xs)}, the other operand {list(s)}") from None
    raise ValueError(
        f"{opname}: the shape of broadcast output {list(out)} is different from that of "
        f"inplace tensor {list(xs)} in the Inplace operation; an in-place op cannot change "
        f"its tensor's shape: use the out-of-place paddle.{opname.rstrip('_')} (or expand x "
        "to the broadcast shape first)")


def more_versions(x: Tensor, n: int, node_before: Any) -> None:
    """n more version bumps of x after an in-place op that Paddle runs as n + 1 in-place
    steps (hypot_ is x.pow_(2).add_(y.pow(2)).sqrt_()), so x.inplace_version counts as in
    Paddle. The node this op recorded (if any) sees x's final version as its output's."""
    for _ in range(n):
        bump(x)
    node = x._node
    if n > 0 and node is not None and node is not node_before:
        node.versions = node.versions[:-1] + (x._version,)


_NO_X: Any = object()
_NUMBER_TYPES = frozenset((int, float, bool, complex))


def take_x(kwargs: dict, first: str, name: str) -> Any:
    """The in-place target passed by keyword (`paddle.add_(x=a, y=b)`)."""
    if first in kwargs:
        return kwargs.pop(first)
    raise TypeError(f"{name}() missing its tensor argument '{first}' (the tensor changed in "
                    "place)")


def zero_dim_operand(x: Any, y: Any, opname: str, true_divide: bool = False) -> Any:
    """The dtype x takes in a binary in-place op whose operand y is a 0-d tensor, or None
    (keep x's). Paddle 3.3.1's in-place ops promote a 0-d tensor operand as any tensor,
    not as a number (the out-of-place rule): float32 x with a 0-d float64 y becomes
    float64, and an int x with a 0-d float y, or two int dtypes, raise TypeError."""
    if not (isinstance(y, Tensor) and isinstance(x, Tensor) and y._data.ndim == 0):
        return None
    xd, yd = x._data.dtype, y._data.dtype
    if xd == yd:
        return None
    try:
        dt = dtypes.result_dtype(xd, yd, true_divide)
    except TypeError as e:
        raise TypeError(f"{opname}: {e}; an in-place op promotes a 0-d tensor operand as a "
                        "tensor (Paddle 3.3.1), a Python number as a number") from None
    return dt if dt != xd and dt.kind == "f" else None


def _first_param(fn: Callable) -> str:
    import inspect
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return "x"
    return params[0].name if params and params[0].kind in (
        params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD) else "x"


def _method(fn: Callable, name: str, run: Callable | None = None,
            doc: str = "changes x and returns it", operands: tuple = (),
            versions: int = 1) -> Callable:
    """x.<name>(...): fn's result written into x by `run` (inplace, or inplace_more.become
    for results that may change x's shape or dtype). x is positional-only, so that fn's own
    keyword `x` (addmm_(input, x=, y=)) reaches fn; fn's first parameter may also be given
    by keyword. `operands`: (keyword, position after x) of the operands that broadcast
    against x, checked first (check_broadcast). `versions`: how many in-place steps Paddle
    counts for one call (more_versions)."""
    run = inplace if run is None else run
    first = _first_param(fn)
    true_divide = name in ("divide_", "div_")

    def method(x: Tensor = _NO_X, /, *args: Any, **kwargs: Any) -> Tensor:
        if x is _NO_X:
            x = take_x(kwargs, first, name)
        f = None
        if operands:
            if operands is Y:                   # (the common case, without a generator)
                y = args[0] if args else kwargs.get("y")
                if y.__class__ not in _NUMBER_TYPES and not (
                        isinstance(y, Tensor) and isinstance(x, Tensor)
                        and y._data.shape == x._data.shape):
                    check_broadcast(x, (y,), name)
                    dt = zero_dim_operand(x, y, name, true_divide)
                    if dt is not None:          # x computes (and stays) in y's wider float
                        def f(s: Tensor) -> Tensor:
                            return fn(E.astype(s, dt), *args, **kwargs)
            else:
                check_broadcast(x, tuple(args[i] if len(args) > i else kwargs.get(k)
                                         for k, i in operands), name)
        if f is None:
            def f(s: Tensor) -> Tensor:
                return fn(s, *args, **kwargs)
        if versions == 1:
            return run(x, f, name)
        node = getattr(x, "_node", None)
        out = run(x, f, name)
        more_versions(x, versions - 1, node)
        return out
    method.__name__ = name
    method.__doc__ = f"In-place {name[:-1]}: {doc}."
    return method


def _zero(x: Tensor) -> Tensor:
    return _fill(x, 0)


def _need_tensor(v: Any, what: str, opname: str) -> None:
    if not isinstance(v, Tensor):
        raise TypeError(f"{opname}: {what} must be a Tensor, got {type(v).__name__}; convert "
                        "it with paddle.to_tensor(...)")


def pow_(x: Tensor, y: float, name: str | None = None) -> Tensor:
    """x = x ** y in place, for a Python number y (Paddle's pow_ takes no tensor y)."""
    if not isinstance(y, (int, float)):
        raise TypeError(f"pow_(): y must be scalar type, but received: {type(y)} (a Python "
                        "int or float; for a tensor exponent use the out-of-place "
                        "paddle.pow(x, y))")
    return inplace(x, lambda s: E.pow(s, y), "pow_")


def hypot_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x = sqrt(x**2 + y**2) in place; three in-place steps in Paddle (pow_, add_, sqrt_),
    so x's version goes up by 3."""
    _need_tensor(x, "x", "hypot_")
    _need_tensor(y, "y", "hypot_")
    check_broadcast(x, (y,), "hypot_")
    dt = zero_dim_operand(x, y, "hypot_")
    node = x._node
    inplace(x, lambda s: NU.hypot(s if dt is None else E.astype(s, dt), y), "hypot_")
    more_versions(x, 2, node)
    return x


def index_fill_(x: Tensor, index: Tensor, axis: int, value: Any,
                name: str | None = None) -> Tensor:
    """index_fill in place; Paddle's transpose_, index_put_, transpose_ (version + 3), and
    an empty index leaves x as it is (version unchanged)."""
    if isinstance(index, Tensor) and index._data.size == 0 and isinstance(x, Tensor):
        return x
    node = getattr(x, "_node", None)
    inplace(x, lambda s: LK.index_fill(s, index, axis, value), "index_fill_")
    more_versions(x, 2, node)
    return x


def addmm_(input: Tensor, x: Tensor, y: Tensor, beta: float = 1.0, alpha: float = 1.0,
           name: str | None = None) -> Tensor:
    """input = beta * input + alpha * (x @ y) in place (addmm's shape checks first)."""
    MO._check_addmm_tensors(input, x, y)
    return inplace(input, lambda s: MO.addmm(s, x, y, beta, alpha), "addmm_")


Y = (("y", 0),)                 # the one operand of a binary op, after x
_OPS = {
    "add": E.add, "subtract": E.subtract, "multiply": E.multiply, "divide": E.divide,
    "scale": _scale, "fill": _fill, "zero": _zero, "clip": E.clip, "exp": E.exp,
    "sqrt": E.sqrt, "rsqrt": M.rsqrt, "tanh": E.tanh, "sigmoid": E.sigmoid,
    "reciprocal": M.reciprocal, "abs": E.abs, "floor": M.floor, "ceil": M.ceil,
    "round": M.round, "square": E.square, "neg": E.neg, "sin": E.sin,
    "cos": E.cos, "log": E.log,
    "acos": M.acos, "acosh": M.acosh, "asin": M.asin, "asinh": M.asinh, "atan": M.atan,
    "atanh": M.atanh, "cosh": M.cosh, "sinh": M.sinh, "tan": M.tan, "erf": M.erf,
    "erfinv": SP.erfinv, "expm1": M.expm1, "log10": M.log10, "log1p": M.log1p,
    "log2": M.log2, "trunc": M.trunc, "frac": M.frac, "lgamma": SP.lgamma,
    "gammaln": SP.gammaln, "digamma": SP.digamma, "polygamma": SP.polygamma,
    "logit": M.logit, "lerp": M.lerp, "remainder": M.remainder, "mod": M.mod,
    "floor_mod": M.floor_mod, "floor_divide": SE.floor_divide,
    "sinc": NU.sinc, "nan_to_num": M.nan_to_num, "renorm": NU.renorm,
    "masked_fill": MO.masked_fill,
    "index_add": MO.index_add, "put_along_axis": IX.put_along_axis, "scatter": MO.scatter,
    "tril": IX.tril, "triu": IX.triu, "clamp": AL.clamp, "sub": AL.sub, "mul": AL.mul,
    "div": AL.div,
}
# the operands checked against x's shape first (check_broadcast), and the in-place steps
# Paddle counts for one call (more_versions); default: none, 1
_OPERANDS = dict.fromkeys(("add", "subtract", "multiply", "divide", "remainder", "mod",
                           "floor_mod", "floor_divide", "sub", "mul", "div"), Y)
_OPERANDS.update(lerp=(("y", 0), ("weight", 1)), masked_fill=(("mask", 0), ("value", 1)))
_VERSIONS = {"nan_to_num": 3,           # three where_ in Paddle
             "sinc": 4}                 # its composite's in-place steps in Paddle 3.3.1

_KEEP_DTYPE = ("clip", "clamp")          # Paddle 3.3.1's clip_(int x, 0.5, 2.5) stays int
INPLACE = {name + "_": _method(fn, name + "_", _keeping_dtype if name in _KEEP_DTYPE else None,
                               operands=_OPERANDS.get(name, ()),
                               versions=_VERSIONS.get(name, 1))
           for name, fn in _OPS.items()}
INPLACE.update(pow_=pow_, hypot_=hypot_, index_fill_=index_fill_, addmm_=addmm_)
# (cumsum_ and cumprod_, which may change x's shape and dtype: ops/inplace_more.py)


# ---- `x.data` (Paddle, torch): a stop_gradient view whose in-place writes reach x -----------
# _write() asks _DATA_VIEWS so that `p.data.add_(u)` or `p.data[0] = 1` changes p, as in
# Paddle. Writes to x itself are copy on write as always: a view taken before keeps the old
# values.
_DATA_VIEWS = ViewLinks()


def data_view(x: Tensor) -> Tensor:
    """x.data: x's values as a stop_gradient tensor sharing x's version counter, whose
    in-place changes write through to x (recorded gradients reading x then raise)."""
    view = x.detach()
    _DATA_VIEWS.note(view, x)
    return view


def set_data(x: Tensor, value: Any) -> None:
    """`x.data = value`: x takes a copy of value's values, shape and dtype (Paddle), keeping
    its stop_gradient and graph position; its version goes up, so a recorded gradient
    that read the old values raises rather than use the new ones."""
    v = value._data if isinstance(value, Tensor) else np.asarray(value)
    if v.dtype == object or v.dtype.kind not in "biuf":
        raise TypeError(f"x.data = value needs numbers, got an array of {v.dtype}")
    x._data = np.array(v, copy=True)
    bump(x)


def detach_(x: Tensor) -> Tensor:
    """In place: x becomes a leaf that stops gradient (ops that use it later record no edge
    to it; `x.stop_gradient = False` afterwards makes it a leaf of its own that gets .grad),
    as Paddle's detach_; ops recorded before still reach x's graph, through a stand-in of
    x's graph position (as rebind leaves one; its values are x's, so readers that need
    them are not refused: tape.check_versions). Returns x."""
    if not isinstance(x, Tensor):
        raise TypeError(f"detach_ needs a jitgrad Tensor, got {type(x).__name__}")
    if x._node is not None:
        leave_stand_in(x, stand_in(x))
        x._node = None
        # a new graph position, the same values: x's version goes up (its readers are
        # rewired to the stand-in), not its detach()es' (their values did not change)
        tape.count_move(x)
        tape.bump_epoch()
    x._stop_gradient = True
    return x


def copy_(x: Tensor, src: Any, blocking: bool = True) -> Tensor:
    """Paddle's Tensor.copy_: x's values become src's (broadcast to x's shape), with nothing
    recorded: no gradient reaches src (as in Paddle), and x's graph stays. A dtype other
    than x's raises, as Paddle does. Returns x."""
    if not isinstance(x, Tensor):
        raise TypeError(f"copy_ needs a jitgrad Tensor, got {type(x).__name__}")
    v = src._data if isinstance(src, Tensor) else np.asarray(src)
    if v.dtype != x._data.dtype:
        raise TypeError(f"copy_: src has dtype {v.dtype.name}, this tensor {x.dtype.name}; "
                        f"cast it first (src.astype('{x._data.dtype.name}'))")
    try:
        v = np.broadcast_to(v, x._data.shape)
    except ValueError:
        raise ValueError(f"copy_: src of shape {list(v.shape)} does not broadcast to this "
                         f"tensor's shape {x.shape}") from None
    _write(x, v)
    return x


def set_value(x: Tensor, value: Any) -> Tensor:
    """Overwrite x's values (same shape) without recording anything: Paddle's set_value,
    used to load parameters."""
    v = np.asarray(value._data if isinstance(value, Tensor) else value)
    if v.shape != x._data.shape:
        raise ValueError(f"set_value: shape {list(v.shape)} does not match {x.shape}")
    _write(x, v)
    return x


def write_fresh(x: Tensor, data: np.ndarray) -> None:
    """set_value(x, data) for `data` a new array of x's shape and dtype that nothing else
    holds (batch_norm's running statistics): x takes it as its new buffer, where _write
    would copy x's old buffer and then overwrite the copy. The same bookkeeping otherwise:
    x's version goes up (and its version group's, and the epoch: bump), a `.data` view's
    owner still holding the old buffer takes the new one, and a `.grad` wrapper goes
    through _write (it writes into the accumulator). A view of the old buffer keeps the
    old values, as after set_value."""
    if _grad_owner(x) is not None:
        _write(x, data)
        return
    old = x._data
    x._data = data
    x._version += 1                     # bump(x), without getattr's ~0.5 us __getattr__
    try:
        group = _vgroup_of(x)
    except AttributeError:
        group = None
    if group is not None:
        v = x._version
        for t in group:
            t._version = v
    tape.bump_epoch()
    source = _DATA_VIEWS.owner(x)
    if source is not None and source._data is old:     # x is source.data: write through
        source._data = data


def take_result(x: Tensor, shadow: Tensor, new: Tensor) -> Tensor:
    """x becomes `new` (an op's result), its shape and dtype too; `shadow`: x's stand-in
    (stand_in(x)). A result with graph: rebind. One without leaves a non-leaf x a constant,
    a leaf x keeps its stop_gradient (Paddle's out= into a leaf that needs grad). x's version
    goes up. Returns x."""
    if new._node is not None:
        return rebind(x, shadow, new, keep_dtype=False)
    if x._node is None and _grad_owner(x) is not None and \
            new._data.shape == x._data.shape and new._data.dtype == x._data.dtype:
        _write(x, new._data)            # x.grad's wrapper: into the accumulator it shares
        return x                        # (p.grad.normal_(): Paddle 3.3.1 changes p.grad)
    if x._node is not None:             # readers of the old value reach its node (rebind)
        leave_stand_in(x, shadow)
        x._node, x._stop_gradient = None, True
    old = x._data
    x._data = new._data
    bump(x)
    _write_through_data_view(x, old)
    return x


def write_result(x: Tensor, new: Tensor) -> Tensor:
    """Paddle's `out=x`: x takes `new`'s values, shape, dtype and graph position (new, an
    op's result, is thrown away after; an op that gave x itself changes nothing)."""
    return x if new is x else take_result(x, stand_in(x), new)


torch_kwargs.set_result_writer(write_result)
