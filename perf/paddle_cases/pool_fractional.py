"""ops/pool_fractional.py and its layers against Paddle 3.3.1: values, int32 masks and
gradients, random_u given (deterministic windows); random_u None: shapes only."""
# ruff: noqa: F821  (A and cmp come from perf/paddle_sweep.py)
import numpy as np

_ties = np.round(A((2, 3, 9, 8), -3, 3)).astype("float32")      # many equal maxima
_nan = A((1, 2, 6, 7))
_nan[0, 0, 0, :3] = np.nan          # NaN never wins, but every window keeps a number
_nan[0, 1, 4, 5] = np.nan
_nan_window = _nan.copy()
_nan_window[0, 0, :2, :3] = np.nan   # an all-NaN window: -FLT_MAX, mask -1


def _f2(*a, **k):
    return lambda P, x: P.nn.functional.fractional_max_pool2d(x, *a, **k)


def _f3(*a, **k):
    return lambda P, x: P.nn.functional.fractional_max_pool3d(x, *a, **k)


def _window_max_check(P, x):
    """x at the mask minus the output: zeros whatever u was drawn."""
    y, mask = P.nn.functional.fractional_max_pool2d(x, [3, 4], return_mask=True)
    picked = P.take_along_axis(x.reshape([6, -1]), mask.reshape([6, -1]).astype("int64"), 1)
    return picked - y.reshape([6, -1])


M = dict(return_mask=True)
cmp("fmp2d_doc_example", _f2([1, 5], random_u=0.3),
    [np.array([[[[2, 4, 3, 1, 5, 2, 3]]]], "float32")])
cmp("fmp2d_int", _f2(3, random_u=0.5, **M), [A((2, 3, 7, 7))])
cmp("fmp2d_rect", _f2([4, 5], random_u=0.37, **M), [A((2, 2, 11, 13))])
cmp("fmp2d_big_ratio", _f2([3, 2], random_u=0.91, **M), [A((1, 2, 17, 23))])
cmp("fmp2d_same_size", _f2([6, 5], random_u=0.2, **M), [A((1, 2, 6, 5))])
cmp("fmp2d_none_size", _f2([None, 3], random_u=0.64, **M), [A((2, 2, 5, 9))])
cmp("fmp2d_tuple_out", _f2((2, 4), random_u=0.05), [A((2, 3, 6, 9))])
cmp("fmp2d_small_u", _f2(4, random_u=1e-3, **M), [A((1, 3, 9, 10))])
cmp("fmp2d_u_near_1", _f2(4, random_u=0.999, **M), [A((1, 3, 9, 10))])
cmp("fmp2d_overlap_k2", _f2(3, kernel_size=2, random_u=0.5, **M), [A((2, 3, 7, 7))])
cmp("fmp2d_overlap_k3_rect", _f2([4, 3], kernel_size=3, random_u=0.3, **M), [A((2, 2, 9, 8))])
cmp("fmp2d_overlap_k_pair", _f2([5, 4], kernel_size=[2, 4], random_u=0.77, **M),
    [A((1, 2, 10, 12))])
cmp("fmp2d_overlap_tight", _f2([4, 3], kernel_size=[3, 2], random_u=0.44, **M),
    [A((1, 2, 6, 4))])
cmp("fmp2d_overlap_out1", _f2(1, kernel_size=2, random_u=0.6, **M), [A((2, 2, 5, 4))])
cmp("fmp2d_overlap_out1_full", _f2(1, kernel_size=[5, 4], random_u=0.6, **M),
    [A((2, 2, 5, 4))])
cmp("fmp2d_kernel_zero", _f2(3, kernel_size=0, random_u=0.3, **M), [A((1, 2, 8, 7))])
cmp("fmp2d_kernel_one_dim_zero", _f2([3, 4], kernel_size=[0, 2], random_u=0.6, **M),
    [A((1, 2, 8, 7))])
cmp("fmp2d_ties", _f2([4, 3], random_u=0.58, **M), [_ties])
cmp("fmp2d_ties_overlap", _f2([4, 3], kernel_size=[3, 4], random_u=0.21, **M), [_ties])
cmp("fmp2d_nan", _f2([3, 4], random_u=0.5, **M), [_nan])
# (no backward: Paddle's grad kernel writes at mask -1, outside the input gradient)
cmp("fmp2d_nan_window", _f2([3, 4], random_u=0.5, **M), [_nan_window], grad=False)
cmp("fmp2d_float64", _f2([3, 4], kernel_size=2, random_u=0.33, **M),
    [A((2, 2, 8, 9), dtype="float64")])
cmp("fmp2d_float16", _f2([3, 4], random_u=0.33, **M), [A((1, 2, 8, 9), dtype="float16")],
    grad=False)
cmp("fmp2d_random_u_shape",
    lambda P, x: P.to_tensor(list(P.nn.functional.fractional_max_pool2d(x, [3, 4]).shape)),
    [A((2, 3, 9, 9))], grad=False)
cmp("fmp2d_random_u_is_a_window_max", _window_max_check, [A((2, 3, 9, 9))], grad=False)
cmp("fmp3d_int", _f3(2, random_u=0.5, **M), [A((2, 2, 5, 5, 5))])
cmp("fmp3d_rect", _f3([2, 3, 4], random_u=0.73, **M), [A((1, 2, 5, 7, 9))])
cmp("fmp3d_none", _f3([None, 2, 3], random_u=0.12, **M), [A((1, 2, 3, 6, 7))])
cmp("fmp3d_overlap", _f3([2, 3, 3], kernel_size=2, random_u=0.4, **M), [A((1, 2, 4, 6, 5))])
cmp("fmp3d_overlap_mixed", _f3([3, 2, 4], kernel_size=[2, 0, 3], random_u=0.85, **M),
    [A((2, 1, 6, 5, 8))])
cmp("fmp3d_ties", _f3([2, 3, 2], random_u=0.66, **M),
    [np.round(A((1, 2, 5, 6, 4), -2, 2)).astype("float32")])
cmp("fmp3d_float64", _f3(2, random_u=0.5), [A((1, 2, 4, 4, 4), dtype="float64")])
cmp("FractionalMaxPool2D",
    lambda P, x: P.nn.FractionalMaxPool2D([3, 4], random_u=0.3, return_mask=True)(x),
    [A((2, 3, 8, 9))])
cmp("FractionalMaxPool2D_overlap",
    lambda P, x: P.nn.FractionalMaxPool2D(3, kernel_size=2, random_u=0.7)(x), [A((2, 3, 8, 9))])
cmp("FractionalMaxPool3D",
    lambda P, x: P.nn.FractionalMaxPool3D(2, kernel_size=[2, 2, 3], random_u=0.45,
                                          return_mask=True)(x), [A((1, 2, 4, 5, 6))])
cmp("FractionalMaxPool3D_repr",
    lambda P: P.to_tensor([ord(c) for c in
                           repr(P.nn.FractionalMaxPool3D([2, None, 3], return_mask=True))]),
    [], grad=False)
# both refuse
cmp("fmp2d_err_u0", _f2(3, random_u=0.0), [A((1, 1, 5, 5))])
cmp("fmp2d_err_u1", _f2(3, random_u=1.0), [A((1, 1, 5, 5))])
cmp("fmp2d_err_3d_input", _f2(3, random_u=0.5), [A((1, 5, 5))])
cmp("fmp3d_err_4d_input", _f3(2, random_u=0.5), [A((1, 1, 5, 5))])
cmp("fmp2d_err_kernel_too_big", _f2(3, kernel_size=4, random_u=0.5), [A((1, 1, 5, 5))])
cmp("fmp2d_err_kernel_len", _f2(3, kernel_size=[2, 2, 2], random_u=0.5), [A((1, 1, 5, 5))])
cmp("fmp2d_err_output_len", _f2([3, 3, 3], random_u=0.5), [A((1, 1, 5, 5))])
cmp("fmp2d_out_larger_than_in", _f2([6, 5], random_u=0.3, **M), [A((1, 1, 5, 5))], grad=False,
    known="Paddle accepts output = input + 1 without a kernel and returns -FLT_MAX with mask "
          "-1 for its empty windows (its backward then writes at index -1); jitgrad raises "
          "ValueError")
