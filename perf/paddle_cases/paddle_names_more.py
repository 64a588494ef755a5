# ops/bitwise.py, inplace_more.py, more_indexing.py, creation.py's range against Paddle 3.3.1.
import numpy as np

KNOWN = {
    "m.fill_diagonal_tensor": "y gets its gradient (Paddle 3.3.1 gives y none), as diagonal_scatter",
    "scatter_reduce_dim0": "src's gradient has src's shape (Paddle 3.3.1: index's), as scatter_add",
    "unfold": "overlapping windows: an element's gradient sums over its windows (Paddle 3.3.1 "
              "counts one of them; finite differences agree with the sum)",
    "m.unfold": "as unfold",
    "scatter_reduce_tie_noself": "include_self=False: the left-out own value tied with the "
                                 "winner takes no share (Paddle 3.3.1 counts it, so src's "
                                 "gradient sums to 1/2)",
    "i0e": "i0e'(0) = 0, the mean of its one-sided slopes -1 and 1, as torch (Paddle 3.3.1: -1)",
}

for _dt in ("int8", "int32", "int64", "uint8"):
    _a = np.array([-8, 5, 127, 0, 33]).astype(_dt)
    _b = np.array([1, 2, 1, 3, 0]).astype(_dt)
    cmp(f"bitwise_left_shift_{_dt}", lambda P, a, b: P.bitwise_left_shift(a, b), [_a, _b], grad=False)
    cmp(f"bitwise_right_shift_{_dt}", lambda P, a, b: P.bitwise_right_shift(a, b), [_a, _b], grad=False)
    cmp(f"bitwise_right_shift_logical_{_dt}", lambda P, a, b: P.bitwise_right_shift(a, b, is_arithmetic=False), [_a, _b], grad=False)
    cmp(f"bitwise_not_{_dt}", lambda P, a: P.bitwise_not(a), [_a], grad=False)
cmp("bitwise_invert_bool", lambda P, a: P.bitwise_invert(a), [A((5,), dtype="bool")], grad=False)

_x, _y = A((2, 3)), A((2, 3))
for _name in ("equal_", "not_equal_", "greater_equal_", "greater_than_", "less_equal_", "less_than_", "logical_and_", "logical_or_", "logical_xor_"):
    cmp(f"m.{_name}", lambda P, a, b, n=_name: getattr(a, n)(b), [_x, np.where(A((2, 3)) > 0, _x, _y)], grad=False)
cmp("m.logical_not_", lambda P, a: a.logical_not_(), [np.array([1.0, 0.0, -2.0], "float32")], grad=False)
cmp("m.squeeze_", lambda P, a: (a * 1).squeeze_(), [A((1, 3))])
cmp("m.unsqueeze_", lambda P, a: (a * 1).unsqueeze_(1), [A((2, 3))])
cmp("m.reshape_", lambda P, a: (a * 1).reshape_([3, 2]), [A((2, 3))])
cmp("m.flatten_", lambda P, a: (a * 1).flatten_(), [A((2, 3))])
cmp("m.t_", lambda P, a: (a * 1).t_(), [A((2, 3))])
cmp("m.transpose_", lambda P, a: (a * 1).transpose_([1, 0]), [A((2, 3))])
cmp("m.cast_", lambda P, a: (a * 1).cast_("float64"), [A((2, 3))])
cmp("m.gcd_", lambda P, a, b: a.gcd_(b), [np.array([12, 18, 0]), np.array([8, 12, 5])], grad=False)
cmp("m.copysign_", lambda P, a, b: (a * 1).copysign_(b), [A((4,)), A((4,))])
cmp("where_", lambda P, a, b: P.where_(a > 0, a * 1, b), [A((2, 3)), A((2, 3))])
cmp("increment", lambda P, a: P.increment(a, 2.5), [np.array([1.0], "float32")], grad=False)

_inp, _src = A((3, 4)), A((3, 4))
_idx = np.array([[0, 1, 0, 2], [2, 2, 1, 0], [1, 0, 0, 1]])
for _red in ("sum", "prod", "mean", "amax", "amin"):
    for _inc in (True, False):
        cmp(f"scatter_reduce_{_red}_{_inc}", lambda P, a, s, r=_red, i=_inc: P.scatter_reduce(a, 1, P.to_tensor(_idx), s, r, include_self=i), [_inp, _src])
_nan_src = np.array([np.nan, 5.0, 0.5, 2.0, 7.0, np.nan], "float32")
for _red in ("amax", "amin"):
    for _inc in (True, False):
        cmp(f"scatter_reduce_nan_{_red}_{_inc}", lambda P, a, s, r=_red, i=_inc: P.scatter_reduce(a, 0, P.to_tensor([0, 0, 1, 1, 2, 2]), s, r, include_self=i), [np.array([1.0, 3.0, np.nan, 4.0], "float32"), _nan_src])
    cmp(f"scatter_reduce_ties_{_red}", lambda P, a, s, r=_red: P.scatter_reduce(a, 0, P.to_tensor([0, 0, 0, 1]), s, r), [np.array([5.0, 1.0], "float32"), np.array([5.0, 5.0, 1.0, 1.0], "float32")])
cmp("scatter_reduce_tie_noself", lambda P, a, s: P.scatter_reduce(a, 0, P.to_tensor([0, 0]), s, "amax", include_self=False), [np.array([2.0], "float32"), np.array([1.0, 2.0], "float32")])
cmp("scatter_reduce_dim0", lambda P, a, s: P.scatter_reduce(a, 0, P.to_tensor(_idx[:2, :3]), s, "sum"), [_inp, _src])
cmp("scatter_nd", lambda P, u: P.scatter_nd(P.to_tensor(np.array([[1], [2], [1]])), u, [4, 3]), [A((3, 3))])
cmp("scatter_nd_2", lambda P, u: P.scatter_nd(P.to_tensor(np.array([[0, 1], [1, 2], [0, 1]])), u, [2, 3]), [A((3,))])
cmp("argwhere", lambda P, a: P.argwhere(a), [np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], "float32")], grad=False)
cmp("multiplex", lambda P, a, b, c: P.multiplex([a, b, c], P.to_tensor(np.array([[2], [0], [1]], "int32"))), [A((3, 4)), A((3, 4)), A((3, 4))])
cmp("shard_index", lambda P, a: P.shard_index(a, 20, 3, 1), [np.array([[1], [7], [8], [14], [19]])], grad=False)
cmp("unfold", lambda P, a: P.unfold(a, 1, 3, 2), [A((2, 7))])
cmp("m.unfold", lambda P, a: a.unfold(0, 2, 1), [A((4, 3))])
cmp("m.fill_diagonal_tensor", lambda P, a, b: a.fill_diagonal_tensor(b, offset=1), [A((3, 4)), A((3,))])
cmp("m.fill_diagonal_", lambda P, a: (a * 1).fill_diagonal_(2.5, offset=1), [A((3, 4))], grad=False)
cmp("m.fill_diagonal_wrap", lambda P, a: (a * 1).fill_diagonal_(2.5, wrap=True), [A((7, 3))], grad=False)
cmp("range", lambda P: P.range(0, 5, 1.5), [], grad=False)
cmp("range_int", lambda P: P.range(2, 7, dtype="int64"), [], grad=False)
cmp("broadcast_shapes", lambda P: P.to_tensor(P.broadcast_shapes([2, 1, 3], [4, 3])), [], grad=False)

# ops/bessel.py and special.py's incomplete gamma
_bx = np.array([-20.0, -3.0, -0.5, 0.0, 1e-3, 0.7, 2.0, 14.0, 16.0, 40.0], "float32")
for _f in ("i0", "i0e", "i1", "i1e"):
    cmp(_f, lambda P, a, f=_f: getattr(P, f)(a), [_bx], rtol=2e-5)
    cmp(f"{_f}64", lambda P, a, f=_f: getattr(P, f)(a), [_bx.astype("float64")], rtol=1e-9, atol=1e-12)
cmp("i0_int", lambda P, a: P.i0(a), [np.array([0, 1, 3])], grad=False)
cmp("m.i0_", lambda P, a: (a * 1).i0_(), [A((4,))])
_ga = np.array([0.5, 1.0, 2.0, 5.0, 1.5, 3.0, 10.0, 2.5], "float32")
_gx = np.array([0.5, 0.01, 3.0, 4.0, 1.0, 1e-3, 12.0, 0.2], "float32")
cmp("gammainc", lambda P, a, x: P.gammainc(a, x), [_ga, _gx], known=None)
cmp("gammaincc", lambda P, a, x: P.gammaincc(a, x), [_ga, _gx])
cmp("gammainc64", lambda P, a, x: P.gammainc(a, x), [_ga.astype("float64"), _gx.astype("float64")], rtol=1e-9, atol=1e-12)
cmp("gammainc_edges", lambda P, a, x: P.gammainc(a, x), [np.array([0.0, 1.0, 2.0], "float32"), np.array([1.0, float("inf"), 0.0], "float32")], grad=False,
    known="P(0, x) = 1 for x > 0 and P(a, inf) = 1, as torch and scipy (Paddle 3.3.1: 0 and nan)")
cmp("gammainc_negative", lambda P, a, x: P.gammainc(a, x), [np.array([-1.0], "float32"), np.array([1.0], "float32")], grad=False)
