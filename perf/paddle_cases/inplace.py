"""In-place forms: on a non-leaf (the gradient flows to the leaf through the recorded op)
and on a tensor that needs no gradient; the Tensor method where Paddle has one, else the
paddle.* function."""

import re

u = A((2, 3), -0.8, 0.8); pos = A((2, 3), 0.3, 2.0); big = A((2, 3), 1.2, 3.0)
mat = A((3, 3))


def ip(name, *args, **kw):
    def fn(P, x, *more):
        y = x * 1.0
        f = getattr(y, name, None)
        out = f(*more, *args, **kw) if f is not None else getattr(P, name)(y, *more, *args, **kw)
        return out, y
    return fn


for name, x in [("acos_", u), ("asin_", u), ("atan_", u), ("atanh_", u), ("asinh_", u),
                ("acosh_", big), ("cosh_", u), ("sinh_", u), ("tan_", u), ("erf_", u),
                ("expm1_", u), ("log10_", pos), ("log1p_", pos), ("log2_", pos),
                ("trunc_", A((2, 3), -3, 3)), ("frac_", A((2, 3), -3, 3)), ("lgamma_", pos),
                ("gammaln_", pos), ("digamma_", pos), ("sinc_", u), ("erfinv_", u),
                ("tril_", mat), ("triu_", mat)]:
    cmp(f"{name}", ip(name), [x])
cmp("polygamma_", ip("polygamma_", 1), [pos])
cmp("logit_", ip("logit_"), [A((2, 3), 0.1, 0.9)])
cmp("nan_to_num_", ip("nan_to_num_"), [np.array([1.0, np.nan, np.inf], "float32")])
cmp("cumsum_", ip("cumsum_", 1), [u])
cmp("cumprod_", ip("cumprod_", 1), [u])
cmp("renorm_", ip("renorm_", 2, 0, 0.5), [u])
cmp("clamp_", ip("clamp_", -0.2, 0.3), [u])
cmp("sub_", ip("sub_"), [u, A((2, 3))])
cmp("mul_", ip("mul_"), [u, A((2, 3))])
cmp("div_", ip("div_"), [u, pos])
cmp("lerp_", ip("lerp_", 0.3), [u, A((2, 3))])
cmp("remainder_", ip("remainder_"), [big, A((2, 3), 0.5, 1.0)])
cmp("mod_", ip("mod_"), [big, A((2, 3), 0.5, 1.0)])
cmp("floor_mod_", ip("floor_mod_"), [big, A((2, 3), 0.5, 1.0)])
cmp("floor_divide_", ip("floor_divide_"), [big, A((2, 3), 0.5, 1.0)], grad=False)
cmp("hypot_", ip("hypot_"), [pos, pos * 0.5])
MASK = np.array([[True, False, True], [False, False, True]])
cmp("masked_fill_", lambda P, x: ip("masked_fill_", P.to_tensor(MASK), 2.0)(P, x), [u])
cmp("index_fill_", lambda P, x: ip("index_fill_", P.to_tensor([0, 2]), 1, -1.0)(P, x), [u])
cmp("index_add_", lambda P, x, v: (lambda y: (y.index_add_(P.to_tensor([0, 2]), 1, v), y))(
    x * 1.0), [u, A((2, 2))])
cmp("put_along_axis_", lambda P, x: ip("put_along_axis_", P.to_tensor([[0], [2]]), 9.0, 1)(P, x),
    [u])
cmp("scatter_", lambda P, x, v: (lambda y: (y.scatter_(P.to_tensor([1, 0]), v), y))(x * 1.0),
    [A((3, 2)), A((2, 2))])
cmp("addmm_", ip("addmm_", beta=0.5, alpha=2.0), [A((2, 2)), A((2, 3)), A((3, 2))])


# ---- shapes, dtypes, versions and errors of the in-place forms (Paddle's unit tests) --------
# A case returns x's inplace_version (compared as a Python value) and the exception type
# when one is raised, so types are compared too (two raising calls otherwise count alike).
def raises(f):
    def fn(P, *ts):
        try:
            f(P, *ts)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__
        return "no error"
    return fn


def ver(name, *args, **kw):
    """x after name_(x, *args): values, shape, dtype, x returned, inplace_version."""
    def fn(P, x, *more):
        y = x * 1.0 if x.dtype in (P.float32, P.float64) else x.clone()
        out = getattr(P, name, None) or getattr(type(y), name)
        out = out(y, *more, *args, **kw)
        return y, out is y, y.inplace_version
    return fn


RESHAPES = ("in-place ops never change x's shape: jitgrad raises ValueError where Paddle 3.3.1 "
            "silently gives x the broadcast shape (or returns a new tensor, where_)")
i13, i21 = A((1, 3), 1, 9, "int32"), A((2, 1), 1, 9, "int32")
f13, f21 = A((1, 3), 0.2, 2.0), A((2, 1), 0.2, 2.0)
b13, b21 = A((1, 3), dtype="bool"), A((2, 1), dtype="bool")
for name, x, y in [("logical_and_", f13, f21), ("logical_or_", b13, b21),
                   ("logical_xor_", b13, b21), ("equal_", f13, f21), ("not_equal_", f13, f21),
                   ("less_than_", f13, f21), ("less_equal_", f13, f21),
                   ("greater_than_", f13, f21), ("greater_equal_", f13, f21),
                   ("bitwise_and_", i13, i21), ("bitwise_or_", i13, i21),
                   ("bitwise_xor_", i13, i21), ("bitwise_left_shift_", i13, i21),
                   ("bitwise_right_shift_", i13, i21), ("gcd_", i13, i21), ("gcd_", f13, f21),
                   ("bitwise_and_", f13, f21), ("lcm_", i13, i21), ("ldexp_", f13, i21),
                   ("hypot_", f13, f21), ("copysign_", f13, f21), ("subtract_", f13, f21),
                   ("multiply_", f13, f21), ("divide_", f13, f21), ("remainder_", f13, f21),
                   ("floor_divide_", f13, f21)]:
    cmp(f"broadcast_x.{name}{x.dtype}", raises(lambda P, a, b, n=name: getattr(P, n)(a, b)),
        [x, y], grad=False)
    cmp(f"broadcast_x.{name}{x.dtype}.rank", raises(     # x [3], y [2, 3]
        lambda P, a, b, n=name: getattr(P, n)(a.reshape([3]), P.concat([b.reshape([1, 1])] * 3,
                                                                       1).tile([1, 1]))),
        [x, y], grad=False)
cmp("broadcast_x.lerp_", raises(lambda P, a, b: a.lerp_(b, 0.5)), [f13, f21], grad=False)
cmp("broadcast_x.lerp_weight", raises(lambda P, a, b: a.lerp_(a * 1.0, b)), [f13, f21],
    grad=False)
cmp("broadcast_x.add_method", raises(lambda P, a, b: a.add_(b)), [f13, f21], grad=False)
cmp("broadcast_x.gammainc_", ver("gammainc_"), [f13, f21], grad=False, known=RESHAPES)
cmp("broadcast_x.masked_fill_", raises(lambda P, a, m: P.masked_fill_(a, m, 1.0)),
    [f13, b21 | b13], grad=False, known=RESHAPES)
cmp("broadcast_x.where_", lambda P, x, c: (lambda w: (P.where_(c, w, w * 2.0) is w, w,
                                                      w.inplace_version))(x * 1.0),
    [f13, b21], grad=False, known=RESHAPES)
cmp("broadcast_x.not_broadcastable", raises(lambda P, a, b: P.less_than_(a, b)),
    [A((2, 3)), A((4,))], grad=False)
cmp("broadcast_ok.less_than_", ver("less_than_"), [A((2, 3)), A((3,))], grad=False)
cmp("broadcast_ok.bitwise_xor_", ver("bitwise_xor_"), [A((2, 3), 0, 9, "int32"),
                                                       A((1, 3), 0, 9, "int32")], grad=False)

# addmm_: x positional-only (addmm_'s own x= and y= keywords reach it), Paddle's checks
cmp("addmm_.keywords", lambda P, v, a, b: (lambda w: (P.addmm_(w, x=a, y=b, alpha=2.0), w))(
    v * 1.0), [A((2, 2)), A((2, 3)), A((3, 2))])
cmp("addmm_.input_keyword", lambda P, v, a, b: (lambda w: (P.addmm_(input=w, x=a, y=b), w))(
    v * 1.0), [A((2, 2)), A((2, 3)), A((3, 2))])
cmp("addmm_.method_keywords", lambda P, v, a, b: (lambda w: (w.addmm_(x=a, y=b, beta=0.5), w))(
    v * 1.0), [A((2, 2)), A((2, 3)), A((3, 2))])
for tag, shapes in [("x_1d", ((10, 10), (10,), (10, 10))), ("inner", ((10, 10), (10, 10),
                    (12, 10))), ("input_6", ((6,), (10, 10), (10, 10))),
                    ("input_1x5", ((1, 5), (12, 10), (10, 10))),
                    ("input_3x2", ((3, 2), (2, 3), (3, 2))), ("input_3d", ((1, 2, 2), (2, 3),
                                                                           (3, 2)))]:
    cmp(f"addmm_.{tag}", raises(lambda P, v, a, b: P.addmm_(v, a, b)), [A(s) for s in shapes],
        grad=False)
    cmp(f"addmm.{tag}", raises(lambda P, v, a, b: P.addmm(v, a, b)), [A(s) for s in shapes],
        grad=False)
cmp("addmm_.input_broadcasts", ver("addmm_"), [A((1, 2)), A((2, 3)), A((3, 2))], grad=False,
    known=RESHAPES)

# cumsum_ / cumprod_: no axis flattens x; a dtype casts x (its dtype changes); versions
x231 = A((2, 3, 1))
for tag, name, kw in [("flat", "cumsum_", {}), ("flat_f64", "cumsum_", {"dtype": "float64"}),
                      ("flat_f32", "cumsum_", {"dtype": "float32"}),
                      ("axis_f64", "cumsum_", {"axis": 1, "dtype": "float64"}),
                      ("axis_f32", "cumsum_", {"axis": -1, "dtype": "float32"}),
                      ("flat", "cumprod_", {}), ("flat_f64", "cumprod_", {"dtype": "float64"}),
                      ("dim_f64", "cumprod_", {"dim": 1, "dtype": "float64"}),
                      ("dim_f32", "cumprod_", {"dim": 1, "dtype": "float32"})]:
    cmp(f"{name}.{tag}", ver(name, **kw), [x231])
cmp("cumsum_.int_flat", ver("cumsum_"), [A((2, 3), 0, 9, "int32")], grad=False)
cmp("cumsum_.to_int64", ver("cumsum_", dtype="int64"), [A((2, 3), 0, 9)], grad=False)
cmp("cumprod_.1d", ver("cumprod_"), [A((4,))])

# inplace_version after one call: Paddle's in-place steps (hypot_ is pow_, add_, sqrt_ ...)
cmp("version.hypot_", ver("hypot_"), [pos, pos * 0.5])
cmp("version.hypot_bcast", ver("hypot_"), [pos, A((3,), 0.3, 2.0)])
cmp("version.nan_to_num_", ver("nan_to_num_"), [np.array([1.0, np.nan, np.inf, -np.inf],
                                                         "float32")])
cmp("version.index_fill_", lambda P, x: ver("index_fill_", P.to_tensor([0, 2]), 1, -1.0)(P, x),
    [u])
cmp("version.index_fill_empty", lambda P, x: ver("index_fill_", P.to_tensor([], "int64"), 1,
                                                 -1.0)(P, x), [u], grad=False)
cmp("version.ldexp_", lambda P, x: ver("ldexp_", P.to_tensor([1, 2, 3], "int32"))(P, x), [u])
cmp("version.ldexp_int_x", ver("ldexp_"), [A((2, 3), 1, 9, "int32"), A((2, 3), 0, 4, "int32")],
    grad=False)
cmp("version.ldexp_f64_y", ver("ldexp_"), [u, A((2, 3), 0, 3).round().astype("float64")],
    grad=False)
cmp("version.lcm_", ver("lcm_"), [A((2, 3), -9, 9, "int32"), A((2, 3), -9, 9, "int32")],
    grad=False)
for k, (a, b) in enumerate([([12, 18, 7], [8, 27, 0]), ([0, 0, 5], [0, 3, 5]),
                            ([100, 1, 34], [75, 1, 55]), ([-12, 18, 3], [8, -27, 9])]):
    cmp(f"version.gcd_{k}", ver("gcd_"), [np.array(a, "int32"), np.array(b, "int32")],
        grad=False)
cmp("version.gcd_bcast", ver("gcd_"), [np.array([[12, 18, 7], [30, 21, 64]], "int64"),
                                       np.array([8, 27, 48], "int64")], grad=False)
cmp("version.gammainc_", ver("gammainc_"), [pos, big], grad=False)
cmp("version.masked_fill_", lambda P, x: ver("masked_fill_", P.to_tensor(MASK), 2.0)(P, x), [u])
cmp("version.where_", lambda P, x, y: (lambda w: (P.where_(P.to_tensor(MASK), w, y), w,
                                                    w.inplace_version))(x * 1.0), [u, u * 2])
for name in ("bernoulli_", "cauchy_", "geometric_", "log_normal_"):
    args = (0.5,) if name == "geometric_" else ()
    cmp(f"version.{name}", lambda P, x, n=name, a=args: (
        lambda w: (getattr(w, n)(*a), w.inplace_version)[1:])(x.clone()), [u], grad=False)

# error types
cmp("errors.hypot_number_y", raises(lambda P, x: P.hypot_(x, 3.0)), [u], grad=False)
cmp("errors.hypot_number_x", raises(lambda P, x: P.hypot_(3.0, x)), [u], grad=False)
cmp("errors.ldexp_numbers", raises(lambda P: P.ldexp_(1, 1)), [], grad=False)
cmp("errors.pow_list", raises(lambda P, x: P.pow_(x, [2])), [u], grad=False)
cmp("errors.pow_tensor", raises(lambda P, x: x.pow_(x)), [u], grad=False)
cmp("errors.where_numbers", raises(lambda P, x: P.where_(x > 0, 1, 2)), [u], grad=False)
cmp("errors.where_none", raises(lambda P, x: P.where_(x > 0, None, None)), [u], grad=False)
cmp("errors.where_number_y", raises(lambda P, x: P.where_(x > 0, x, 2.0)), [u], grad=False)


# error wording that Paddle's test_inplace.py matches (assertRaisesRegex): the case returns the
# exception type and whether Paddle's regex is found in the message
def raises_like(f, pattern):
    def fn(P, *ts):
        try:
            f(P, *ts)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, bool(re.search(pattern, str(e)))
        return "no error"
    return fn


cmp("errors.ldexp_number_x_wording", raises_like(
    lambda P: P.ldexp_(1, 1), f"x must be tensor type, but got {int}"), [], grad=False)
cmp("errors.ldexp_number_y_wording", raises_like(
    lambda P, x: P.ldexp_(x, 1), f"y must be tensor type, but got {int}"), [u], grad=False)
cmp("errors.pow_list_wording", raises_like(
    lambda P, x: P.pow_(x, [2]), "y must be scalar type, but received: %s " % list), [u],
    grad=False)
cmp("errors.pow_list_method_wording", raises_like(
    lambda P, x: x.pow_([2]), "y must be scalar type, but received: %s " % list), [u],
    grad=False)
cmp("errors.where_int_condition", raises(lambda P, x: P.where_(P.ones([2, 3], "int32"), x, x)),
    [u], grad=False)

# assign(x, output): output takes x's shape and dtype
cmp("assign.other_shape", lambda P, x: (lambda o: (P.assign(x, o) is o, o, o.inplace_version))(
    P.zeros([4, 2, 3])), [A((3,))])
cmp("assign.other_dtype", lambda P, x: (lambda o: (P.assign(x, o) is o, o, o.inplace_version))(
    P.zeros([3])), [A((3,)).astype("float64")])
cmp("assign.other_shape_grad", lambda P, x: (lambda o: (P.assign(x * 2.0, o), o))(
    P.zeros([5])), [A((2, 3))])
