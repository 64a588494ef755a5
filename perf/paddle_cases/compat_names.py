# Paddle's constants, dtype limits and tensor predicates (core/compat.py) against 3.3.1.
import numpy as np


def _limits(P, _):
    f, i = P.finfo(P.float32), P.iinfo(P.int64)
    return P.to_tensor([f.min, f.max, f.eps, f.resolution, f.smallest_normal, f.tiny, f.bits,
                        float(i.min), float(i.max), i.bits, P.finfo("float64").eps], "float64")


cmp("finfo_iinfo", _limits, [A((1,))], grad=False, rtol=0, atol=0)
cmp("constants", lambda P, _: P.to_tensor([P.pi, P.e, P.inf], "float64"), [A((1,))], grad=False,
    rtol=0, atol=0)
cmp("predicates", lambda P, a, b: P.to_tensor([P.is_complex(a), P.is_integer(a),
                                                P.is_integer(b)]), [A((2,)), A((2,), 0, 3, "int64")],
    grad=False)
cmp("is_empty", lambda P, a: (P.is_empty(a), P.is_empty(P.zeros([0, 3]))), [A((2,))], grad=False)
cmp("tolist", lambda P, a: P.to_tensor(P.tolist(a)), [A((2, 3))], grad=False)
cmp("from_numpy", lambda P, a: P.from_numpy(a.numpy()), [A((2, 3), dtype="float64")], grad=False)
cmp("as_tensor", lambda P, _: P.as_tensor([1, 2.5]), [A((1,))], grad=False)
cmp("asarray", lambda P, _: P.asarray([1, 2]), [A((1,))], grad=False)
cmp("rand_like_meta", lambda P, a: P.to_tensor([str(P.rand_like(a).dtype) == str(a.dtype), P.rand_like(a).shape == a.shape]), [A((2, 3), dtype="float64")], grad=False)
cmp("randint_like_dtype", lambda P, a: P.to_tensor(str(P.randint_like(a, 5).dtype).endswith("float64")), [A((2, 3), dtype="float64")], grad=False)
