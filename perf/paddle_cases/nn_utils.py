"""nn/utils.py and the deterministic initializers against Paddle 3.3.1."""
import numpy as np

KNOWN = {"parameters_to_vector": "the vector is differentiable (Paddle 3.3.1's passes no "
                                 "gradient back to the parameters)"}

_w = A((3, 4))
_b = A((4,))


def _weight_normed(P, x, dim):
    lin = P.nn.Linear(3, 4)
    lin.weight.set_value(_w)
    lin.bias.set_value(_b)
    P.nn.utils.weight_norm(lin, dim=dim)
    out = lin(x)
    return [out, lin.weight_g * 1.0, lin.weight_v * 1.0]


for _dim in (0, 1, None):
    cmp(f"weight_norm_dim{_dim}", lambda P, x, d=_dim: _weight_normed(P, x, d), [A((2, 3))])
cmp("weight_norm_conv", lambda P, x: (lambda c: (c.weight.set_value(np.linspace(-1, 1, 24).reshape(3, 2, 2, 2).astype("float32")), P.nn.utils.weight_norm(c), c(x))[2])(P.nn.Conv2D(2, 3, 2, bias_attr=False)), [A((1, 2, 3, 3))])
cmp("remove_weight_norm", lambda P: (lambda lin: (lin.weight.set_value(_w), P.nn.utils.weight_norm(lin), P.nn.utils.remove_weight_norm(lin), lin.weight * 1.0)[3])(P.nn.Linear(3, 4)), [], grad=False)
cmp("parameters_to_vector", lambda P, a, b: P.nn.utils.parameters_to_vector([a, b]), [A((2, 3)), A((4,))])


def _clipped(P, a, b, how):
    a, b = (P.to_tensor(t.numpy(), stop_gradient=False) for t in (a, b))
    (a * P.to_tensor(np.arange(6, dtype="float32").reshape(2, 3)) + b * 3.0).sum().backward()
    total = P.nn.utils.clip_grad_norm_([a, b], 2.0, norm_type=how) if how else \
        P.nn.utils.clip_grad_value_([a, b], 2.5)
    return [a.grad * 1.0, b.grad * 1.0] + ([total] if how else [])


cmp("clip_grad_norm_", lambda P, a, b: _clipped(P, a, b, 2.0), [A((2, 3)), A((3,))], grad=False)
cmp("clip_grad_norm_inf", lambda P, a, b: _clipped(P, a, b, float("inf")), [A((2, 3)), A((3,))], grad=False)
cmp("clip_grad_norm_1", lambda P, a, b: _clipped(P, a, b, 1.0), [A((2, 3)), A((3,))], grad=False)
cmp("clip_grad_value_", lambda P, a, b: _clipped(P, a, b, None), [A((2, 3)), A((3,))], grad=False)

_I = "nn.initializer"
cmp("init_assign", lambda P: P.create_parameter([2, 3], "float32", default_initializer=P.nn.initializer.Assign(np.arange(6).reshape(2, 3))) * 1.0, [], grad=False)
cmp("init_dirac", lambda P: P.create_parameter([4, 2, 3, 3], "float32", default_initializer=P.nn.initializer.Dirac()) * 1.0, [], grad=False)
cmp("init_dirac_groups", lambda P: P.create_parameter([4, 2, 3], "float32", default_initializer=P.nn.initializer.Dirac(2)) * 1.0, [], grad=False)
cmp("init_constant_call", lambda P: (lambda w: (P.nn.initializer.Constant(2.5)(w), w * 1.0)[1])(P.create_parameter([2, 2], "float32")), [], grad=False)
cmp("calculate_gain", lambda P: P.to_tensor([P.nn.initializer.calculate_gain(n) for n in ("linear", "tanh", "relu", "selu", "sigmoid")] + [P.nn.initializer.calculate_gain("leaky_relu", 0.2)]), [], grad=False)


def _spectral(P, x, it):
    lin = P.nn.Linear(3, 4)
    lin.weight.set_value(_w)
    P.nn.utils.spectral_norm(lin, n_power_iterations=it)
    lin.weight_u.set_value((np.linspace(-1, 1, 4) / np.sqrt(1.4814815)).astype("float32"))
    lin.weight_v.set_value(np.array([0.6, 0.0, 0.8], "float32"))
    outs = [lin(x) for _ in range(2)]
    return outs + [lin.weight_u * 1.0, lin.weight_v * 1.0]


cmp("spectral_norm", lambda P, x: _spectral(P, x, 1), [A((2, 3))])
cmp("spectral_norm_3", lambda P, x: _spectral(P, x, 3), [A((2, 3))])
cmp("spectral_norm_conv", lambda P, x: (lambda c: (c.weight.set_value(np.linspace(-1, 1, 24).reshape(3, 2, 2, 2).astype("float32")), P.nn.utils.spectral_norm(c), c.weight_u.set_value(np.array([0.6, 0.8, 0.0], "float32")), c.weight_v.set_value(np.full(8, 8 ** -0.5, "float32")), c(x))[4])(P.nn.Conv2D(2, 3, 2)), [A((1, 2, 3, 3))])
