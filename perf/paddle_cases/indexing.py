# Indexing and assignment by index against Paddle 3.3.1: __getitem__ / __setitem__ keys,
# values and gradients.
import numpy as np

KNOWN = {
    "get_none_many": "x[None, :, None, 1] has numpy's and torch's shape [1, 3, 1, 5] (Paddle "
                     "3.3.1 moves the second new axis first: [1, 1, 3, 5])",
    "err_list_out_of_range": "an out-of-range index in a list raises IndexError (Paddle 3.3.1 "
                             "reads past the tensor)",
    "set_list_dup": "a value overwritten by a later duplicate index gets no gradient (it does "
                    "not reach the output), as scatter and index_put",
}

_x = A((3, 4, 5))
_m = A((4, 5))


def _set(key, value_from=None):
    """x * 1 with x[key] = value (a tensor argument when value_from is given)."""
    def fn(P, x, *v):
        y = x * 1.0
        y[key] = v[0] * 2.0 if v else 7.0
        return y
    return fn


cmp("get_step_neg", lambda P, x: x[::-1, 1:3, ::-2], [_x])
cmp("get_slice_out_of_range", lambda P, x: x[1:100, -100:2], [_x])
cmp("get_empty_slice", lambda P, x: x[2:1], [_x])
cmp("get_ellipsis_mid", lambda P, x: x[0, ..., 1], [_x])
cmp("get_none_many", lambda P, x: x[None, :, None, 1], [_x])
cmp("get_int_0d_tensor", lambda P, x: x[P.to_tensor(1)], [_x])
cmp("get_list_neg", lambda P, x: x[[-1, 0, -1]], [_x])
cmp("get_adv_slice_adv", lambda P, x: x[[0, 2], :, [1, 3]], [_x])
cmp("get_adv_adjacent", lambda P, x: x[:, [0, 3], [1, 4]], [_x])
cmp("get_adv_broadcast", lambda P, x: x[np.array([[0], [2]]), np.array([1, 3])], [_x])
cmp("get_bool_partial", lambda P, x: x[np.array([True, False, True])], [_x])
cmp("get_bool_2d", lambda P, x: x[x[:, :, 0] > 0], [_x])
cmp("get_bool_tensor_mid", lambda P, x: x[:, np.array([True, False, True, False])], [_x])
cmp("get_bool_all_false", lambda P, x: x[x > 100], [_m])
cmp("get_int_and_list", lambda P, x: x[1, [0, 2]], [_x])
cmp("get_tensor_2d_idx", lambda P, x, i: x[i], [_m, np.array([[0, 1], [3, 3]])])
cmp("get_dup_index", lambda P, x: x[[1, 1, 1]], [_m])
cmp("get_scalar_elem", lambda P, x: x[1, 2], [_m])
cmp("get_0d_tensor_input", lambda P, x: x[...], [np.array(2.5, "float32")])

cmp("set_int", _set(1), [_m])
cmp("set_slice_tensor", _set((slice(None), slice(1, 3))), [_m, A((4, 2))])
cmp("set_broadcast_row", _set(slice(0, 2)), [_m, A((5,))])
cmp("set_step", _set((slice(None, None, 2), slice(None, None, -2))), [_m, A((2, 3))])
cmp("set_list", _set([0, 2]), [_m, A((2, 5))])
cmp("set_list_dup", _set([1, 1]), [_m, A((2, 5))])
cmp("set_bool_mask", lambda P, x: (lambda y: (y.__setitem__(y > 0, 0.0), y)[1])(x * 1.0), [_m])
cmp("set_bool_rows", _set(np.array([True, False, True, False])), [_m, A((5,))])
cmp("set_adv_pair", _set(([0, 3], [1, 4])), [_m, A((2,))])
cmp("set_ellipsis", _set((Ellipsis, 0)), [_x, A((3, 4))])
cmp("set_none", _set((None, 1)), [_m, A((1, 5))])
cmp("set_scalar_elem_tensor", _set((2, 3)), [_m, np.array(1.5, "float32")])
cmp("iadd_slice", lambda P, x, v: (lambda y: (y.__setitem__(slice(1, 3), y[1:3] + v), y)[1])(x * 1.0), [_m, A((2, 5))])
cmp("set_int_tensor_idx", lambda P, x, v: (lambda y: (y.__setitem__(P.to_tensor([0, 2]), v), y)[1])(x * 1.0), [_m, A((2, 5))])
cmp("set_int_dtype", lambda P, x: (lambda y: (y.__setitem__(0, 2.7), y)[1])(x * 1), [np.arange(6).reshape(2, 3)], grad=False)
cmp("set_value_int_tensor_to_float", lambda P, x, v: (lambda y: (y.__setitem__(0, v), y)[1])(x * 1.0), [_m, np.arange(5)])
cmp("err_int_out_of_range", lambda P, x: x[7], [_m], grad=False)
cmp("err_list_out_of_range", lambda P, x: x[[0, 9]], [_m], grad=False)
cmp("err_too_many", lambda P, x: x[0, 0, 0], [_m], grad=False)
cmp("err_float_key", lambda P, x: x[1.5], [_m], grad=False)
cmp("err_bool_shape", lambda P, x: x[np.array([True, False])], [_m], grad=False)
cmp("err_set_shape", _set(0), [_m, A((3,))], grad=False)
