"""Applying an op: run its forward, and record a Node when a gradient may be needed."""

from __future__ import annotations

import sys
import weakref
from typing import Any, Callable

import numpy as np

from ..core import dtypes, tape
from ..core.tape import Node, new_node, walk_site
from ..core.tensor import Tensor
from . import registry as _registry
from .registry import OpDef


def _applier(depth: int) -> Callable[..., Tensor]:
    """apply, with the call-site walk of its nodes starting `depth` frames up (new_node)."""

    def apply(op: OpDef, *inputs: Tensor, **attrs: Any) -> Tensor:
        # Every recorded op runs this: it is written for the interpreter (no comprehensions,
        # which are a call each in 3.11; one- and two-input ops spelled out).
        n = len(inputs)
        if n == 1:
            datas = (inputs[0]._data,)
            f16 = datas[0].dtype is _F16
        elif n == 2:
            datas = (inputs[0]._data, inputs[1]._data)
            f16 = datas[0].dtype is _F16 or datas[1].dtype is _F16
        else:
            datas = tuple([t._data for t in inputs])
            f16 = _any_float16(datas)
        if f16 and op.compute16:
            return in_float32(op, inputs, attrs)
        out = op.forward(*datas, **attrs)
        saved = None
        if op.forward_saves:                    # forward returns (out, saved) in one pass
            out, saved = out
        if not isinstance(out, _ndarray):
            out = np.asarray(out)
        if _MODE.grad_enabled and op.differentiable:
            for t in inputs:
                if not t._stop_gradient:
                    needs = tuple([not u._stop_gradient for u in inputs])
                    if saved is None:
                        save = op.save
                        if save is None:
                            saved = ()
                        elif op.save_needs:
                            saved = save(needs, out, *datas, **attrs)
                        else:
                            saved = save(out, *datas, **attrs)
                    node = new_node(op, inputs, attrs, saved, out, depth, needs)
                    result = _make(out, False, node)
                    node.out_ref = _weakref(result)
                    if tape._saved_hooks is not None:
                        _pack_node(node, result)
                    return result
        return _make(out)
    return apply


apply = _applier(2)
apply.__doc__ = """Run `op`'s forward on the inputs' arrays; record a Node when grad mode is on
    and some input needs a gradient. Its call site is the first frame outside jitgrad from
    apply's caller up."""
apply_internal = _applier(3)
apply_internal.__name__ = apply_internal.__qualname__ = "apply_internal"
apply_internal.__doc__ = """apply, for callers inside jitgrad (the op functions: tanh, add,
    matmul, sum ...). Its caller being known to be jitgrad code, the call-site walk starts
    at the caller's caller and skips making a frame object for it (~0.2 us of a ~1.5 us
    op). Called from outside jitgrad, the site it records would be one frame too far up."""


_ndarray = np.ndarray
_array = np.array
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_make = Tensor._make
_weakref = weakref.ref
_new_object = object.__new__
_getframe = sys._getframe
_counter = tape._counter
_MODE = tape.MODE
_last_site_code = tape._last_site_code
_inside = tape._inside             # (filename -> inside jitgrad: walk_site's memo)
_V1, _V2 = (0, 0), (0, 0, 0)      # versions of nodes whose inputs were never written in place

# node.needs of one- and two-input nodes (by the inputs' stop_gradient flags): shared tuples
_NEEDS1 = (True,)
_NEEDS2 = {(False, False): (True, True), (False, True): (True, False),
           (True, False): (False, True)}

# The attributes of nodes without any (tanh, add ...): one dict shared by all of them, which
# nothing writes (node.attrs is read only: the lowering, vjp rules, structural keys).
NO_ATTRS: dict = {}


def apply_xy(op: OpDef, x: Tensor, y: Tensor | None = None, attrs: dict = NO_ATTRS,
             out: np.ndarray | None = None, saved: tuple | None = None) -> Tensor:
    """apply_internal for one or two inputs (y None: one), the attributes passed as a dict
    that the node keeps as it is: a constant one can be shared (matmul's, sum's). `out`:
    the array op.forward would return, when the caller computed it already (matmul's and
    sum's common cases call numpy directly: no forward frame, no keyword arguments), and
    `saved` what op.save would give for it (unbind's cached index maps).

    The hot path of small training loops: what apply, new_node and Tensor._make do, written
    out in one frame (each call layer and the *inputs / **attrs packing cost ~0.05-0.1 us of
    an op's ~1 us). Keep it in step with them. Its caller must be inside jitgrad (an op
    function): the call-site walk starts at the caller's caller, as apply_internal's.
    """
    d = x._data
    e = None if y is None else y._data
    if (d.dtype is _F16 or e is not None and e.dtype is _F16) and op.compute16:
        return in_float32(op, (x,) if y is None else (x, y), attrs)     # (out recomputed)
    if out is None:
        if y is None:
            out = op.forward(d, **attrs) if attrs else op.forward(d)
        else:
            out = op.forward(d, e, **attrs) if attrs else op.forward(d, e)
        if op.forward_saves:
            out, saved = out
        if not isinstance(out, _ndarray):
            out = np.asarray(out)
    if not _MODE.grad_enabled or not op.differentiable or (
            x._stop_gradient and (y is None or y._stop_gradient)):
        return _make(out)
    needs = _NEEDS1 if y is None else _NEEDS2[x._stop_gradient, y._stop_gradient]
    if saved is None:
        save = op.save
        if save is None:
            saved = ()
        elif op.save_needs:
            saved = save(needs, out, d, **attrs) if y is None else \
                save(needs, out, d, e, **attrs)
        elif y is None:
            saved = save(out, d, **attrs)
        else:
            saved = save(out, d, e, **attrs)
    node = _new_object(Node)                # new_node, inlined
    node.op = op
    node.needs = needs
    node.attrs = attrs
    node.saved = saved
    node.out_data = out
    node.seq = next(_counter)
    node.freed = False
    node.programs = None
    site = _MODE.site                       # (a create_graph backward's: BackwardSite)
    if site is not None or not tape.call_sites:     # (FLAGS_call_stack_level 3: flags.py)
        node.site = site
    else:
        f = _getframe(2)
        code = f.f_code
        last = _last_site_code[0]
        if code is last:                    # the same user function as last time: outside
            node.site = (code, f.f_lasti)
        else:
            # one or two jitgrad frames between (an operator method: `x * w`; a public
            # wrapper and a composite: stack's concat), each tested inside, then the last site
            g = f.f_back
            if g is not None and _inside.get(code.co_filename) is True:
                if g.f_code is last:
                    node.site = (last, g.f_lasti)
                else:
                    h = g.f_back
                    if h is not None and h.f_code is last and \
                            _inside.get(g.f_code.co_filename) is True:
                        node.site = (last, h.f_lasti)
                    else:
                        node.site = walk_site(f)
            else:
                node.site = walk_site(f)
    if y is None:
        node.inputs = (x,)
        v = x._version
        node.versions = (v, 0) if v else _V1
    else:
        node.inputs = (x, y)
        v, w = x._version, y._version
        node.versions = (v, w, 0) if v or w else _V2
    node.epoch = tape._epoch
    t = _new_object(Tensor)                 # Tensor._make, inlined
    t._data = out
    t._node = node
    t._stop_gradient = False
    t._grad = t._retain = t._hooks = None
    t._name = ""
    t._version = 0
    node.out_ref = _weakref(t)
    if tape._saved_hooks is not None:
        _pack_node(node, t)
    return t


def _any_float16(datas: tuple) -> bool:
    for d in datas:
        if d.dtype is _F16:
            return True
    return False


def in_float32(op: OpDef, inputs: tuple, attrs: dict) -> Tensor:
    """`op` (OpDef.compute16) on inputs some of which are float16: those are cast to float32,
    the op computed in float32, and its float32 output rounded to float16 once (unless an
    input was float32 or float64 already, which the output keeps): the result and, through
    the two recorded casts, the gradient of `op(x.astype('float32')).astype('float16')`.
    Numpy's float16 arithmetic rounds every intermediate (softmax's exp and sum, a
    derivative's factors): up to thousands of ulps near 0 (layer_norm, gelu). The casts are
    call_in_float32's, on the op's inputs."""
    return call_in_float32(lambda inputs: apply_internal(op, *inputs, **attrs),
                           {"inputs": inputs})


FLOAT16 = _F16      # (public composites test `x._data.dtype is FLOAT16` first thing)


def call_in_float32(fn: Callable, params: dict) -> Any:
    """fn(**params) with its float16 Tensors (and lists of them) cast to float32 and its
    float32 results rounded to float16 once: what a public function composed of several
    ops (cross_entropy's softmax and mean, linear's matmul and bias add) returns for a
    float16 input, `fn(x.astype('float32'), ...).astype('float16')`, forward and gradient,
    as in_float32 does for one op. Such a function starts with
    `if isinstance(x, Tensor) and x._data.dtype is FLOAT16: return call_in_float32(fn,
    locals())`: a check inline (a decorator's call layer cost mse_loss 1 us of 15, most of
    it the node call-site walk through one more frame)."""
    cast = _registry.REGISTRY["cast"]
    wider = False

    def widen(v: Any) -> Any:
        nonlocal wider
        if isinstance(v, Tensor):
            dt = v._data.dtype
            if dt == _F16:
                return apply_internal(cast, v, dtype=_F32)
            wider = wider or (dt.kind == "f" and dt.itemsize > 2)
        elif isinstance(v, (list, tuple)) and any(isinstance(u, Tensor) for u in v):
            return type(v)([widen(u) for u in v])
        return v

    out = fn(**{k: widen(v) for k, v in params.items()})
    if wider:                               # (a float32 or float64 input: its result)
        return out

    def narrow(v: Any) -> Any:
        if isinstance(v, Tensor) and v._data.dtype == _F32:
            return apply_internal(cast, v, dtype=_F16)
        if isinstance(v, tuple) and any(isinstance(u, Tensor) for u in v):
            return type(v)(*[narrow(u) for u in v]) if hasattr(v, "_fields") else \
                tuple([narrow(u) for u in v])
        if isinstance(v, list) and any(isinstance(u, Tensor) for u in v):
            return [narrow(u) for u in v]
        return v
    return narrow(out)


def _pack_node(node: Node, out: Tensor) -> None:
    """Inside saved_tensors_hooks: pack what the node's backward reads (saved_hooks.py)."""
    from .saved_hooks import pack_node
    pack_node(node, out)


_KERNELS: dict[str, Any] = {}     # vm's compiled-forward modules, once loaded


def compiled_kernels(module: str) -> Any:
    """vm.<module> (forward, forward_special, forward_order: compiled forward kernels) once
    the backward interpreter has loaded Numba, else None (importing Numba for an op would
    slow `import jitgrad`). Looked up once: an import statement per call cost ~1-2 us."""
    found = _KERNELS.get(module)
    if found is None:
        from .. import vm
        found = vm.compiled_forwards(module)
        if found is not None:
            _KERNELS[module] = found
    return found


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_ascontiguousarray = np.ascontiguousarray


def compiled_input(module: str, x: np.ndarray, y: np.ndarray | None = None) -> tuple | None:
    """(vm.<module>, x[, y]), each C-contiguous, when x and y (if given) are both float32
    or both float64 and the compiled kernels are loaded (compiled_kernels); None otherwise:
    the caller's numpy path. The compiled forwards' shared prologue: their kernels are
    compiled for those two dtypes and C-contiguous arrays (another type would compile one
    more variant); shapes, sizes and attributes are the caller's to check. It runs in
    every forward of such an op, hence two fixed parameters (*arrays cost 0.1-0.3 us more
    in 3.11) and dtype identity tried before `==` (~60 ns a comparison)."""
    dt = x.dtype
    if dt is not _F32 and dt is not _F64 and dt != _F32 and dt != _F64:
        return None
    if y is not None and y.dtype is not dt and y.dtype != dt:
        return None
    kernels = _KERNELS.get(module)
    if kernels is None:
        kernels = compiled_kernels(module)
        if kernels is None:
            return None
    if not x.flags.c_contiguous:
        x = _ascontiguousarray(x)
    if y is None:
        return kernels, x
    if not y.flags.c_contiguous:
        y = _ascontiguousarray(y)
    return kernels, x, y


def out_tensor(node: Node) -> Tensor:
    """The node's output as a Tensor (rebuilt if the user dropped it), for vjp rules."""
    t = node.out_ref() if node.out_ref is not None else None
    if t is None:
        t = Tensor._make(node.out_data, False, node)
        node.out_ref = weakref.ref(t)
    return t


def vjp_on_arrays(node: Node, g: np.ndarray, want: tuple) -> tuple:
    """The node's vjp run on Tensors over the arrays (grad mode off: nothing recorded), its
    gradients as arrays, None where not wanted: the interpret state's rule for an op
    without an array rule, and the fallback of those whose array rule needs Numba."""
    tape.check_rule_reads(node)
    cs = node.op.vjp(Tensor._make(g), out_tensor(node), *node.inputs, **node.attrs)
    return tuple([None if c is None or not w else c._data for c, w in zip(cs, want)])


def const(value: Any, dtype: np.dtype) -> Tensor:
    """A constant Tensor holding a copy of `value` (a user's numpy array, say a loss's label,
    may be written after the op is recorded; the node must keep the values it saw)."""
    if dtype == _F16:       # (through float32, as Paddle: dtypes.to_dtype_array)
        return Tensor._make(dtypes.to_dtype_array(value, dtype))
    return Tensor._make(_array(value, dtype=dtype))


_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2}


def zero_dim_dtype(a: Tensor, b: Tensor, true_divide: bool = False) -> np.dtype | None:
    """Paddle 3.3.1's promotion in its arithmetic ops (add, subtract, multiply, divide,
    floor_divide, remainder, pow, hypot) when a 0-d tensor meets a tensor of another dtype:
    a 0-d tensor counts like a Python number. One 0-d operand of the other's kind (bool,
    int, float) takes the other's dtype (float32 + 0-d float64 is float32, int32 + 0-d
    int64 is int32); of another kind, the higher kind's dtype wins (int64 + 0-d float32
    is float32); two 0-d tensors of one kind promote as usual. None: neither is 0-d, or
    the dtypes agree (the usual rules)."""
    da, db = a._data.dtype, b._data.dtype
    if da is db or (a._data.ndim and b._data.ndim):
        return None
    ra, rb = _KIND_RANK.get(da.kind), _KIND_RANK.get(db.kind)
    if ra is None or rb is None:
        return None
    if ra != rb:
        dt = da if ra > rb else db
    elif a._data.ndim == 0 and b._data.ndim == 0:
        dt = np.promote_types(da, db)
    else:
        dt = db if a._data.ndim == 0 else da
    if true_divide and dt.kind != "f":
        dt = dtypes.default_float().np
    return dt


def _cast_to(t: Tensor, dt: np.dtype) -> Tensor:
    """t in dtype dt: a recorded cast for a float tensor that may carry a gradient (it
    flows back in t's own dtype), a plain conversion otherwise."""
    if t._data.dtype == dt:
        return t
    if t._data.dtype.kind == "f" and dt.kind == "f" and not t._stop_gradient:
        return t.astype(dt)
    return Tensor._make(t._data.astype(dt))


def binary_operands(x: Any, y: Any, true_divide: bool = False, zero_dim: bool = False
                    ) -> tuple[Tensor, Tensor]:
    """Tensors for both sides, with Paddle's promotion between tensors and scalars, and with
    `zero_dim` (the arithmetic ops) its promotion of 0-d tensors (zero_dim_dtype), which
    a 0-d numpy array follows too (Paddle 3.3.1 reads numpy arrays as tensors)."""
    if zero_dim and (type(x) is np.ndarray or type(y) is np.ndarray):
        if type(x) is np.ndarray:
            x = Tensor._make(_array(x, order="C"))
        if type(y) is np.ndarray:
            y = Tensor._make(_array(y, order="C"))
    if zero_dim and isinstance(x, Tensor) and isinstance(y, Tensor):
        dt = zero_dim_dtype(x, y, true_divide)
        if dt is not None:
            return _cast_to(x, dt), _cast_to(y, dt)
    if isinstance(x, Tensor):
        dx = x._data.dtype
        if isinstance(y, Tensor):                           # the common case: two floats
            if dx is y._data.dtype and dx.kind == "f":
                return x, y
        elif dx.kind == "f" and (type(y) is float or type(y) is int):
            # (what the general path gives; float16 through const's float32)
            return x, Tensor._make(_array(y, dx)) if dx is not _F16 else const(y, dx)
    elif isinstance(y, Tensor) and (type(x) is float or type(x) is int):
        dy = y._data.dtype
        if dy.kind == "f":
            return (Tensor._make(_array(x, dy)) if dy is not _F16 else const(x, dy)), y
    xt, yt = isinstance(x, Tensor), isinstance(y, Tensor)
    # A numpy operand is copied, as to_tensor copies: the recorded node keeps the Tensor
    # (its vjp reads the array: x * a's gradient is a), so a later `a[:] = ...` by the user
    # must not reach the backward.
    if isinstance(x, np.ndarray):
        x, xt = Tensor._make(_array(x, order="C")), True
    if isinstance(y, np.ndarray):
        y, yt = Tensor._make(_array(y, order="C")), True
    if xt and yt:
        dt = dtypes.result_dtype(x._data.dtype, y._data.dtype, true_divide)
    elif xt:
        _check_scalar(y)
        dt = dtypes.scalar_result_dtype(x._data.dtype, y, true_divide)
        y = const(y, dt)
    elif yt:
        _check_scalar(x)
        dt = dtypes.scalar_result_dtype(y._data.dtype, x, true_divide)
        x = const(x, dt)
    else:
        raise TypeError(f"expected at least one Tensor, got {type(x).__name__} and "
                        f"{type(y).__name__}")
    if dt.kind != "f":
        return x, y
    return _as_float(x, dt), _as_float(y, dt)


def _as_float(t: Tensor, dt: np.dtype) -> Tensor:
    # Only constants (int/bool, or float scalars) are converted; float tensors keep their
    # dtype and numpy promotes float32 with float64 in the forward.
    if t._data.dtype.kind != "f":
        return Tensor._make(t._data.astype(dt))
    return t


def remember(cache: dict, key: Any, value: Any, limit: int) -> Any:
    """cache[key] = value, returned, the cache emptied first when it holds `limit` entries:
    the ops' memos per shape, equation or geometry (a training loop asks for the same few
    every step) stay bounded for a program that varies them without end."""
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


def _check_scalar(v: Any) -> None:
    if not isinstance(v, (int, float, bool, np.generic)):
        raise TypeError(f"unsupported operand of type {type(v).__name__}; expected a Tensor, "
                        "a numpy array or a Python number")


def float_input(x: Tensor, opname: str) -> Tensor:
    """x for a float math op: an integer or bool tensor becomes float32, as Paddle 3.3.1's
    autocast does for exp, log, sqrt, the trigonometric and hyperbolic functions, erf,
    logit and logsumexp (it warns; this is silent). A cast constant: no gradient."""
    kind = x._data.dtype.kind
    if kind == "f":
        return x
    if kind in "biu":
        return Tensor._make(x._data.astype(np.float32))
    require_float(x, opname)            # raises, naming the op
    return x


def require_float(x: Tensor, opname: str) -> None:
    if x._data.dtype.kind != "f":
        raise TypeError(f"{opname} expects a float tensor, got {x.dtype.name}; "
                        "cast it with .astype('float32')")


def int_entry(s: Any, what: str, entries: Any) -> int:
    """An entry of a shape, perm or sections list that is not a Python int, as one: a numpy
    int or an int 0-d tensor. A float (int() would truncate it: Paddle 3.3.1 refuses one)
    or a bool raises TypeError `what`, with the entry and the list (callers test `type(s)
    is int` first, inline: the common case costs no call)."""
    if isinstance(s, Tensor):
        s = s.item()
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
        raise TypeError(f"{what}, got {s!r} in {list(entries)}")
    return int(s)


def norm_axis(axis: Any, ndim: int) -> tuple[int, ...] | None:
    """Paddle's axis argument (None, int, list or tuple) as sorted non-negative ints."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis._data.tolist()
    if not isinstance(axis, (int, np.integer, list, tuple)):
        raise TypeError(f"axis must be an int or a list of ints, got {axis!r}")
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        if not isinstance(a, (int, np.integer)):
            raise TypeError(f"axis must be an int or a list of ints, got {axis!r}")
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"axis {a} is out of range for a tensor with {ndim} dims")
        out.append(int(a) % max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"axis {axis!r} repeats a dimension")
    if ndim == 0:
        return None     # axis 0 or -1 of a 0-d tensor: Paddle reduces it to a 0-d result
    return tuple(sorted(out)) if out else None


def broadcast_axes(g_shape: tuple, shape: tuple) -> tuple[int, ...]:
    """The axes a gradient at the broadcast shape `g_shape` is summed over to get back to
    `shape`: the leading axes broadcasting added, and those where `shape` has a 1."""
    lead = len(g_shape) - len(shape)
    return tuple(range(lead)) + tuple([lead + i for i, s in enumerate(shape)
                                       if s == 1 and g_shape[lead + i] != 1])


def sum_to_array(g: np.ndarray, shape: tuple) -> np.ndarray:
    """sum_to on an array (the interpret state's rules: autograd/eager.py)."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    axes = broadcast_axes(g.shape, shape)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def sum_to(g: Tensor, shape: tuple | list) -> Tensor:
    """Sum a broadcast gradient back to `shape` (jitgrad ops, so it is differentiable)."""
    shape = tuple(shape)
    if g._data.shape == shape:
        return g
    from . import reduce as R
    from . import shape as S
    axes = broadcast_axes(g._data.shape, shape)
    if axes:
        g = R.sum(g, axis=axes, keepdim=True)
    return S.reshape(g, list(shape))


_MISSING = object()


def check_tensor_args(fn: Any) -> Any:
    """`fn` with a TypeError naming the argument when a parameter annotated `Tensor` gets
    something else (a list, a numpy array), instead of an AttributeError from inside the op.

    Applied to the public names only (jitgrad.*, jitgrad.nn.functional.*); gradient rules
    call the unwrapped functions, so the backward pays nothing. The arguments are inspected
    only once the op has failed: the forward pays one call layer (~0.1 us), not a check.
    """
    import functools
    import inspect
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return fn
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    want = [(i, p.name, p.annotation != "Tensor") for i, p in enumerate(params)
            if p.kind in kinds and p.annotation in ("Tensor", "Sequence[Tensor]")]
    if not want or hasattr(fn, "__wrapped__") or getattr(fn, "checks_own_tensor_args", False):
        return fn
    from ..core.param_aliases import aliases_of, retry
    from ..core.torch_kwargs import finish
    mapping = aliases_of(fn)            # Paddle 3.x's keyword aliases (dim=, input=, ...)

    def bad(v: Any, seq: bool) -> bool:
        if not seq:
            return not isinstance(v, Tensor)
        return not isinstance(v, (list, tuple)) or not all(isinstance(t, Tensor) for t in v)

    def diagnose(args: tuple, kwargs: dict) -> TypeError | None:
        for i, name, seq in want:
            v = args[i] if i < len(args) else kwargs.get(name, _MISSING)
            if v is not _MISSING and bad(v, seq):
                return tensor_arg_error(fn.__name__, name, v, seq)
        return None

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (AttributeError, TypeError, ValueError, IndexError) as e:
            again = retry(fn, checked, kwargs) if kwargs and type(e) is TypeError else None
            if again is None:
                err = diagnose(args, kwargs)
                if err is None:
                    raise
                raise err from None
        return finish(fn.__name__, checked(*args, **again[0]), again[1])

    checked.param_aliases = mapping     # type: ignore[attr-defined]  (param_aliases.install)
    checked.torch_kwargs = frozenset()  # type: ignore[attr-defined]  (core/torch_kwargs.py)
    return checked


def tensor_arg_error(fn_name: str, name: str, value: Any, seq: bool = False) -> TypeError:
    """check_tensor_args' error: argument `name` of `fn_name` is not a Tensor (seq: not a
    list or tuple of Tensors)."""
    what = "a list or tuple of Tensors" if seq else "a Tensor"
    got = type(value).__name__ if not isinstance(value, (list, tuple)) else \
        f"{type(value).__name__} of " + ", ".join(sorted({type(t).__name__ for t in value}))
    return TypeError(f"{fn_name}(): argument '{name}' must be {what}, got {got}; convert "
                     "data with paddle.to_tensor(...)")


def checks_own_tensor_args(fn: Any) -> Any:
    """Mark a public op that raises tensor_arg_error itself for each Tensor parameter, so
    check_tensor_args leaves it unwrapped: the hot ops of small training loops (tanh, sum)
    save the wrapper's call layer, and a frame less for Node's call-site walk."""
    fn.checks_own_tensor_args = True
    return fn
