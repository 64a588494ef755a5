"""`x[key] = value` with a gradient keeps put_flat's index table and saved masks per (shape,
key, dtype) (ops/inplace.py _put_plan), and embedding takes its rows' positions from a kept
table per weight shape (ops/linear_embedding.py _row_positions). Values and gradients are
exactly numpy's closed forms and bit for bit those of the paths without the caches; the
cached arrays are read-only and no user tensor shares their memory."""

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops import inplace as IP
from jitgrad.ops import linear_embedding as LE

TT = paddle.to_tensor
SHAPE = (4, 5, 6)

# keys of ints and slices (cached), and index arrays (put_flat's own path)
KEYS = [
    slice(1, 3),
    2,
    -1,
    slice(None, None, -2),
    (Ellipsis, 3),
    (1, Ellipsis, slice(4, 0, -1)),
    (slice(None), 2, slice(1, 5, 2)),
    (None, 1),
    (3, 4, 5),
    slice(2, 2),
    (np.array([0, 3, 1]),),
    (slice(None), np.array([True, False, True, False, True])),
]


def _ints(shape, seed, lo=-4, hi=5):
    """Integer-valued floats: every sum a gradient takes is exact in any order."""
    return np.random.default_rng(seed).integers(lo, hi, shape).astype(np.float32)


def _setitem_step(a, b, c, key):
    """One fresh graph: h = a * 1 (a non-leaf), h[key] = b * 1, loss = sum(h * c); the
    forward's values and both gradients."""
    ta, tb = TT(a, stop_gradient=False), TT(b, stop_gradient=False)
    h = ta * 1.0
    h[key] = tb * 1.0
    (h * TT(c)).sum().backward()
    return h.numpy(), ta.grad.numpy(), tb.grad.numpy()


def _expected(a, b, c, key):
    out = a.copy()
    out[key] = b
    kept = np.ones_like(a)
    kept[key] = 0
    picked = c[key]
    gb = picked.reshape((-1,) + b.shape).sum(0) if picked.shape != b.shape else picked
    return out, c * kept, gb


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_setitem_values_and_grads_match_numpy_over_repeated_steps(key):
    a, c = _ints(SHAPE, 0), _ints(SHAPE, 1)
    b = _ints(np.zeros(SHAPE)[key].shape, 2)
    want = _expected(a, b, c, key)
    hits = paddle.cache_info().hits
    for _ in range(3):                  # same-shaped fresh graphs: the Program is reused
        for got, exp in zip(_setitem_step(a, b, c, key), want):
            np.testing.assert_array_equal(got, exp)
    assert paddle.cache_info().hits >= hits + 2


def test_setitem_broadcast_value_gets_summed_gradient():
    a, c = _ints(SHAPE, 3), _ints(SHAPE, 4)
    b = _ints((6,), 5)
    for _ in range(2):
        out, ga, gb = _setitem_step(a, b, c, slice(1, 3))
        expected = a.copy()
        expected[1:3] = b
        np.testing.assert_array_equal(out, expected)
        kept = np.ones_like(a)
        kept[1:3] = 0
        np.testing.assert_array_equal(ga, c * kept)
        np.testing.assert_array_equal(gb, c[1:3].sum((0, 1)))


def test_setitem_python_number_and_other_dtype_values():
    a, c = _ints((3, 4), 6), _ints((3, 4), 7)
    ta = TT(a, stop_gradient=False)
    h = ta * 1.0
    h[0] = 5.0
    v = TT(np.array([1, 2, 3], dtype=np.float64), stop_gradient=False)
    h[1:, 1] = v[1:]
    (h * TT(c)).sum().backward()
    expected = a.copy()
    expected[0] = 5
    expected[1:, 1] = [2, 3]
    np.testing.assert_array_equal(h.numpy(), expected)
    kept = np.ones_like(a)
    kept[0] = 0
    kept[1:, 1] = 0
    np.testing.assert_array_equal(ta.grad.numpy(), c * kept)
    np.testing.assert_array_equal(v.grad.numpy(), np.array([0, c[1, 1], c[2, 1]]))


def _random_step(key, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(SHAPE).astype(np.float32)
    c = rng.standard_normal(SHAPE).astype(np.float32)
    b = rng.standard_normal(np.zeros(SHAPE)[key].shape).astype(np.float32)
    return _setitem_step(a, b, c, key)


@pytest.mark.parametrize("key", KEYS[:10], ids=repr)
def test_setitem_with_cached_plan_is_bit_identical_to_put_flat(key, monkeypatch):
    cached = [_random_step(key, 8) for _ in range(2)]
    monkeypatch.setattr(IP, "_put_plan", lambda d, k: None)     # put_flat's own path
    plain = [_random_step(key, 8) for _ in range(2)]
    for got, want in zip(cached, plain):
        for g, w in zip(got, want):
            assert g.tobytes() == w.tobytes()


def test_setitem_plan_is_read_only_and_not_shared_with_user_tensors():
    a = TT(_ints((4, 5), 9), stop_gradient=False)
    b = TT(_ints((2, 5), 10), stop_gradient=False)
    h = a * 1.0
    h[1:3] = b
    node = h._node
    idx = node.attrs["idx"]
    kept, written = node.saved
    for t in (idx, kept, written):
        assert not t.flags.writeable
        assert t.flags.owndata          # (no writable base; a Binding skips recopying idx)
        with pytest.raises(ValueError):
            t[...] = 0
    h.sum().backward()
    for user in (h._data, a.grad._data, b.grad._data):
        for t in (idx, kept, written):
            assert not np.shares_memory(user, t)
    h2 = a * 1.0
    h2[1:3] = b
    assert h2._node.attrs["idx"] is idx            # the same read-only table each step
    assert h2._node.saved[0] is kept


def test_setitem_plan_is_keyed_by_shape_key_and_dtype():
    d32, d64 = np.zeros((4, 5), np.float32), np.zeros((4, 5), np.float64)
    p32, _ = IP._put_plan(d32, slice(1, 3))
    p64, _ = IP._put_plan(d64, slice(1, 3))
    assert p32.saved[0].dtype == np.float32 and p64.saved[0].dtype == np.float64
    other, _ = IP._put_plan(np.zeros((4, 6), np.float32), slice(1, 3))
    np.testing.assert_array_equal(other.attrs["idx"], np.arange(6, 18))
    np.testing.assert_array_equal(p32.attrs["idx"], np.arange(5, 15))
    p13, _ = IP._put_plan(d32, slice(1, 4))
    np.testing.assert_array_equal(p13.attrs["idx"], np.arange(5, 20))


def test_setitem_plan_only_for_plain_keys_and_c_contiguous_values():
    d = np.zeros((4, 5), np.float32)
    assert IP._put_plan(d, (1, slice(0, 2))) is not None
    assert IP._put_plan(d, np.int64(1)) is None                 # a numpy int
    assert IP._put_plan(d, slice(np.int64(0), 2)) is None
    assert IP._put_plan(d, True) is None
    assert IP._put_plan(d, (np.array([0, 1]),)) is None
    assert IP._put_plan(d.T, 1) is None                         # not C-contiguous


def test_setitem_index_out_of_range_raises_index_error():
    h = TT(np.zeros((3, 4), np.float32), stop_gradient=False) * 1.0
    with pytest.raises(IndexError):
        h[5] = TT(np.ones(4, np.float32), stop_gradient=False)


# ---- embedding --------------------------------------------------------------------------

def _embedding_step(ids, w, c, padding_idx=None):
    tw = TT(w, stop_gradient=False)
    out = F.embedding(TT(ids), tw, padding_idx=padding_idx)
    (out * TT(c)).sum().backward()
    return out.numpy(), tw.grad.numpy()


def _embedding_expected(ids, w, c, padding_idx=None):
    n = w.shape[0]
    out = w[ids].copy()
    grad = np.zeros_like(w)
    np.add.at(grad, ids % n, c)
    if padding_idx is not None:
        pad = ids % n == padding_idx % n
        out[pad] = 0
        grad[padding_idx % n] = 0
    return out, grad


@pytest.mark.parametrize("shape", [(7,), (3, 4)])
def test_embedding_repeated_ids_values_and_grads_match_numpy(shape):
    w = _ints((6, 5), 11)
    ids = np.random.default_rng(12).integers(0, 6, shape)
    ids.reshape(-1)[:3] = 2                     # repeated ids: their rows' gradients add
    c = _ints(shape + (5,), 13)
    want = _embedding_expected(ids, w, c)
    hits = paddle.cache_info().hits
    for _ in range(3):
        for got, exp in zip(_embedding_step(ids, w, c), want):
            np.testing.assert_array_equal(got, exp)
    assert paddle.cache_info().hits >= hits + 2


@pytest.mark.parametrize("padding_idx", [0, 3, -1])
def test_embedding_padding_row_is_zero_and_gets_no_gradient(padding_idx):
    w = _ints((6, 5), 14)
    ids = np.array([[0, 3, 5, 3], [-1, 2, 0, 5]])
    c = _ints((2, 4, 5), 15)
    want = _embedding_expected(ids, w, c, padding_idx)
    for _ in range(2):
        for got, exp in zip(_embedding_step(ids, w, c, padding_idx), want):
            np.testing.assert_array_equal(got, exp)


def test_embedding_gradient_accumulates_over_two_steps():
    w = _ints((6, 5), 16)
    ids = np.array([1, 4, 1, 0])
    c = _ints((4, 5), 17)
    tw = TT(w, stop_gradient=False)
    for _ in range(2):
        (F.embedding(TT(ids), tw) * TT(c)).sum().backward()
    np.testing.assert_array_equal(tw.grad.numpy(), 2 * _embedding_expected(ids, w, c)[1])


def test_embedding_negative_and_int32_ids_pick_wrapped_rows():
    w = _ints((6, 5), 18)
    ids = np.array([-1, -6, 2], dtype=np.int32)
    c = _ints((3, 5), 19)
    out, grad = _embedding_step(ids, w, c)
    exp_out, exp_grad = _embedding_expected(ids.astype(np.int64), w, c)
    np.testing.assert_array_equal(out, exp_out)
    np.testing.assert_array_equal(grad, exp_grad)


@pytest.mark.parametrize("bad", [6, -7])
def test_embedding_id_out_of_range_raises_index_error(bad):
    w = TT(np.zeros((6, 5), np.float32), stop_gradient=False)
    with pytest.raises(IndexError, match=r"embedding: ids must lie in \[0, 6\)"):
        F.embedding(TT(np.array([0, bad])), w)


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_with_kept_table_is_bit_identical_to_general_path(padding_idx,
                                                                    monkeypatch):
    rng = np.random.default_rng(20)
    w = rng.standard_normal((9, 7)).astype(np.float32)
    ids = rng.integers(-9, 9, (5, 3))
    c = rng.standard_normal((5, 3, 7)).astype(np.float32)
    kept = _embedding_step(ids, w, c, padding_idx)
    monkeypatch.setattr(LE, "_ROW_TABLE_MAX", 0)               # the general path
    general = _embedding_step(ids, w, c, padding_idx)
    for g, want in zip(kept, general):
        assert g.tobytes() == want.tobytes()


def test_embedding_table_is_read_only_and_not_shared_with_user_tensors():
    w = TT(_ints((6, 5), 21), stop_gradient=False)
    ids = TT(np.array([1, 2, 2]))
    out = F.embedding(ids, w)
    table = LE._row_positions(6, 5)
    assert not table.flags.writeable
    with pytest.raises(ValueError):
        table[0, 0] = 1
    out.sum().backward()
    for user in (out._data, w.grad._data, out._node.attrs["idx"], ids._data):
        assert not np.shares_memory(user, table)
    np.testing.assert_array_equal(table, np.arange(30).reshape(6, 5))
