"""Tensor: a numpy array, a stop_gradient flag, a grad accumulator and the node that made it."""

from __future__ import annotations

import numbers
import warnings
import weakref
from typing import Any, Callable

import numpy as np

from . import dtypes, tape, tensor_copy
from .places import CPU_PLACE, Place, to_place
from .grad_store import (GRAPH_GRADS, detach_graph_grad, graph_grad, note_assigned,
                         note_grad_view, was_assigned)
from .printing import tensor_to_string
from .size import Size, TensorSize
from .tensor_operators import TensorOperators

_new_object = object.__new__     # cached: _make runs for every op's output
_function = type(lambda: None)

# Filled in by jitgrad.ops at import time (with tensor_operators.OPS); Tensor's op methods
# call through it, so the core never imports the ops.
_ops: Any = None
_REVERSED = [tuple(range(n))[::-1] for n in range(8)]   # x.T's perm by ndim


def _is_size(v: Any) -> bool:
    """A Python int (not a bool): paddle.Tensor(2, 3)'s sizes."""
    return type(v) is int


class Tensor(TensorOperators):
    """A value in jitgrad's eager world. Create one with `jitgrad.to_tensor`."""

    __slots__ = ("_data", "_node", "_stop_gradient", "_grad", "_retain", "_hooks", "_name",
                 "_version", "_shadows", "_vgroup", "__weakref__", "__dict__")
    __array_priority__ = 1000
    __array_ufunc__ = None  # numpy defers to our reflected operators: np.float32(2) * t

    def __init__(self, *data: Any, dtype: Any = None, stop_gradient: bool = True) -> None:
        """Paddle 3.3.1's constructor forms (measured): `Tensor(data)` (a list is float32,
        as torch's), `Tensor(2, 3)` a float32 tensor of that shape (zeros here; Paddle's is
        uninitialised), `Tensor()` an empty one. A number alone is not data here (Paddle
        refuses 3.5 and True): paddle.to_tensor(3.5) makes a 0-d tensor."""
        if len(data) == 1 and not _is_size(data[0]):
            data = data[0]
            if isinstance(data, (bool, np.bool_)):
                raise TypeError(f"paddle.Tensor({data!r}): a bool is not a tensor's data here; "
                                f"use paddle.to_tensor({data!r})")
            if isinstance(data, (numbers.Number, np.generic)):
                raise ValueError(f"paddle.Tensor({data!r}): a number is not a tensor's data "
                                 f"here (paddle.Tensor(n) makes a float32 tensor of shape "
                                 f"[n]); use paddle.to_tensor({data!r}) for a 0-d tensor")
            if dtype is None and isinstance(data, (list, tuple)):
                dtype = "float32"   # paddle.Tensor([1, 2]) is float32 (Paddle 3.3.1, as torch)
        else:
            call = f"paddle.Tensor({', '.join(map(repr, data))})"
            if not all(_is_size(n) for n in data):
                raise ValueError(f"{call}: give one argument, the data, or ints, the shape "
                                 f"of a new float32 tensor")
            if any(n < 0 for n in data):
                raise ValueError(f"{call}: a shape's sizes must be >= 0")
            data = np.zeros(data if data else (0,), dtype or "float32")
        t = to_tensor(data, dtype=dtype, stop_gradient=stop_gradient)
        self._data, self._node, self._stop_gradient = t._data, None, t._stop_gradient
        self._grad = self._retain = self._hooks = None
        self._name = ""
        self._version = 0

    @classmethod
    def _make(cls, data: np.ndarray, stop_gradient: bool = True, node: tape.Node | None = None
              ) -> Tensor:
        t = _new_object(cls)
        t._data = data
        t._node = node
        t._stop_gradient = stop_gradient
        t._grad = t._retain = t._hooks = None
        t._name = ""
        t._version = 0          # bumped by every in-place change (see ops/inplace.py)
        return t

    # ---- metadata ------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """A unique name, as Paddle gives every tensor: generated_tensor_N for one made
        from data, eager_tmp_N for an op's result. Made when first read (an op's output
        costs nothing until then); a Parameter's is its layer's (linear_0.w_0)."""
        n = self._name
        if not n:
            from ..utils import unique_name
            n = self._name = unique_name.generate(
                "generated_tensor" if self._node is None else "eager_tmp")
        return n

    @name.setter
    def name(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"Tensor.name must be a str, got {type(value).__name__}")
        self._name = value

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        """The number of dimensions (a method in Paddle, unlike the `ndim` property)."""
        return self._data.ndim

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    @property
    def size(self) -> TensorSize:
        """The number of elements: an int, callable as Paddle 3.3.1's (`x.size()` the
        shape, `x.size(1)` a dim: core/size.TensorSize). jitgrad reads `_data.size`."""
        d = self._data
        n = TensorSize(d.size)
        n._shape = d.shape
        return n

    def numel(self) -> Tensor:
        """The number of elements, as a 0-d int64 tensor (Paddle's; `.size` is the int)."""
        return Tensor._make(np.asarray(self._data.size, np.int64))

    def element_size(self) -> int:
        """Bytes per element (4 for float32), as Paddle's Tensor.element_size()."""
        return int(self._data.itemsize)

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_numpy(self._data.dtype)

    @property
    def place(self) -> Place:
        return CPU_PLACE

    # (Paddle's descriptive attributes of a CPU dense tensor)
    device = "cpu"
    is_cuda = False
    layout = "NCHW"
    offset = 0

    @property
    def strides(self) -> list[int]:
        """Strides in elements (jitgrad's tensors are contiguous, as Paddle's)."""
        return _ops.get_strides(self)

    @property
    def grad_fn(self) -> Any:
        """The node that made this tensor (its .name(), Paddle's grad node name), or None
        for a leaf."""
        return _ops.grad_fn(self)

    @property
    def inplace_version(self) -> int:
        """How many in-place changes this tensor has seen (Paddle's name; detach_ is none)."""
        return self._version - tape.moves(self)

    def _inplace_version(self) -> int:
        """inplace_version, under the name Paddle's own code calls."""
        return self.inplace_version

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    @property
    def persistable(self) -> bool:
        """False: Paddle's flag for variables a static program saves (a Parameter's is
        True); nothing in eager mode reads it."""
        return False

    @property
    def stop_gradient(self) -> bool:
        return self._stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):     # `= 'no'` must not mean True
            raise TypeError(f"stop_gradient must be True or False, got {value!r}")
        value = bool(value)
        if not value and self._data.dtype.kind != "f":
            raise TypeError(
                f"a {self.dtype.name} tensor cannot require gradients; cast it with "
                ".astype('float32') first"
            )
        # (nothing recorded goes stale: an op's edges were fixed when it was recorded)
        self._stop_gradient = value

    @property
    def requires_grad(self) -> bool:
        """Paddle 3.x's torch-style view of stop_gradient: `not stop_gradient`."""
        return not self._stop_gradient

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"requires_grad must be True or False, got {value!r}")
        self.stop_gradient = not value

    # ---- gradients -----------------------------------------------------------------------
    @property
    def grad(self) -> Tensor | None:
        if self._grad is None:
            return None
        if GRAPH_GRADS:
            g = graph_grad(self)
            if g is not None:
                note_grad_view(g, self)
                return g
        g = self._grad
        view = Tensor._make(g, stop_gradient=was_assigned(g))
        note_grad_view(view, self)
        return view

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is None:
            detach_graph_grad(self)
            self._grad = None
            return
        if not isinstance(value, Tensor):
            raise TypeError(f"grad must be a Tensor or None, got {type(value).__name__}")
        if self._node is not None:
            raise RuntimeError(
                f"only a leaf tensor's gradient can be set (Paddle: 'Only leaf Tensor can be "
                f"set grad'); this tensor was computed by {self._node.grad_name}. Set the grad "
                "of the leaf it comes from, or use `y.detach()` to get a leaf")
        detach_graph_grad(self)
        if value._data.shape != self._data.shape:
            raise ValueError(f"grad shape {list(value.shape)} does not match tensor shape "
                             f"{list(self.shape)}")
        g = self._grad
        if g is not None and g.shape == value._data.shape and g.flags.writeable:
            np.copyto(g, value._data, casting="unsafe")     # into the accumulator, as Paddle:
            return                                          # a kept `.grad` sees the values
        self._grad = np.array(value._data, dtype=self._data.dtype, copy=True, order="C")
        note_assigned(self._grad)       # its `.grad` stops gradient, as Paddle's

    grad_ = grad        # Paddle 3.3.1's other name for .grad (read and set)

    def _grad_ivar(self) -> Tensor | None:
        """.grad, under the name Paddle's own code calls."""
        return self.grad

    def _set_grad_ivar(self, value: Tensor) -> None:
        """Paddle's private setter of a Parameter's gradient (a Parameter's is `.grad =`)."""
        raise TypeError("_set_grad_ivar is only supported for Parameter Tensor (Paddle "
                        "3.3.1's rule); set a leaf tensor's gradient with `x.grad = value`")

    def _copy_gradient_from(self, src: Tensor) -> None:
        """Paddle's private `x.grad = src` for a src of x's dtype (another dtype raises,
        as in Paddle). The values are copied, as `x.grad = src` copies them (Paddle 3.3.1
        shares src's storage, and also takes another shape, or a non-leaf)."""
        if not isinstance(src, Tensor):
            raise TypeError(f"_copy_gradient_from needs a Tensor, got {type(src).__name__}")
        if src._data.dtype != self._data.dtype:
            raise TypeError(f"_copy_gradient_from: src has dtype {src.dtype.name}, this "
                            f"tensor {self.dtype.name}; cast it first "
                            f"(src.astype('{self._data.dtype.name}'))")
        self.grad = src

    def clear_grad(self) -> None:
        """Zero the accumulated gradient in place (it stays None if there is none)."""
        g = self._grad
        if g is not None:
            if GRAPH_GRADS:
                detach_graph_grad(self)
            g.fill(0)

    def clear_gradient(self, set_to_zero: bool = True) -> None:
        """Paddle's clear_gradient: zero the gradient in place, or (set_to_zero=False)
        drop it, so .grad is None and its memory is released. The keyword works as its
        docs say (Paddle 3.3.1 ignores `set_to_zero=False` given by name and zeroes)."""
        if set_to_zero:
            self.clear_grad()
        elif self._grad is not None:
            if GRAPH_GRADS:
                detach_graph_grad(self)
            self._grad = None

    def gradient(self) -> np.ndarray | None:
        return None if self._grad is None else self._grad.copy()

    def retain_grads(self) -> None:
        """Keep this non-leaf's gradient after backward (overwritten on each call)."""
        if not self._retain:
            self._retain = True
            tape.bump_epoch()
        from .hooks import note_retain
        note_retain(self)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        from .hooks import register_hook
        return register_hook(self, hook)

    def _register_backward_hook(self, hook: Callable[[], Any]) -> None:
        """Paddle's hook() called after each backward has accumulated this leaf's .grad."""
        from .hooks import register_backward_hook
        register_backward_hook(self, hook)

    def detach(self) -> Tensor:
        """A stop_gradient leaf with the same values, sharing this tensor's in-place version
        counter (Paddle's `inplace_version`): an in-place write to either one counts as a
        change of both, so a backward that read this tensor's values raises. Writes are
        copy on write (ops/inplace.py): the other tensor keeps its values."""
        t = Tensor._make(self._data, stop_gradient=True)
        share_version(self, t)
        return t

    # ---- conversions ---------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        return self._data.copy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        # A copy, as Paddle's: writing into np.asarray(t) must not change t behind the
        # tape's back (saved values, version counters).
        return self._data.copy() if dtype is None else self._data.astype(dtype)

    def tolist(self) -> Any:
        return self._data.tolist()

    def item(self, *index: int) -> Any:
        if index:
            return self._data.item(*index)
        if self._data.size != 1:
            raise ValueError(f"item() needs a tensor with one element, this one has shape "
                             f"{list(self.shape)}")
        return self._data.item()

    def _scalar(self, kind: type) -> Any:
        # Any one-element tensor, as torch and Paddle's own size check intend; Paddle 3.3.1
        # refuses shape [1] under numpy 2, whose float() of a 1-d array is gone (README).
        if self._data.size != 1:
            raise TypeError(f"only one-element tensors can be converted to {kind.__name__}; "
                            f"this one has shape {list(self.shape)}")
        return kind(self._data.item())

    def __float__(self) -> float:
        return self._scalar(float)

    def __int__(self) -> int:
        return self._scalar(int)

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iu":
            raise TypeError("only integer tensors can be used as an index")
        if self._data.ndim != 0:        # as Paddle and Python: [1, 2][t] needs a 0-d t
            raise TypeError(f"only 0-d integer tensors can be used as an index; this one has "
                            f"shape {list(self.shape)}")
        return int(self._data.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise ValueError(f"the truth value of a tensor with shape {list(self.shape)} is "
                             "ambiguous; use .any() or .all()")
        return bool(self._data.item())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        if spec:
            raise TypeError(f"format spec {spec!r} needs a 0-d tensor, got shape "
                            f"{list(self.shape)}")
        return str(self)

    def __str__(self) -> str:
        return tensor_to_string(self._data, self.dtype.name, self._stop_gradient)

    __repr__ = __str__

    def __hash__(self) -> int:
        return id(self)

    def __deepcopy__(self, memo: dict) -> Tensor:
        return tensor_copy.deep_copy(self, memo, Tensor)

    def __copy__(self) -> Tensor:
        return tensor_copy.shallow_copy(self)

    def __reduce_ex__(self, protocol: int) -> tuple:
        return tensor_copy.reduce_ex(self, protocol)

    # ---- op methods (bound by jitgrad.ops; operators in tensor_operators.py) -------------
    @property
    def T(self) -> Tensor:
        return _ops.transpose(self, _REVERSED[self._data.ndim] if self._data.ndim < 8 else
                              list(range(self._data.ndim))[::-1])

    @property
    def mT(self) -> Tensor:  # noqa: N802 (Paddle's name)
        """The last two dims swapped."""
        return _ops.matrix_transpose(self)

    @property
    def data(self) -> Tensor:
        """Paddle's `x.data`: a stop_gradient tensor of x's values; in-place changes of it
        (`p.data.add_(u)`) change x. Assigning (`x.data = y`) replaces x's values (a copy
        of y's, of y's shape) and keeps x's stop_gradient (ops/inplace.py)."""
        return _ops.data_view(self)

    @data.setter
    def data(self, value: Any) -> None:
        _ops.set_data(self, value)

    @property
    def itemsize(self) -> int:
        return int(self._data.dtype.itemsize)

    def __getattr__(self, name: str) -> Any:
        # Method forms of the ops (x.sum(), x.exp(), x.reshape(...)). An op that is a plain
        # function becomes a method of the class on first use (Tensor.sum = sum), so later
        # calls find it without the failed lookup that leads here, nor a lambda: ~1 us less
        # a call. Only a name the class does not have (an unset slot also ends up here).
        fn = _ops.METHODS.get(name) if _ops is not None else None
        if fn is None:
            raise AttributeError(f"'Tensor' object has no attribute {name!r}")
        if type(fn) is _function and not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
            return fn.__get__(self)
        return lambda *a, **k: fn(self, *a, **k)


_INT64_MAX = np.iinfo(np.int64).max


def _infer_array(data: Any, dtype: Any) -> np.ndarray:
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, np.ndarray):
        arr = data
    elif isinstance(data, np.generic):
        arr = np.asarray(data)
    else:
        try:
            arr = np.asarray(data)
        except ValueError:
            raise ValueError("to_tensor: nested lists must be rectangular (every row the same "
                             "length) and hold numbers") from None
        if dtype is None and isinstance(data, (list, tuple)) and \
                any(isinstance(d, Tensor) for d in data):
            # a list holding Tensors keeps numpy's dtype (Paddle 3.3.1): float64 tensors
            # stay float64, and float32 ones with a Python float become float64
            pass
        elif dtype is None:
            if arr.dtype.kind == "f":
                arr = arr.astype(dtypes.default_float().np)
            elif arr.dtype.kind in "iu":
                if arr.dtype == np.uint64 and arr.size and arr.max() > _INT64_MAX:
                    # (numpy makes ints from 2**63 on uint64: int64 would wrap them)
                    raise ValueError(f"to_tensor: {int(arr.max())} does not fit int64; pass "
                                     "dtype='float32' or 'float64' (Paddle 3.3.1 refuses it "
                                     "too)")
                arr = arr.astype(np.int64)
            elif arr.dtype.kind not in "b":
                raise TypeError(f"to_tensor cannot convert {type(data).__name__} with numpy "
                                f"dtype {arr.dtype}")
    if dtype is not None:
        arr = arr.astype(dtypes.to_dtype(dtype).np, copy=False)
    if arr.dtype.kind not in "fiub":
        raise TypeError(f"unsupported dtype {arr.dtype} (complex and object arrays are not "
                        "supported)")
    return np.array(arr, copy=True, order="C")


def to_tensor(data: Any, dtype: Any = None, place: Any = None, stop_gradient: bool = True
              ) -> Tensor:
    """Make a leaf tensor from nested lists, numpy arrays, scalars or Tensors (copied).

    Python floats become float32 (the default dtype), ints int64, bools bool; numpy arrays
    keep their dtype.
    """
    if not isinstance(stop_gradient, bool):
        raise TypeError(f"stop_gradient must be a bool, got {stop_gradient!r}")
    if place is not None:
        to_place(place, "to_tensor(place=...)")
    t = Tensor._make(_infer_array(data, dtype), stop_gradient=True)
    t.stop_gradient = stop_gradient
    return t


_copy_warned = False        # Paddle 3.3.1 warns once per process


def user_to_tensor(data: Any, dtype: Any = None, place: Any = None,
                   stop_gradient: bool = True) -> Tensor:
    """paddle.to_tensor: to_tensor, warning (UserWarning, once per process, as Paddle
    3.3.1) when data is a Tensor, for which clone().detach() is the idiom. jitgrad's own
    code calls to_tensor, which never warns."""
    global _copy_warned
    if not _copy_warned and isinstance(data, Tensor):
        _copy_warned = True
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.clone().detach(), rather than "
                      "paddle.to_tensor(sourceTensor).", UserWarning, stacklevel=2)
    return to_tensor(data, dtype, place, stop_gradient)


user_to_tensor.__name__ = user_to_tensor.__qualname__ = "to_tensor"


# [True] once any version group exists: until then ops/inplace.py's bump() skips looking
# for one (an unset slot's AttributeError, ~0.4 us of each in-place op)
VERSION_GROUPS_MADE = [False]


def share_version(src: Tensor, t: Tensor) -> None:
    """Make t count in-place versions with src (detach): ops/inplace.py's bump() sets the
    version of every live member of the group. `_vgroup` is set only on tensors in one."""
    VERSION_GROUPS_MADE[0] = True
    group = getattr(src, "_vgroup", None)
    if group is None:
        group = src._vgroup = weakref.WeakSet([src])
    group.add(t)
    t._vgroup = group
    t._version = src._version


def as_tensor_args(*values: Any) -> list[Tensor]:
    """Tensors stay; scalars and arrays become constants."""
    return [v if isinstance(v, Tensor) else Tensor._make(np.asarray(v)) for v in values]


def ensure_tensor(x: Any, name: str = "x") -> Tensor:
    if isinstance(x, Tensor):
        return x
    raise TypeError(f"{name} must be a jitgrad Tensor, got {type(x).__name__}")


def bind_operators(**fns: Callable) -> None:
    """Make Tensor's operators the op functions themselves (`__add__=add`; a reflected one,
    `__rsub__`, takes its operands swapped), called by the op modules once those exist.
    `x + y` then skips a forwarding call, and Node's call-site walk a frame: a tenth of a
    small op's recorded cost. The methods in the class body stay the reference (and serve
    until the ops are imported)."""
    for name, fn in fns.items():
        if name not in ("__neg__", "__abs__", "__add__", "__sub__", "__mul__", "__truediv__",
                        "__matmul__", "__radd__", "__rsub__", "__rmul__", "__rtruediv__",
                        "__getitem__"):
            raise ValueError(f"bind_operators: {name} is not a forward operator")
        setattr(Tensor, name, fn)
