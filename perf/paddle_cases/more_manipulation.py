# ops/more_manipulation.py against Paddle 3.3.1.
import numpy as np

cmp("unflatten", lambda P, a: P.unflatten(a, 1, [3, -1]), [A((2, 12))])
cmp("unflatten_neg_axis", lambda P, a: P.unflatten(a, -1, (2, 2, 3)), [A((2, 12))])
cmp("unflatten_bad", lambda P, a: P.unflatten(a, 1, [5, -1]), [A((2, 12))])
cmp("block_diag", lambda P, a, b, c: P.block_diag([a, b, c]), [A((2, 3)), A((3,)), A(())])
cmp("block_diag_one", lambda P, a: P.block_diag([a]), [A((2, 2))])
cmp("block_diag_int", lambda P, a, b: P.block_diag([a, b]), [A((2,), 0, 5, "int64"), A((1, 2), 0, 5, "int64")], grad=False)
cmp("block_diag_mixed", lambda P, a, b: P.block_diag([a, b]), [A((2,), 0, 5, "int64"), A((1, 2))], grad=False)
cmp("cartesian_prod", lambda P, a, b, c: P.cartesian_prod([a, b, c]), [A((2,)), A((3,)), A((2,))])
cmp("cartesian_prod_one", lambda P, a: P.cartesian_prod([a]), [A((3,))])
cmp("take_along_dim", lambda P, a: P.take_along_dim(a, P.to_tensor(np.array([[0, 2], [1, 1]])), 1), [A((2, 3))])
cmp("m.unflatten", lambda P, a: a.unflatten(0, [2, 2]), [A((4, 3))])
cmp("select_scatter", lambda P, a, v: P.select_scatter(a, v, 1, 2), [A((3, 4)), A((3,))])
cmp("select_scatter_neg", lambda P, a, v: P.select_scatter(a, v, 0, -1), [A((3, 4)), A((4,))])
cmp("select_scatter_3d", lambda P, a, v: P.select_scatter(a, v, -1, 1), [A((2, 3, 4)), A((2, 3))])
cmp("select_scatter_shape", lambda P, a, v: P.select_scatter(a, v, 1, 0), [A((3, 4)), A((2,))])
cmp("select_scatter_range", lambda P, a, v: P.select_scatter(a, v, 1, 7), [A((3, 4)), A((3,))],
    known="an index out of range raises IndexError (Paddle 3.3.1 silently writes nothing)")
cmp("slice_scatter", lambda P, a, v: P.slice_scatter(a, v, [1], [0], [4], [2]), [A((3, 4)), A((3, 2))])
cmp("slice_scatter_2axes", lambda P, a, v: P.slice_scatter(a, v, [0, 1], [1, 1], [3, 3], [1, 1]), [A((3, 4)), A((2, 2))])
cmp("slice_scatter_bad", lambda P, a, v: P.slice_scatter(a, v, [1], [0], [4], [2]), [A((3, 4)), A((3, 3))])
cmp("diagonal_scatter", lambda P, a, v: P.diagonal_scatter(a, v, 1), [A((3, 4)), A((3,))],
    known="y gets its gradient (Paddle 3.3.1 gives it none)")
cmp("diagonal_scatter_axes", lambda P, a, v: P.diagonal_scatter(a, v, 0, 1, 2), [A((2, 3, 3)), A((2, 3))],
    known="y gets its gradient (Paddle 3.3.1 gives it none)")
cmp("diagonal_scatter_values", lambda P, a, v: P.diagonal_scatter(a, v, -1), [A((3, 3)), A((2,))], grad=False)
cmp("msort", lambda P, a: P.msort(a), [A((4, 3))])
_r, _c = np.array([0, 2, 1]), np.array([1, 3, 0])
cmp("index_put", lambda P, a, v: P.index_put(a, (P.to_tensor(_r), P.to_tensor(_c)), v), [A((3, 4)), A((3,))])
cmp("index_put_acc_dup", lambda P, a, v: P.index_put(a, (P.to_tensor(np.array([0, 2, 0])), P.to_tensor(np.array([1, 3, 1]))), v, accumulate=True), [A((3, 4)), A((3,))])
cmp("index_put_dup", lambda P, a, v: P.index_put(a, (P.to_tensor(np.array([0, 2, 0])), P.to_tensor(np.array([1, 3, 1]))), v), [A((3, 4)), A((3,))],
    known="an overwritten duplicate's value gets no gradient (Paddle's gets one), as scatter")
cmp("index_put_row_bcast", lambda P, a, v: P.index_put(a, (P.to_tensor(np.array([1])),), v), [A((3, 4)), A((1,))])
cmp("index_put_bool", lambda P, a, v: P.index_put(a, (P.to_tensor(np.array([True, False, True])),), v), [A((3, 4)), A((4,))])
_m = np.array([[True, False, True, False], [False, False, True, True], [True, False, False, False]])
cmp("masked_scatter", lambda P, a, v: P.masked_scatter(a, P.to_tensor(_m), v), [A((3, 4)), A((7,))])
cmp("masked_scatter_bcast", lambda P, a, v: P.masked_scatter(a, P.to_tensor(_m[0]), v), [A((3, 4)), A((2, 4))])
cmp("masked_scatter_short", lambda P, a, v: P.masked_scatter(a, P.to_tensor(_m), v), [A((3, 4)), A((3,))])
cmp("scatter_add", lambda P, a, s: P.scatter_add(a, 1, P.to_tensor(np.array([[0, 1, 0], [2, 2, 3], [3, 0, 0]])), s), [A((3, 4)), A((3, 3))])
cmp("scatter_add_dim0", lambda P, a, s: P.scatter_add(a, 0, P.to_tensor(np.array([[0, 1, 2, 0], [2, 2, 1, 1]])), s), [A((3, 4)), A((2, 4))])
cmp("scatter_add_small_index", lambda P, a, s: P.scatter_add(a, 0, P.to_tensor(np.array([[0, 1], [2, 2]])), s), [A((3, 4)), A((3, 4))],
    known="src's gradient has src's shape, zeros outside index's block (Paddle 3.3.1: index's shape)")
