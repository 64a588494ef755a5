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
