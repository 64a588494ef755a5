"""The autograd API: PyLayer, saved_tensors_hooks, set_grad_enabled, detach, grad() hooks,
split's unused parts, zeros after differentiating a first-order gradient, conversions."""

# deliberate departures (README, Paddle compatibility notes), by case-name prefix
KNOWN = {
    "float [1]": "float() of any one-element tensor (Paddle 3.3.1 refuses shape [1] under "
                 "numpy 2)",
    "pylayer mark_not_inplace": "an input returned after mark_not_inplace gets its gradient "
                                "(Paddle 3.3.1 hands backward zeros for it and drops it)",
    "pylayer grad for const": "a gradient returned for an input that needs none is ignored "
                              "(Paddle raises ValueError)",
}


def _layer(P, forward, backward):
    class L(P.autograd.PyLayer):
        pass
    L.forward = staticmethod(forward)
    L.backward = staticmethod(backward)
    return L


def mixed(P, x):
    def fwd(ctx, x):
        return x * 2, 1, None, "s", P.to_tensor([5.0, 6.0])

    def bwd(ctx, g, g2):
        return g * 2 + g2.sum()
    return _layer(P, fwd, bwd).apply(x)


cmp("pylayer mixed outputs", mixed, [A((2,))])


def kw_list(P, a, b, c, d):
    def fwd(ctx, a, b=None, lst=None):
        ctx.save_for_backward(a, lst[1])
        return a * b + lst[0] * 4 + lst[1] * lst[1]

    def bwd(ctx, g):
        a, d = ctx.saved_tensor()
        return g * 3, g * a, [g * 4, g * 2 * d]
    return _layer(P, fwd, bwd).apply(a, b=b, lst=[c, d])


cmp("pylayer keyword and list inputs", kw_list, [A((3,)), A((3,)), A((3,)), A((3,))])


def kw_order(P, a, b):
    def fwd(ctx, a, b):
        return a * 2 + b * 3

    def bwd(ctx, g):
        return g * 2, g * 3
    return _layer(P, fwd, bwd).apply(b=b, a=a)


cmp("pylayer keyword order", kw_order, [A((2,)), A((2,))])


def int_out(P, x):
    def fwd(ctx, x):
        return x * 2, P.cast(x, "int64"), x > 0

    def bwd(ctx, g, gi, gb):
        return g * 3
    return _layer(P, fwd, bwd).apply(x)


cmp("pylayer int out values", lambda P, x: [o for o in int_out(P, x)][:1], [A((3,))])
cmp("pylayer int out", int_out, [A((3,))])


def non_diff(P, x):
    def fwd(ctx, x):
        a, b = x + x, x * 3
        ctx.mark_non_differentiable(a)
        return a, b

    def bwd(ctx, ga, gb):
        return gb * 3 + ga
    return _layer(P, fwd, bwd).apply(x)


cmp("pylayer mark_non_differentiable", non_diff, [A((3,), dtype="float64")])


def in_place(P, x):
    def fwd(ctx, x):
        return x

    def bwd(ctx, g):
        return g * 3
    y = x * 2
    z = _layer(P, fwd, bwd).apply(y)
    return z * z, P.to_tensor(float(z is y)), P.to_tensor(float(y.inplace_version))


cmp("pylayer returns its non-leaf input", in_place, [A((3,))])


def not_in_place(P, x):
    def fwd(ctx, x):
        ctx.mark_not_inplace(x)
        return x, x + x

    def bwd(ctx, g, g2):
        return g + 2 * g2
    return _layer(P, fwd, bwd).apply(x)


cmp("pylayer mark_not_inplace", not_in_place, [A((2,), dtype="float64")])


def const_grad(P, a, b):
    def fwd(ctx, a, b):
        return a * b

    def bwd(ctx, g):
        return g * 2, g * 3
    return _layer(P, fwd, bwd).apply(a, P.to_tensor(b.numpy()))


cmp("pylayer grad for const", const_grad, [A((2,)), A((2,))])


def hooked_multiply(P, a, b):
    with P.autograd.saved_tensors_hooks(lambda t: t.numpy(), lambda p: P.to_tensor(p)):
        y = P.multiply(a, b)
        z = P.exp(y) + P.tanh(a)
    return z


cmp("saved_tensors_hooks multiply exp tanh", hooked_multiply, [A((2, 3)), A((2, 3))])


def hooked_pylayer(P, a, b):
    def fwd(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    def bwd(ctx, g):
        a, b = ctx.saved_tensor()
        return g * b, g * a
    with P.autograd.saved_tensors_hooks(lambda t: t.numpy(), lambda p: P.to_tensor(p)):
        return _layer(P, fwd, bwd).apply(a, b)


cmp("saved_tensors_hooks pylayer", hooked_pylayer, [A((3,)), A((3,))])


def sge_decorator(P, x):
    @P.set_grad_enabled(False)
    def f(x):
        return x * 2
    return f(x)


cmp("sge decorator", sge_decorator, [A((2,))])


def hooked_input(P, x):
    h = x * 3
    h.register_hook(lambda g: g * 10)
    y = h * h
    return P.grad(y.sum(), [h, x])


cmp("grad() of a hooked non-leaf input", hooked_input, [A((3,))])


def leaf_hook(P, x):
    x.register_hook(lambda g: g * 10)
    return P.grad((x * x).sum(), x)


cmp("grad() of a hooked leaf input", leaf_hook, [A((3,))])


def split_unused(P, x):
    x = P.to_tensor(x.numpy(), stop_gradient=False)
    a, b = P.split(x, [1, 2], axis=1)
    b.retain_grads()
    a.sum().backward()
    return b.grad


cmp("split unused part's retained grad", split_unused, [A((2, 3))], grad=False)


def chunk_unused(P, x):
    x = P.to_tensor(x.numpy(), stop_gradient=False)
    parts = P.chunk(x, 3, axis=1)
    for p in parts:
        p.retain_grads()
    P.grad(parts[0].sum(), x)
    return [p.grad for p in parts[1:]]


cmp("chunk unused parts' retained grads under grad()", chunk_unused, [A((2, 3))], grad=False)


def second(f):
    def run(P, x, c):
        x = P.to_tensor(x.numpy(), stop_gradient=False)
        (dx,) = P.grad(f(P, x, c).sum(), x, create_graph=True)
        dx.sum().backward()
        return dx, x.grad
    return run


for nm, f in [("x*c", lambda P, x, c: x * c), ("x/c", lambda P, x, c: x / c),
              ("x+c", lambda P, x, c: x + c), ("x*3", lambda P, x, c: x * 3.0),
              ("c/x", lambda P, x, c: c / x), ("x@c", lambda P, x, c: P.matmul(x, c)),
              ("sin", lambda P, x, c: P.sin(x) * c)]:
    cmp(f"x.grad after dx.backward(), {nm}", second(f), [A((3,), 0.5, 2.0), A((3,), 0.5, 2.0)],
        grad=False)


def matmul_double(P, x, y):
    x = P.to_tensor(x.numpy(), stop_gradient=False)
    y = P.to_tensor(y.numpy(), stop_gradient=False)
    g = P.to_tensor(np.ones((3, 3), "float32"), stop_gradient=False)
    gx, gy = P.grad([P.matmul(x, y)], [x, y], [g], retain_graph=True, create_graph=True)
    gx.backward()
    return gx, gy, x.grad, y.grad, g.grad


cmp("matmul double grad", matmul_double, [A((3, 3)), A((3, 3))], grad=False)


def detach_version(P, x):
    d = x.detach()
    d[0] = 5.0
    return P.to_tensor([float(x.inplace_version), float(d.inplace_version)])


cmp("detach shares the version counter", detach_version, [A((3,))], grad=False)


def detach_inplace(P, x):
    x.stop_gradient = False
    y = x * 2
    z = y * y                           # recorded before detach_: reaches x
    y.detach_()
    leaf, version = float(y.is_leaf), float(y.inplace_version)
    y.stop_gradient = False
    (z.sum() + (y * x).sum()).backward()
    return P.to_tensor([leaf, version]), x.grad, y.grad


cmp("detach_ makes a leaf of its own", detach_inplace, [A((3,))], grad=False)
cmp("reshape same shape is itself",
    lambda P, x: P.to_tensor(float(P.reshape(x, [2, 3]) is x)), [A((2, 3))], grad=False)
cmp("float 0d", lambda P, x: P.to_tensor(float(x)), [A(())], grad=False)
cmp("float [1]", lambda P, x: P.to_tensor(float(x)), [A((1,))], grad=False)
cmp("float [2] raises", lambda P, x: P.to_tensor(float(x)), [A((2,))], grad=False)
cmp("Function is PyLayer", lambda P: P.to_tensor(float(P.autograd.Function is
                                                       P.autograd.PyLayer)), [], grad=False)
