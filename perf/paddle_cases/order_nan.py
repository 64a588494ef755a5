"""Ordering ops with NaN, and argmax / argmin's arguments, against Paddle 3.3.1."""
import numpy as np

_v = np.array([np.nan, 1.0, np.inf, np.nan, -1.0, 2.0], "float32")
_m = np.array([[2.0, np.nan, 1.0, 0.5], [np.nan, 0.0, np.nan, -np.inf], [1.0, 2.0, 3.0, 4.0]], "float32")
for _desc in (False, True):
    cmp(f"sort_nan_{_desc}", lambda P, x, d=_desc: P.sort(x, descending=d), [_v])
    cmp(f"argsort_nan_{_desc}", lambda P, x, d=_desc: P.argsort(x, descending=d), [_v], grad=False)
    cmp(f"sort_nan_rows_{_desc}", lambda P, x, d=_desc: P.sort(x, axis=1, descending=d), [_m])
    cmp(f"argsort_nan_axis0_{_desc}", lambda P, x, d=_desc: P.argsort(x, axis=0, descending=d), [_m], grad=False)
cmp("topk_nan", lambda P, x: P.topk(x, 3), [_v])
cmp("topk_nan_rows", lambda P, x: P.topk(x, 2, axis=1), [_m])
cmp("topk_nan_smallest", lambda P, x: P.topk(x, 2, largest=False), [_v])
cmp("topk_0d", lambda P, x: P.topk(x, 1), [np.array(2.0, "float32")])
cmp("cummax_nan", lambda P, x: P.cummax(x, 0), [_v])
cmp("cummin_nan", lambda P, x: P.cummin(x, 0), [_v])
cmp("cummax_nan_rows", lambda P, x: P.cummax(x, 1), [_m])
cmp("cummin_nan_rows", lambda P, x: P.cummin(x, 1), [_m])
cmp("argmax_nan", lambda P, x: P.argmax(x, axis=1), [_m], grad=False)
cmp("argmin_nan", lambda P, x: P.argmin(x, axis=1), [_m], grad=False)
cmp("argmax_flat_nan", lambda P, x: P.argmax(x), [_m], grad=False)
cmp("argmax_keepdim_none", lambda P, x: P.argmax(x, keepdim=True), [A((2, 3))], grad=False)
cmp("argmin_int32", lambda P, x: P.argmin(x, axis=0, dtype="int32"), [A((2, 3))], grad=False)
cmp("argmax_bad_axis", lambda P, x: P.argmax(x, axis=5), [A((2, 3))], grad=False)
