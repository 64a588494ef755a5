"""Comparisons the compiled-forward tests share: the same bits, and a graph's node count."""

import numpy as np


def same_bits(a, b, nan_bits=False):
    """The same shape, dtype and bits, signed zeros and infinities included; NaN where NaN,
    its sign and payload compared only with `nan_bits` (where a NaN is copied, not
    computed: where NaNs of both signs meet in an arithmetic operation, IEEE leaves which
    one the result keeps to the implementation, and LLVM and GCC may order operands
    either way)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    if nan_bits or a.dtype.kind != "f":
        assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
        return
    nan = np.isnan(a)
    np.testing.assert_array_equal(nan, np.isnan(b))
    assert a[~nan].tobytes() == b[~nan].tobytes()


def graph_nodes(t):
    """How many nodes the graph of tensor t holds (every recorded input followed)."""
    seen, todo = set(), [t._node]
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        todo.extend(i._node for i in n.inputs)
    return len(seen)
