"""In-place forms: on a non-leaf (the gradient flows to the leaf through the recorded op)
and on a tensor that needs no gradient; the Tensor method where Paddle has one, else the
paddle.* function."""

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
