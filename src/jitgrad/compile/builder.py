"""The Builder: what an op's `lower` rule talks to while its gradient becomes VM rows.

It places forward values (named by their canonical source, graph.py: never copied into
the Program), allocates gradient slots and temporaries, builds int tables and constants,
and emits rows. lower.py walks the graph and hands each node's rule a Builder.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, NamedTuple

import numpy as np

from .graph import Graph
from ..vm.program import OP

class Slot(NamedTuple):
    off: int
    n: int
    shape: tuple


_OUT = object()                     # Builder.source: the node's output matched
_new_slot = tuple.__new__            # Slot(off, n, shape) without namedtuple's __new__
# shape -> tuple(map(int, shape)) (a dict lookup costs a fifth of the conversion; an equal
# tuple of numpy ints hashes and compares as its key, so it gets the same answer)
_SHAPES: dict[tuple, tuple] = {}


class BoundK:
    """A constant whose value comes from the graph: K = factor * source[0] (Builder.scalar)."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class Builder:
    """What an op's `lower` function talks to: places values, allocates slots, emits rows."""

    def __init__(self, dtype: np.dtype, graph: Graph) -> None:
        self.dtype = np.dtype(dtype)
        self.graph = graph
        self.size = 0
        self.values: list[tuple[int, np.ndarray, tuple, tuple | None]] = []
        self._value_ids: dict[tuple, Slot] = {}
        self._keep: list[Any] = []          # keeps arrays alive while their memory is a key
        self.rows: list[list[int]] = []
        self.prologue: list[list[int]] = []
        self.names: list[str] = []
        self.itab: list[np.ndarray | list] = []    # int64 arrays, and flat lists (table())
        self.itab_size = 0
        self.tables: list[tuple[int, int, tuple]] = []
        self.consts: list[float] = [1.0]
        self._const_ids: dict[float, int] = {1.0: 0}
        self.scalars: list[tuple[int, tuple, float]] = []
        self.written: set[int] = set()
        self.current = ""                   # name of the node being lowered, for text dumps
        self.node: Any = None               # the node being lowered
        self.unnamed: str | None = None     # why a value could not be named (see value())
        self.allocs: list[int] = []
        self.breaks: list[tuple[int, tuple]] = []   # (row index, callback spec)
        self.pinned: set[tuple[int, int]] = set()   # (offset, size) of slots callbacks use
        self.flows: dict[int, Slot] = {}    # node id -> its gradient slot after its hooks
        self._cands: list = []              # the current node's (source, array) pairs
        self._cands_of: Any = None
        self._k = -1                        # the current node's canonical number
        self._k_of: Any = None              # ... of this node

    def breakpoint(self, spec: tuple, pin: Iterable[Slot] = ()) -> None:
        """Run the callback `spec` (data: hook_calls.py, node_call.py) between the rows emitted
        so far and the next ones. The slots in `pin` are touched by the callback:
        optimisation passes must keep them."""
        self.breaks.append((len(self.rows), spec))
        self.pinned.update((s.off, max(s.n, 1)) for s in pin)

    # ---- naming forward values -------------------------------------------------------
    def source(self, arr: Any) -> tuple | None:
        """The canonical source (graph.py) of an array the current node's rule handed over:
        one of its inputs, its output, a saved value or an array attribute. The very object
        first; failing that, an array over the same memory (a reshaped view). None when no
        source matches. Two tensors (or outputs) over one array object, x and x.detach(),
        are named by the first: the graph's key holds that pair (graph.aliases), so every
        graph sharing the Program shares the array. Over one memory but as different
        objects (views), no source: another graph of this structure need not share it."""
        node = self.node
        if node is None or not isinstance(arr, (np.ndarray, np.generic)):
            return None
        if self._k_of is not node:
            self._k, self._k_of = self.graph.node_index()[id(node)], node
        # the common case first: exactly one of the node's arrays is `arr` itself, and its
        # source is the answer of the scan below (which lists every candidate's source)
        count, one = 0, None
        for t in node.inputs:
            if t._data is arr:
                count += 1
                one = t
        if node.out_data is arr:
            count += 1
            one = _OUT
        saved = node.saved
        if saved:
            for j, v in enumerate(saved):
                if v is arr:
                    count += 1
                    one = j
        attrs = node.attrs
        if attrs and type(arr) is np.ndarray:
            for name, v in attrs.items():
                if v is arr:
                    count += 1
                    one = (name,)
        if count == 1:
            if one is _OUT:
                return ("o", self._k)
            if type(one) is int:
                return ("s", self._k, one)
            if type(one) is tuple:
                return ("a", self._k, one[0])
            i = self.graph.tensor_index().get(id(one))
            if i is not None:
                return ("t", i)
            nindex = self.graph.node_index()
            if one._node is not None and id(one._node) in nindex:
                return ("o", nindex[id(one._node)])
        return self.scan_sources(arr)

    def scan_sources(self, arr: Any) -> tuple | None:
        """source(arr) by a scan of every candidate of the current node (its whole
        definition; source answers the common case without it)."""
        node = self.node
        if node is None or not isinstance(arr, (np.ndarray, np.generic)):
            return None
        if self._k_of is not node:
            self._k, self._k_of = self.graph.node_index()[id(node)], node
        if self._cands_of is not node:      # (once per node: its rule asks several times)
            self._cands, self._cands_of = self._candidates(node, self._k), node
        cands = self._cands
        found = None
        for src, cand in cands:             # the very object
            if arr is cand:
                if found is None or src[0] == "s":
                    found = src             # a saved value aliasing an input: the saved one
                elif found != src and found[0] != "s" and not _one_value(found, src,
                                                                          self._k) and \
                        not (found[0] in "ot" and src[0] in "ot"):
                    # (two tensors or outputs over one array, x and x.detach(): the key
                    # names the pair (graph.aliases), so either source is right)
                    self.unnamed = f"{node.op.name}: one array shared by two tensors"
                    return None
        if found is not None:
            return found
        for src, cand in cands:             # an array over the same memory
            if _same_memory(arr, cand):
                if found is None or src[0] == "s":
                    found = src
                elif found != src and found[0] != "s" and not _one_value(found, src,
                                                                          self._k):
                    self.unnamed = f"{node.op.name}: one array shared by two tensors"
                    return None
        return found

    def _candidates(self, node: Any, k: int) -> list[tuple[tuple, np.ndarray]]:
        graph = self.graph
        tindex, nindex = graph.tensor_index(), graph.node_index()
        cands = []
        for t in node.inputs:
            i = tindex.get(id(t))
            if i is not None:
                cands.append((("t", i), t._data))
            elif t._node is not None and id(t._node) in nindex:
                cands.append((("o", nindex[id(t._node)]), t._data))
        cands.append((("o", k), node.out_data))
        for j, v in enumerate(node.saved or ()):
            if isinstance(v, (np.ndarray, np.generic)):     # (a 0-d ufunc result: a scalar)
                cands.append((("s", k, j), v))
        attrs = node.attrs
        if attrs:
            for name, v in attrs.items():
                if type(v) is np.ndarray:
                    cands.append((("a", k, name), v))
        return cands

    # ---- layout ------------------------------------------------------------------------
    def alloc(self, shape: Iterable[int]) -> Slot:
        try:
            norm = _SHAPES.get(shape) if type(shape) is tuple else None
        except TypeError:                   # (an unhashable dimension: a 0-d array)
            norm = shape = tuple(map(int, shape))
        if norm is None:
            norm = tuple(map(int, shape))
            if type(shape) is tuple:
                if len(_SHAPES) >= 4096:
                    _SHAPES.clear()
                _SHAPES[shape] = norm
        shape = norm
        n = math.prod(shape)
        off = self.size
        self.size = off + (n if n > 1 else 1)   # distinct offsets even for empty slots
        self.allocs.append(off)             # slot starts, for slot_layout.compact
        return _new_slot(Slot, (off, n, shape))

    def value(self, arr: np.ndarray, shape: Iterable[int] | None = None) -> Slot:
        """A forward value, broadcast to `shape`, placed in the arena (once per array)."""
        src = self.source(arr)
        if type(arr) is not np.ndarray:
            arr = np.asarray(arr)
        shape = arr.shape if shape is None else tuple(shape)
        # keyed by memory and source: a reshaped view of a value already placed (matmul's
        # operands) shares its slot; copied in by the binding (no temporary). A source
        # names one array of the graph, so with one its memory is that array's: the
        # address (an __array_interface__ dict per call) adds nothing to the key.
        if src is None:
            if self.unnamed is None:
                self.unnamed = f"{getattr(self.node, 'op', None)!r} computes a value in its rule"
            key = (arr.__array_interface__["data"][0], arr.shape, arr.strides, arr.dtype,
                   shape, src)
        else:                               # (a dtype compares as its .str, and is cheaper)
            key = (arr.shape, arr.strides, arr.dtype, shape, src)
        slot = self._value_ids.get(key)
        if slot is None:
            if shape != arr.shape and arr.size > 1 and arr.size != math.prod(shape) and \
                    (grid := expand_grid(arr.shape, shape)) is not None:
                # broadcast by an EXPAND row from the value placed at its own shape: the
                # binding's numpy copy (view[...] = v) loops over the broadcast with a call
                # per inner run, ~30 us for (64, 1, 2) -> (64, 64, 2) float32, EXPAND ~3
                slot = self.alloc(shape)
                self.emit("EXPAND", slot, self.value(arr), p=self.table(grid), acc=False)
            else:
                slot = self.alloc(shape)
                self.values.append((slot.off, arr, shape, src))
                self._keep.append(arr)
            self._value_ids[key] = slot
        return slot

    def static_value(self, arr: np.ndarray, shape: Iterable[int] | None = None) -> Slot:
        """A constant array computed from shapes and attributes only (a mask, a scale
        table): part of the Program, the same for every graph of this structure."""
        arr = np.asarray(arr)
        shape = tuple(arr.shape if shape is None else shape)
        slot = self.alloc(shape)
        self.values.append((slot.off, arr, shape, "static"))
        return slot

    def const(self, v: float) -> int:
        v = float(v)
        if v not in self._const_ids:
            self._const_ids[v] = len(self.consts)
            self.consts.append(v)
        return self._const_ids[v]

    def scalar(self, arr: np.ndarray, factor: float = 1.0) -> BoundK | float:
        """K = factor * arr's one element, filled in from each graph (the value is data, not
        structure). An array without a source gives a literal constant (and the Program
        serves only this graph)."""
        src = self.source(arr)
        arr = np.asarray(arr)
        value = float(factor) * float(arr.reshape(-1)[0])
        if src is None:
            if self.unnamed is None:
                self.unnamed = f"{getattr(self.node, 'op', None)!r} computes a constant"
            return value
        k = len(self.consts)
        self.consts.append(float("nan"))    # a placeholder no pass may read as a value
        self.scalars.append((k, src, float(factor)))
        return BoundK(k)

    def table(self, ints: Any) -> int:
        """An int table: structure (from shapes and attributes) unless it is one of the
        node's own arrays (a saved index map, an index attribute), which each graph then
        fills in from its own node."""
        if type(ints) is list:              # flat numbers from shapes and attributes (most
            off = self.itab_size            # tables): lower._itab makes one array of them
            self.itab.append(list(ints))
            self.itab_size = off + len(ints)
            return off
        src = self.source(ints) if isinstance(ints, np.ndarray) else None
        arr = np.ascontiguousarray(ints, dtype=np.int64).ravel()
        off = self.itab_size
        self.itab.append(arr)
        self.itab_size += arr.size
        if src is not None:
            self.tables.append((off, int(arr.size), src))
        return off

    # ---- emitting ----------------------------------------------------------------------
    def emit(self, name: str, out: Slot, a: Slot | None = None, b: Slot | None = None,
             c: Slot | None = None, n: int | None = None, p: int = 0,
             k: float | BoundK = 1.0, acc: bool | None = None) -> None:
        """Append one instruction; by default it accumulates iff `out` was written before."""
        o = out.off
        written = self.written
        if acc is None:
            acc = o in written
        written.add(o)
        if k == 1.0 and type(k) is float:
            kidx = 0                        # (const(1.0): the table's first entry)
        else:
            kidx = k.index if isinstance(k, BoundK) else self.const(k)
        row = [OP[name] << 1 | int(acc), o, a.off if a else 0, b.off if b else 0,
               c.off if c else 0, out.n if n is None else n, p, kidx]
        rows = self.rows
        if acc and rows and rows[-1][0] == row[0] - 1 and rows[-1][1:] == row[1:] and \
                row[0] >> 1 in _DOUBLED and row[5] == out.n and \
                (not self.breaks or self.breaks[-1][0] < len(rows)) and \
                not _reads_into(out, (a, b, c)):
            self._double_last(out)
            return
        rows.append(row)
        self.names.append(self.current)

    def _double_last(self, out: Slot) -> None:
        """The row just emitted again, adding: out = v then out += v, both from one node
        (x * x: g * x for each input; x + x). v + v is 2 * v exactly, so the first row
        writes v to a temporary and AXPY doubles it into out, a chain the peephole fuses
        into one pass (one writer: a leaf's slot can then be its .grad), where the pair
        computed v twice and read and wrote out twice."""
        tmp = self.alloc(out.shape)
        self.rows[-1][1] = tmp.off
        self.written.add(tmp.off)
        self.rows.append([OP["AXPY"] << 1, out.off, tmp.off, 0, 0, out.n, 0, self.const(2.0)])
        self.names.append(self.current)

    def ensure_zero(self, slot: Slot) -> None:
        """Before a kernel that can only accumulate (SCATTER) writes into `slot`."""
        if slot.off not in self.written:
            self.emit("ZERO", slot, acc=False)

    # ---- gradient helpers used by the op rules ------------------------------------------
    def contribute(self, dest: Slot, out_shape: tuple, name: str, a: Slot,
                   b: Slot | None = None, c: Slot | None = None,
                   k: float | BoundK = 1.0) -> None:
        """dest += sum_to(dest.shape, kernel(a, b, c)), kernel evaluated at `out_shape`."""
        out_shape = tuple(out_shape)
        if dest.shape == out_shape or dest.n == math.prod(out_shape):
            self.emit(name, dest, a, b, c, k=k)
            return
        tmp = self.alloc(out_shape)
        self.emit(name, tmp, a, b, c, k=k, acc=False)
        self.reduce_into(dest, tmp)

    def mul(self, dest: Slot, out_shape: tuple, g: Slot, factor: np.ndarray, k: float = 1.0
            ) -> None:
        """dest += sum_to(g * factor * k); a one-element factor becomes a constant."""
        if (factor.size if type(factor) is np.ndarray else np.size(factor)) == 1:
            self.contribute(dest, out_shape, "AXPY", g, k=self.scalar(factor, k))
        elif k == 1.0 and type(factor) is np.ndarray and factor.shape != tuple(out_shape) \
                and (grid := expand_grid(factor.shape, out_shape)) is not None:
            # a broadcast factor (x's gradient of x[:, None] * y[None]) read at its own shape
            # by EXPAND_MUL (factor * g: g * factor's bits), without its broadcast copy
            out_shape = tuple(out_shape)
            small = self.value(factor)
            if dest.shape == out_shape or dest.n == math.prod(out_shape):
                self.emit("EXPAND_MUL", dest, small, g, p=self.table(grid))
            else:
                tmp = self.alloc(out_shape)
                self.emit("EXPAND_MUL", tmp, small, g, p=self.table(grid), acc=False)
                self.reduce_into(dest, tmp)
        else:
            self.contribute(dest, out_shape, "MUL", g, self.value(factor, out_shape), k=k)

    def select(self, dest: Slot, out_shape: tuple, g: Slot, mask: np.ndarray) -> None:
        """dest += sum_to(g where the 0/1 mask is 1, else 0): a select, not a product, so an
        inf or NaN in g where the mask is 0 adds 0 (RELU_BWD reads the mask)."""
        self.contribute(dest, out_shape, "RELU_BWD", g, self.value(mask, out_shape))

    def weighted(self, dest: Slot, out_shape: tuple, g: Slot, weight: np.ndarray,
                 mask: np.ndarray | None = None, select_last: bool = False) -> None:
        """dest += sum_to(g * weight where the weight (>= 0) is > 0, else 0): a product that
        selects (maximum's tie weights), so an inf or NaN in g where the weight is 0 adds 0.
        RELU_BWD reads the weight (or `mask`, when another array says where the product
        counts: > 0 there) into a temporary, then MUL (a CHAIN's last MUL writes its output
        directly: one pass over the tile less). `select_last`: MUL first, RELU_BWD last,
        for a weight that may be NaN or -0.0 where it does not count (the result there is
        +0 either way)."""
        out_shape = tuple(out_shape)
        w = self.value(weight, out_shape)
        m = w if mask is None else self.value(mask, out_shape)
        tmp = self.alloc(out_shape)
        if select_last:
            self.emit("MUL", tmp, g, w, acc=False)
            self.contribute(dest, out_shape, "RELU_BWD", tmp, m)
        else:
            self.emit("RELU_BWD", tmp, g, m, acc=False)
            self.contribute(dest, out_shape, "MUL", tmp, w)

    def reduce_into(self, dest: Slot, src: Slot) -> None:
        """dest += src summed over the axes along which dest was broadcast to src.shape."""
        if dest.n == src.n:
            self.emit("AXPY", dest, src)
        elif dest.n == 1:
            self.emit("SUM", dest, src, n=src.n)
        elif _leading_broadcast(dest.shape, src.shape):
            self.emit("ROWSUM", dest, src, p=self.table([src.n // dest.n]))
        elif (block := _block_broadcast(dest.shape, src.shape)) is not None:
            self.emit("CHANSUM", dest, src, p=self.table(block))
        elif (mid := _middle_broadcast(dest.shape, src.shape)) is not None:
            self.emit("MIDSUM", dest, src, p=self.table(mid))
        else:
            idx = broadcast_index(dest.shape, src.shape)
            self.ensure_zero(dest)
            self.emit("SCATTER", dest, src, n=src.n, p=self.table(idx), acc=True)

    def broadcast_into(self, dest: Slot, src: Slot, k: float = 1.0) -> None:
        """dest += k * src broadcast from src.shape (with kept dims) to dest.shape."""
        if src.n == dest.n:
            self.emit("AXPY", dest, src, k=k)
        elif src.n == 1:
            self.emit("BCAST", dest, src, k=k)
        elif (grid := expand_grid(src.shape, dest.shape)) is not None:
            self.emit("EXPAND", dest, src, p=self.table(grid), k=k)
        else:                               # (more than three runs of axes: strides 0)
            small = (1,) * (len(dest.shape) - len(src.shape)) + tuple(src.shape)
            flat = np.arange(math.prod(small), dtype=np.int64).reshape(small)
            self.take_positions(dest, src, np.broadcast_to(flat, dest.shape), flat, k)

    def spread_mul(self, dest: Slot, src: Slot, weight: Slot, small: tuple, big: tuple,
                   start: int = 0) -> None:
        """dest += (src from element `start` on, shape `small` with kept dims, broadcast to
        `big`) * weight: EXPAND_MUL, or GATHER_MUL over an index table when the broadcast
        is not one grid."""
        grid = expand_grid(small, big) if start == 0 else None   # (a field at a slot start)
        if grid is not None:
            self.emit("EXPAND_MUL", dest, src, weight, p=self.table(grid))
        else:
            self.emit("GATHER_MUL", dest, src, weight,
                      p=self.table(broadcast_index(small, big) + start))

    def take_positions(self, dest: Slot, src: Slot, positions: np.ndarray,
                       flat: np.ndarray, k: float = 1.0) -> None:
        """dest (+)= k * src.ravel()[positions], for positions taken from `flat` (np.arange
        of src's size, shaped) by slicing, transposing and broadcasting: a view of it, whose
        strides and first element are STRIDED's grid, read without a table; any other (an
        index array's copy, or a grid of short inner runs) a GATHER table. The positions
        are structure (shapes, axes, slices)."""
        grid = strided_grid(positions, flat)
        if grid is None or grid[grid[0]] < _STRIDED_MIN_RUN:
            self.emit("GATHER", dest, src, p=self.table(positions.ravel()), k=k)
        else:
            self.emit("STRIDED", dest, src, p=self.table(grid), k=k)

    def swap_last_axes(self, dest: Slot, src: Slot, shape: tuple, k: float = 1.0) -> None:
        """dest (+)= k * src (of `shape`) with its last two axes swapped: a batch of
        matrices transposed."""
        flat = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
        self.take_positions(dest, src, np.swapaxes(flat, -1, -2), flat, k)

    def scatter(self, dest: Slot, src: Slot, idx: np.ndarray) -> None:
        """dest[idx[i]] += src[i] (repeated indices add up)."""
        self.ensure_zero(dest)
        self.emit("SCATTER", dest, src, n=src.n, p=self.table(idx), acc=True)


# opcodes whose row writes one computed value per element of [out, out + n) and reads the
# same values when run twice: an identical pair, the second adding, is 2 * v
_DOUBLED = frozenset(OP[name] for name in (
    "AXPY", "MUL", "DIV", "DIVK", "MULDIV", "TANH_BWD", "SIGMOID_BWD", "RELU_BWD", "BCAST",
    "GATHER", "GATHER_MUL", "EXPAND", "EXPAND_MUL", "STRIDED"))


def _reads_into(out: Slot, operands: tuple) -> bool:
    """Whether an operand slot overlaps `out` (a row reading what it writes)."""
    hi = out.off + max(out.n, 1)
    for s in operands:
        if s is not None and s.off < hi and out.off < s.off + max(s.n, 1):
            return True
    return False


def _leading_broadcast(small: tuple, big: tuple) -> bool:
    """Was `small` broadcast to `big` along leading axes only (a bias: (n,) -> (m, n))?"""
    small = tuple(small)
    while small and small[0] == 1:
        small = small[1:]
    return len(small) > 0 and tuple(big[len(big) - len(small):]) == small


def _block_broadcast(small: tuple, big: tuple) -> list[int] | None:
    """[rows, inner] when `small` was broadcast to `big` around one block of its axes
    (a per-channel [C, 1, 1] onto [N, C, H, W]: rows N, inner H * W), else None."""
    small = (1,) * (len(big) - len(small)) + tuple(small)
    kept = [i for i, (s, b) in enumerate(zip(small, big)) if s != 1 or b == 1]
    kept = [i for i in kept if big[i] != 1]
    if not kept:
        return None
    lo, hi = kept[0], kept[-1] + 1
    if any(small[i] != big[i] for i in range(lo, hi)):
        return None
    return [math.prod(big[:lo]), math.prod(big[hi:])]


def _middle_broadcast(small: tuple, big: tuple) -> list[int] | None:
    """[block, inner] when `small` was broadcast to `big` along one block of middle axes
    only (x [N, 1, D] against [N, M, D]: block M, inner D), else None."""
    small = (1,) * (len(big) - len(small)) + tuple(small)
    spread = [i for i, (s, b) in enumerate(zip(small, big)) if s != b]
    if not spread or spread[-1] - spread[0] + 1 != len(spread):
        return None
    lo, hi = spread[0], spread[-1] + 1
    outer, inner = math.prod(big[:lo]), math.prod(big[hi:])
    if outer == 1 or inner == 1:            # (ROWSUM's and CHANSUM's cases)
        return None
    return [math.prod(big[lo:hi]), inner]


def expand_grid(small: tuple, big: tuple) -> list[int] | None:
    """EXPAND's [outer, mid, inner, stride_outer, stride_mid, stride_inner] for `small`
    (kept dims) broadcast to `big`, when its axes fall into at most three runs of kept and
    broadcast axes (a reduction over leading, trailing, middle or outer-and-inner axes),
    else None (GATHER's index table then)."""
    small = (1,) * (len(big) - len(small)) + tuple(small)
    runs: list[list] = []                   # [size, kept?], adjacent runs of one kind merged
    for s, b in zip(small, big):
        if b == 1:
            continue
        kept = s == b
        if runs and runs[-1][1] == kept:
            runs[-1][0] *= b
        else:
            runs.append([b, kept])
    if len(runs) > 3:
        return None
    runs = [[1, False]] * (3 - len(runs)) + runs
    sizes, strides, step = [], [], 1
    for size, kept in reversed(runs):
        sizes.append(size)
        strides.append(step if kept else 0)
        step *= size if kept else 1
    return sizes[::-1] + strides[::-1]


_STRIDED_DIMS = 8                       # (the kernel's odometer)
# STRIDED steps its odometer once per inner run: for runs shorter than this a GATHER table
# is faster (avg_pool2d's 2x2 spread, inner runs of 2: 36 -> 66 us of an 8x8x16x16 step)
_STRIDED_MIN_RUN = 8


def strided_grid(positions: np.ndarray, flat: np.ndarray) -> list[int] | None:
    """STRIDED's [d, sizes, strides, offset] for `positions`, a view of the C-ordered
    arange `flat` (its value at an index is offset + the index dotted with its element
    strides), with size-1 axes dropped and axes that step as one merged; None when it is
    not such a view (a copy: any values) or needs more than 8 axes."""
    if positions.size == 0 or not np.may_share_memory(positions, flat):
        return None
    item = positions.itemsize
    dims = [(n, st // item) for n, st in zip(positions.shape, positions.strides) if n != 1]
    merged: list[list[int]] = []
    for n, st in dims:
        if merged and merged[-1][1] == st * n:
            merged[-1] = [merged[-1][0] * n, st]
        else:
            merged.append([n, st])
    if not merged:
        merged = [[1, 0]]
    if len(merged) > _STRIDED_DIMS:
        return None
    return [len(merged)] + [n for n, _ in merged] + [st for _, st in merged] + \
        [int(positions.flat[0])]


def broadcast_index(small: tuple, big: tuple) -> np.ndarray:
    """For each flat position of `big`, the flat position of `small` broadcast onto it."""
    small = (1,) * (len(big) - len(small)) + tuple(small)
    return np.broadcast_to(np.arange(int(np.prod(small))).reshape(small), big).ravel()


# ---- the lowering walk ---------------------------------------------------------------------

def _is(a: np.ndarray, b: np.ndarray) -> bool:
    return a is b


def _same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    if type(a) is not np.ndarray or type(b) is not np.ndarray:
        return False
    return (a.nbytes == b.nbytes and a.flags.c_contiguous and b.flags.c_contiguous and
            a.__array_interface__["data"][0] == b.__array_interface__["data"][0])


def _one_value(a: tuple, b: tuple, k: int) -> bool:
    """Two sources over one array that hold equal values in every graph of this structure:
    node k's own output over one of its inputs (a view op: reshape, a cast to the same
    dtype)."""
    return ("o", k) in (a, b)
