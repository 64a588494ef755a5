# paddle.special, the window functions (ops/windows.py), nn.functional.pdist and
# embedding_renorm_, Tensor.resize_ and set_ (ops/inplace_more.py), the legacy FloatTensor ...
# constructors (ops/legacy_creation.py) against Paddle 3.3.1.
import numpy as np

KNOWN = {
    "m.resize_": "Paddle 3.3.1 gives the resized tensor's source a gradient of the new "
                 "shape; jitgrad passes it to the elements kept",
    "m.set_": "Paddle 3.3.1 passes the gradient to x's old value, in the new shape, and none "
              "to source; jitgrad passes it to source, whose values x took",
    "kaiser_window_64": "Paddle 3.3.1's float32 i0 is a few ulps off (rtol 1e-7)",
    "F.pdist_3.0": "Paddle 3.3.1's p_norm for p = 3 is ~1e-8 off in float64",
    "window_int_bartlett": "Paddle 3.3.1's bartlett and kaiser return float32 for an int "
                           "dtype (hann raises TypeError); jitgrad raises TypeError for all",
    "window_int_kaiser": "as window_int_bartlett",
}

_x = A((3, 4))
cmp("special.expm1", lambda P, x: P.special.expm1(x), [_x])
cmp("special.logsumexp", lambda P, x: P.special.logsumexp(x, dim=1), [_x])
cmp("special.softmax", lambda P, x: P.special.softmax(x, 0), [_x])

for _name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
              "kaiser_window"):
    for _n in (0, 1, 2, 7, 64):
        for _periodic in (True, False):
            cmp(f"{_name}_{_n}_{_periodic}",
                lambda P, n=_n, p=_periodic, f=_name: getattr(P, f)(n, p), [], grad=False,
                rtol=3e-7, atol=3e-8)
    cmp(f"{_name}_f64", lambda P, f=_name: getattr(P, f)(33, dtype="float64"), [],
        grad=False, rtol=1e-14, atol=1e-16)
    cmp(f"window_int_{_name}", lambda P, f=_name: getattr(P, f)(5, dtype="int32"), [],
        grad=False)
    cmp(f"{_name}_neg", lambda P, f=_name: getattr(P, f)(-2), [], grad=False)
cmp("hamming_window_alpha_beta", lambda P: P.hamming_window(16, False, 0.6, 0.3), [],
    grad=False, rtol=3e-7, atol=3e-8)
cmp("kaiser_window_beta", lambda P: P.kaiser_window(16, True, 4.0, dtype="float64"), [],
    grad=False, rtol=1e-14)

_rows = A((5, 3), dtype="float64")
for _p in (0.0, 1.0, 2.0, 3.0, float("inf")):
    cmp(f"F.pdist_{_p}", lambda P, x, p=_p: P.nn.functional.pdist(x, p), [_rows], rtol=1e-12,
        atol=1e-12)
cmp("F.pdist_f32", lambda P, x: P.nn.functional.pdist(x), [A((6, 4))])
cmp("F.pdist_one_row", lambda P, x: P.nn.functional.pdist(x), [A((1, 4))])


def _renorm(P, w, ids, max_norm, p):
    return P.nn.functional.embedding_renorm_(P.to_tensor(ids), w, max_norm, p)


_table = A((6, 4), -3.0, 3.0)
for _p in (0.0, 1.0, 2.0, float("inf")):
    cmp(f"F.embedding_renorm__{_p}",
        lambda P, w, p=_p: _renorm(P, w, np.array([[0, 2], [5, 2]]), 1.5, p), [_table],
        grad=False)
cmp("F.embedding_renorm__f64",
    lambda P, w: _renorm(P, w, np.array([1, 3, 4]), 2.0, 2.0), [_table.astype("float64")],
    grad=False, rtol=1e-14)

_m = A((2, 3))
cmp("m.resize_smaller", lambda P, x: x.clone().resize_([2, 2]), [_m])
cmp("m.resize_flat", lambda P, x: x.clone().resize_([6]), [_m])
cmp("m.resize_fill_zero", lambda P, x: x.clone().resize_([3, 3], fill_zero=True), [_m],
    grad=False)
cmp("m.resize_grad", lambda P, x: (x * 2).resize_([2, 2]), [_m])
cmp("m.set_", lambda P, x, s: (x * 1).set_(s), [_m, A((4,))])
cmp("m.set_strided", lambda P, x, s: (x * 1).set_(s, [2, 2], [1, 2]), [_m, A((4,))])
cmp("m.set_offset", lambda P, x, s: (x * 1).set_(s, [2], [1], 8), [_m, A((4,))])
cmp("m.set_empty", lambda P, x: x.clone().set_(), [_m], grad=False)

cmp("FloatTensor_list", lambda P: P.FloatTensor([1, 2.5]), [], grad=False)
cmp("LongTensor_list", lambda P: P.LongTensor([1.7, -2.5]), [], grad=False)
cmp("ByteTensor_wrap", lambda P: P.ByteTensor([1, 300]), [], grad=False)
cmp("BoolTensor_list", lambda P: P.BoolTensor([0, 2]), [], grad=False)
cmp("IntTensor_shape", lambda P: P.IntTensor(2, 3).shape, [], grad=False)
cmp("DoubleTensor_empty", lambda P: P.DoubleTensor(), [], grad=False)
