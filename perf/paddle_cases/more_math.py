# ops/more_math.py against Paddle 3.3.1.
import numpy as np

_x = np.array([-2.0, -0.0, 0.0, 1.5, 3.0, -1.0], "float32")
_y = np.array([1.0, 1.0, -1.0, -0.0, 0.0, -2.0], "float32")
cmp("copysign", lambda P, a, b: P.copysign(a, b), [_x, _y])
cmp("copysign_scalar", lambda P, a: P.copysign(a, -1.0), [_x])
cmp("copysign_bcast", lambda P, a, b: P.copysign(a, b), [A((2, 3)), A((3,))])
cmp("copysign_int", lambda P, a, b: P.copysign(a, b), [A((4,), -5, 5, "int64"), A((4,), -5, 5, "int64")], grad=False)
cmp("sgn", lambda P, a: P.sgn(a), [_x])
cmp("ldexp", lambda P, a, b: P.ldexp(a, b), [A((2, 3)), A((2, 3), -3, 4, "int32")])
cmp("ldexp_int", lambda P, a, b: P.ldexp(a, b), [A((3,), 1, 5, "int64"), A((3,), 0, 4, "int64")], grad=False)
cmp("vecdot", lambda P, a, b: P.vecdot(a, b), [A((2, 3)), A((2, 3))])
cmp("vecdot_axis0", lambda P, a, b: P.vecdot(a, b, axis=0), [A((2, 3)), A((2, 3))])
cmp("vecdot_bcast", lambda P, a, b: P.vecdot(a, b), [A((4, 3)), A((3,))])
cmp("baddbmm", lambda P, i, a, b: P.baddbmm(i, a, b, beta=0.5, alpha=2.0), [A((2, 2, 4)), A((2, 2, 3)), A((2, 3, 4))])
cmp("baddbmm_2d_input", lambda P, i, a, b: P.baddbmm(i, a, b), [A((2, 4)), A((2, 2, 3)), A((2, 3, 4))],
    known="a [B, m] input gets a [B, m] gradient (Paddle 3.3.1: [B, 1, m], not its shape)")
cmp("multigammaln", lambda P, a: P.multigammaln(a, 3), [A((5,), 1.5, 6.0)], rtol=1e-5)
cmp("multigammaln64", lambda P, a: P.multigammaln(a, 2), [A((5,), 1.5, 6.0, "float64")], rtol=1e-10, atol=1e-10)
cmp("m.copysign", lambda P, a, b: a.copysign(b), [_x, _y])
