"""jacobian and hessian, as `paddle.autograd.jacobian/hessian` (Paddle 2.5+).

A `Jacobian` is lazy: indexing it computes only the rows it has not computed yet, all of
them in one batched backward (`grad(..., batched=True)`: the graph's compiled Program runs
once per row inside one call), and caches them. The rows stay differentiable, as Paddle's
are: they are the output of one recorded node whose gradient rule rebuilds them with
create_graph=True when (and only when) something differentiates them. `hessian` is the
Jacobian of the gradient, recorded once with create_graph=True, so its rows are batched
replays of that gradient's graph.

Shapes follow Paddle: without a batch axis, ys and xs are 0-D or 1-D and J has shape
[M, N] (a 0-D side drops its axis); with batch_axis=0 they are 1-D or 2-D and J has shape
[B, M, N].
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor


class Jacobian:
    """d ys / d xs, evaluated lazily by rows. Index it like a Tensor (`J[:]`, `J[1:3, 0]`)."""

    def __init__(self, ys: Tensor, xs: Tensor, is_batched: bool = False) -> None:
        ys, xs = _as_tensor(ys, "ys"), _as_tensor(xs, "xs")
        lo, hi = (1, 2) if is_batched else (0, 1)
        for name, t in (("xs", xs), ("ys", ys)):
            if not lo <= t.ndim <= hi:
                raise ValueError(f"{name}.ndim should be {lo} or {hi} when "
                                 f"{'batch_axis=0' if is_batched else 'batch_axis=None'}, "
                                 f"got {t.ndim} (shape {list(t.shape)})")
        self._xs, self.is_batched = xs, is_batched
        self._rows: dict[int, tuple[Tensor, int]] = {}    # row -> (its block, index)
        if is_batched:
            if ys.shape[0] != xs.shape[0]:
                raise ValueError(f"ys and xs must share the batch size, got {ys.shape[0]} and "
                                 f"{xs.shape[0]}")
            self._ys = ys.reshape([ys.shape[0], -1])
            self._lazy_axis = 1
            self.inner_shape = [xs.shape[0], self._ys.shape[1], _width(xs, True)]
            self.shape = [xs.shape[0], *ys.shape[1:2], *xs.shape[1:2]]
        else:
            self._ys = ys.reshape([-1])
            self._lazy_axis = 0
            self.inner_shape = [self._ys.shape[0], _width(xs, False)]
            self.shape = [*ys.shape[0:1], *xs.shape[0:1]]
        # axes of inner_shape a 0-D (or, batched, 1-D) side does not have in `shape`
        sides = ((1, ys.ndim == 2), (2, xs.ndim == 2)) if is_batched else \
            ((0, ys.ndim == 1), (1, xs.ndim == 1))
        self._dropped = [axis for axis, kept in sides if not kept]

    # ---- evaluation ----------------------------------------------------------------------
    def _row(self, i: int) -> Tensor:
        """Row i along the lazy axis: [N] (or [B, N] batched), differentiable."""
        if i not in self._rows:
            self._compute([i])
        block, k = self._rows[i]
        return block[k]

    def _compute(self, wanted: list[int]) -> None:
        """The rows in `wanted` not computed yet: their values from one batched backward,
        each a slice of one differentiable block."""
        todo = [i for i in dict.fromkeys(wanted) if i not in self._rows]
        if not todo:
            return
        from .api import grad
        ys, xs, batched = self._ys, self._xs, self.is_batched
        seeds = np.zeros((len(todo),) + tuple(ys.shape), ys._data.dtype)
        ks = np.arange(len(todo))
        if batched:                         # row k: ones on column todo[k] of every batch row
            seeds[ks, :, todo] = 1
        else:
            seeds[ks, todo] = 1
        if ys._stop_gradient:
            values = np.zeros((len(todo),) + tuple(xs.shape), xs._data.dtype)
        else:
            (g,) = grad(ys, xs, Tensor._make(seeds), allow_unused=True, batched=True)
            values = np.zeros((len(todo),) + tuple(xs.shape), xs._data.dtype) if g is None \
                else g._data
        block = _differentiable_rows(values, self, todo)   # [K, *xs.shape]
        flat = block.reshape([len(todo), self.inner_shape[0], -1] if batched
                             else [len(todo), -1])
        for k, i in enumerate(todo):
            self._rows[i] = (flat, k)

    def _block(self, wanted: list[int]) -> Tensor:
        """The wanted rows stacked along the lazy axis: one computed block as it is when
        they are its rows in order (J[:] right after its batched backward), else slices
        of the blocks stacked."""
        first = self._rows[wanted[0]][0]
        if len(wanted) == first.shape[0] and \
                all(self._rows[i][0] is first and self._rows[i][1] == k
                    for k, i in enumerate(wanted)):
            return _move_rows(first, self._lazy_axis)
        return _stack([self._row(i) for i in wanted], self._lazy_axis)

    def __getitem__(self, index: Any) -> Tensor:
        index = self._expand(index)
        lazy = index[self._lazy_axis]
        rows = range(self.inner_shape[self._lazy_axis])[lazy]
        wanted = [rows] if isinstance(rows, int) else list(rows)
        if not wanted:          # an empty slice (J[2:1]): an empty result, as numpy gives
            return Tensor._make(np.zeros(self.inner_shape, self._xs._data.dtype)[index])
        self._compute(wanted)
        block = self._block(wanted)
        rest = list(index)
        rest[self._lazy_axis] = 0 if isinstance(rows, int) else slice(None)
        return block[tuple(rest)]

    def _graph_row(self, i: int) -> Tensor:
        """Row i rebuilt with create_graph=True (what differentiating the rows needs)."""
        from .api import grad
        y = self._ys[:, i] if self.is_batched else self._ys[i]
        (g,) = grad(y, self._xs, create_graph=True, allow_unused=True)
        if g is None:
            g = Tensor._make(np.zeros_like(self._xs._data), stop_gradient=False)
        return g

    def _expand(self, index: Any) -> tuple:
        """A user index over `shape` -> one entry per axis of `inner_shape`."""
        if not isinstance(index, tuple):
            index = (index,)
        if any(i is Ellipsis for i in index):
            raise IndexError("Ellipsis is not supported when indexing a Jacobian")
        if len(index) > len(self.shape):
            raise IndexError(f"too many indices for a Jacobian of shape {list(self.shape)}")
        index = index + (slice(None),) * (len(self.shape) - len(index))
        it = iter(index)
        full = tuple(0 if ax in self._dropped else next(it)
                     for ax in range(len(self.inner_shape)))
        for ax, i in enumerate(full):
            if not isinstance(i, (int, np.integer, slice)):
                raise TypeError(f"a Jacobian is indexed with ints and slices, got {i!r}")
        return full

    def _evaluate_all(self) -> Tensor:
        return self[()]

    def numpy(self) -> np.ndarray:
        return self._evaluate_all().numpy()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._evaluate_all(), name)

    # Arithmetic and comparisons evaluate the whole matrix, as Paddle 3.3.1's do: only the
    # forward forms (`J + 1` works, `1 + J` raises TypeError, as there).
    def _binary(self, other: Any, op: str) -> Any:
        if isinstance(other, Jacobian):
            other = other._evaluate_all()
        return getattr(self._evaluate_all(), op)(other)

    def __add__(self, other: Any) -> Tensor:
        return self._binary(other, "__add__")

    def __sub__(self, other: Any) -> Tensor:
        return self._binary(other, "__sub__")

    def __mul__(self, other: Any) -> Tensor:
        return self._binary(other, "__mul__")

    def __truediv__(self, other: Any) -> Tensor:
        return self._binary(other, "__truediv__")

    __div__ = __truediv__

    def __floordiv__(self, other: Any) -> Tensor:
        return self._binary(other, "__floordiv__")

    def __mod__(self, other: Any) -> Tensor:
        return self._binary(other, "__mod__")

    def __pow__(self, other: Any) -> Tensor:
        return self._binary(other, "__pow__")

    def __matmul__(self, other: Any) -> Tensor:
        return self._binary(other, "__matmul__")

    def __eq__(self, other: Any) -> Tensor:          # type: ignore[override]
        return self._binary(other, "__eq__")

    def __ne__(self, other: Any) -> Tensor:          # type: ignore[override]
        return self._binary(other, "__ne__")

    def __lt__(self, other: Any) -> Tensor:
        return self._binary(other, "__lt__")

    def __le__(self, other: Any) -> Tensor:
        return self._binary(other, "__le__")

    def __gt__(self, other: Any) -> Tensor:
        return self._binary(other, "__gt__")

    def __ge__(self, other: Any) -> Tensor:
        return self._binary(other, "__ge__")

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={list(self.shape)}, rows evaluated: {len(self._rows)})"


class Hessian(Jacobian):
    """The Jacobian of a gradient (see `hessian`)."""


def jacobian(ys: Tensor | Sequence[Tensor], xs: Tensor | Sequence[Tensor],
             batch_axis: int | None = None) -> Any:
    """Jacobian(s) of ys with respect to xs: one lazy `Jacobian` per (y, x) pair, nested in
    tuples like Paddle (a tuple over ys of tuples over xs when both are sequences)."""
    if batch_axis is not None and batch_axis != 0:
        raise ValueError(f"batch_axis must be None or 0, got {batch_axis!r}")
    batched = batch_axis is not None
    ys_seq, xs_seq = isinstance(ys, (list, tuple)), isinstance(xs, (list, tuple))
    if ys_seq and xs_seq:
        return tuple(tuple(Jacobian(y, x, batched) for x in xs) for y in ys)
    if ys_seq:
        return tuple(Jacobian(y, xs, batched) for y in ys)
    if xs_seq:
        return tuple(Jacobian(ys, x, batched) for x in xs)
    return Jacobian(ys, xs, batched)


def hessian(ys: Tensor, xs: Tensor | Sequence[Tensor], batch_axis: int | None = None) -> Any:
    """Hessian(s) of a one-element ys (one per batch row with batch_axis=0) w.r.t. xs.

    For a tuple xs of shapes [M1], [M2] the result is ((H11, H12), (H21, H22)).
    """
    ys = _as_tensor(ys, "ys")
    if batch_axis is None:
        if ys._data.size != 1:
            raise ValueError(f"hessian needs ys with one element when batch_axis is None, got "
                             f"shape {list(ys.shape)}")
        ys = ys.reshape([])
    elif batch_axis == 0:
        if ys.ndim == 0 or ys._data.size != ys.shape[0]:
            raise ValueError(f"hessian with batch_axis=0 needs ys of shape [B] or [B, 1], got "
                             f"{list(ys.shape)}")
        ys = ys.reshape([-1])
    else:
        raise ValueError(f"batch_axis must be None or 0, got {batch_axis!r}")
    from .api import grad
    batched = batch_axis is not None
    xs_list = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    for x in xs_list:
        _as_tensor(x, "xs")
    # the gradient, recorded once (create_graph): its rows are then batched replays. A
    # tensor listed twice in xs is differentiated once (Paddle 3.3.1 takes [x, x] here)
    unique = list({id(x): x for x in xs_list}.values())
    by_id = dict(zip(map(id, unique), grad(ys, unique, create_graph=True, allow_unused=True)))
    firsts = [Tensor._make(np.zeros_like(x._data)) if by_id[id(x)] is None else by_id[id(x)]
              for x in xs_list]
    if not isinstance(xs, (list, tuple)):
        return _as_hessian(Jacobian(firsts[0], xs, batched))
    return tuple(tuple(_as_hessian(Jacobian(g, x, batched)) for x in xs_list)
                 for g in firsts)


def _differentiable_rows(values: np.ndarray, jac: Jacobian, rows: list[int]) -> Tensor:
    """The rows' values as one Tensor that differentiates like the rows themselves: a
    recorded node over the leaves of ys's graph whose rule rebuilds the rows with
    create_graph=True and differentiates <rows, G> (slow, and only when asked for)."""
    from ..core import tape
    if not tape.is_grad_enabled():
        return Tensor._make(values)
    leaves = _leaves_of(jac._ys)
    if not leaves:      # ys does not depend on anything: zeros, stop_gradient as xs's
        return Tensor._make(values, stop_gradient=jac._xs._stop_gradient)   # (Paddle)
    return _JacobianRows.apply(values, jac, rows, *leaves)


def _leaves_of(t: Tensor) -> list[Tensor]:
    """Leaves needing gradients that t's recorded graph reaches (in recording order)."""
    from ..core import tape
    seen: dict[int, Tensor] = {}
    for node in reversed(tape.reachable_nodes([t])):
        for x, need in zip(node.inputs, node.needs):
            if need and x._node is None:
                seen.setdefault(id(x), x)
    if t._node is None and not t._stop_gradient:
        seen.setdefault(id(t), t)
    return list(seen.values())


def _rows_pylayer() -> type:
    from .py_layer import PyLayer

    class JacobianRows(PyLayer):
        """Jacobian rows computed by a batched backward, differentiable through leaves."""

        @staticmethod
        def forward(ctx: Any, values: np.ndarray, jac: Jacobian, rows: list,
                    *leaves: Tensor) -> Tensor:
            ctx.jac, ctx.rows, ctx.leaves = jac, rows, leaves
            return Tensor._make(values)

        @staticmethod
        def backward(ctx: Any, g: Tensor) -> tuple:
            from ..core import grad_mode
            from .api import grad
            from ..ops import stack
            jac = ctx.jac
            with grad_mode.enable_grad():
                block = stack([jac._graph_row(i) for i in ctx.rows])
                inner = (block * g).sum()
                if inner._node is None:
                    return (None,) * len(ctx.leaves)
                return tuple(grad(inner, list(ctx.leaves), allow_unused=True,
                                  create_graph=True))
    return JacobianRows


class _Lazy:
    """The PyLayer class, made on first use (functional is imported before py_layer)."""

    cls: Any = None

    @classmethod
    def apply(cls, *args: Any) -> Tensor:
        if cls.cls is None:
            cls.cls = _rows_pylayer()
        return cls.cls.apply(*args)


_JacobianRows = _Lazy


def _as_hessian(j: Jacobian) -> Hessian:
    j.__class__ = Hessian
    return j


def _as_tensor(t: Any, name: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{name} must be a Tensor, got {type(t).__name__}")
    return t


def _width(x: Tensor, batched: bool) -> int:
    return int(x._data.size // x.shape[0]) if batched else int(x._data.size)


def _move_rows(block: Tensor, axis: int) -> Tensor:
    """A block of rows [K, ...] with its row axis moved to `axis` (0 or 1)."""
    if axis == 0:
        return block
    from ..ops import transpose
    return transpose(block, [1, 0] + list(range(2, block.ndim)))


def _stack(rows: list[Tensor], axis: int) -> Tensor:
    """Stack differentiable rows along a new `axis` (0 or 1)."""
    from .. import ops
    if hasattr(ops, "stack"):
        return ops.stack(rows, axis=axis)
    from ..ops.shape import _scatter_flat
    shape = list(rows[0].shape)
    shape.insert(axis, len(rows))
    pos = np.arange(int(np.prod(shape))).reshape(shape)
    total = None
    for i, r in enumerate(rows):
        idx = np.take(pos, i, axis=axis).ravel()
        part = _scatter_flat(r.reshape([-1]), idx, tuple(shape))
        total = part if total is None else total + part
    return total
