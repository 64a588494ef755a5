"""nn/layers_more.py (Softmax2D, SpectralNorm), nn/init.py's deterministic initialisers and
the torch-style aliases against Paddle 3.3.1."""
import numpy as np

KNOWN = {"SpectralNorm": "the gradient is that of the whole computation, power iteration "
                         "included (Paddle 3.3.1's kernel gives g * (1 - u v^T sum(W / sigma))"
                         " / sigma, which finite differences disagree with)"}

cmp("Softmax2D_4d", lambda P, x: P.nn.Softmax2D()(x), [A((2, 3, 4, 5))])
cmp("Softmax2D_3d", lambda P, x: P.nn.Softmax2D()(x), [A((3, 4, 5))])
_u, _v = A((3,)), A((8,))


def _spectral(P, w, dim, iters):
    sn = P.nn.SpectralNorm([4, 3, 2] if dim == 1 else [3, 4, 2], dim=dim, power_iters=iters)
    sn.weight_u.set_value(_u)
    sn.weight_v.set_value(_v)
    return sn(w)


cmp("SpectralNorm_dim1", lambda P, w: _spectral(P, w, 1, 2), [A((4, 3, 2))], grad=False)
cmp("SpectralNorm_dim0", lambda P, w: _spectral(P, w, 0, 1), [A((3, 4, 2))], grad=False)
cmp("SpectralNorm", lambda P, w: _spectral(P, w, 1, 2), [A((4, 3, 2))])


def _init(P, fn, shape, *args):
    t = P.zeros(shape)
    r = getattr(P.nn.init, fn)(t, *args)
    return [t, P.to_tensor(float(r is None))]


cmp("init.ones_", lambda P: _init(P, "ones_", [2, 3]), [], grad=False)
cmp("init.zeros_", lambda P: _init(P, "zeros_", [2, 3]), [], grad=False)
cmp("init.constant_", lambda P: _init(P, "constant_", [2, 3], 0.25), [], grad=False)
cmp("init.eye_", lambda P: _init(P, "eye_", [3, 4]), [], grad=False)
cmp("init.eye_tall", lambda P: _init(P, "eye_", [4, 2]), [], grad=False)
cmp("init.dirac_", lambda P: _init(P, "dirac_", [4, 2, 3, 3], 2), [], grad=False)
cmp("init.calculate_gain", lambda P: P.to_tensor(P.nn.init.calculate_gain("leaky_relu", 0.2)), [], grad=False)
for _fn, _lo, _hi in (("uniform_", 0.0, 1.0), ("kaiming_uniform_", -0.18, 0.18),
                      ("xavier_uniform_", -0.12, 0.12), ("trunc_normal_", -2.0, 2.0)):
    cmp(f"init.{_fn}_bounds", lambda P, f=_fn, lo=_lo, hi=_hi: (lambda t: (getattr(P.nn.init, f)(t), P.to_tensor([float((t >= lo).all()), float((t <= hi).all()), float(t.std() > 0)]))[1])(P.zeros([200, 300])), [], grad=False)
cmp("aliases", lambda P: P.to_tensor([float(a is b) for a, b in ((P.nn.Conv2d, P.nn.Conv2D), (P.nn.Module, P.nn.Layer), (P.nn.HuberLoss, P.nn.SmoothL1Loss), (P.nn.AdaptiveAvgPool1d, P.nn.AdaptiveAvgPool1D), (P.nn.MaxUnpool2d, P.nn.MaxUnPool2D))]), [], grad=False)
_ce_x = A((4, 5))
for _ii, _lab in ((-100, [1, -100, 4, 2]), (-1, [1, -1, 4, 2]), (3, [1, 3, 4, 2]), (-100, [1, 0, 4, 2])):
    cmp(f"cross_entropy_ignore{_ii}_{_lab[1]}", lambda P, x, ii=_ii, lab=_lab: P.nn.functional.cross_entropy(x, P.to_tensor(lab), ignore_index=ii), [_ce_x])
    cmp(f"cross_entropy_ignore{_ii}_{_lab[1]}_w", lambda P, x, ii=_ii, lab=_lab: P.nn.functional.cross_entropy(x, P.to_tensor(lab), weight=P.to_tensor([1.0, 2.0, 3.0, 1.0, 0.5]), ignore_index=ii), [_ce_x])
    cmp(f"CrossEntropyLoss_ignore{_ii}_{_lab[1]}_3d", lambda P, x, ii=_ii, lab=_lab: P.nn.CrossEntropyLoss(ignore_index=ii)(x.reshape([2, 2, 5]), P.to_tensor(lab).reshape([2, 2])), [_ce_x])
    cmp(f"cross_entropy_ignore{_ii}_{_lab[1]}_nosoftmax", lambda P, x, ii=_ii, lab=_lab: P.nn.functional.cross_entropy(P.nn.functional.softmax(x, 1), P.to_tensor(lab), ignore_index=ii, use_softmax=False), [_ce_x])
_F = "nn.functional"
_img = A((2, 3, 5, 6))
_vol = A((1, 2, 3, 4, 5))
for _i, _kw in enumerate([dict(size=[7, 9], mode="bicubic"), dict(size=[7, 9], mode="bicubic", align_corners=True),
                          dict(size=[3, 4], mode="bicubic"), dict(scale_factor=1.5, mode="bicubic"),
                          dict(size=[2, 4], mode="area"), dict(size=[5, 5], mode="area")]):
    cmp(f"interpolate_2d_{_kw['mode']}_{_i}", lambda P, x, kw=_kw: P.nn.functional.interpolate(x, **kw), [_img])
for _i, _kw in enumerate([dict(size=[4, 6, 7], mode="trilinear"), dict(scale_factor=2, mode="trilinear", align_corners=True),
                          dict(scale_factor=[1.5, 2, 0.5], mode="trilinear", align_mode=1), dict(size=[2, 3, 3], mode="area"),
                          dict(size=[5, 2, 8], mode="nearest")]):
    cmp(f"interpolate_3d_{_kw['mode']}_{_i}", lambda P, x, kw=_kw: P.nn.functional.interpolate(x, **kw), [_vol], rtol=1e-4)
cmp("interpolate_1d_area", lambda P, x: P.nn.functional.interpolate(x, size=[3], mode="area"), [A((1, 2, 7))])
cmp("interpolate_bicubic_nhwc", lambda P, x: P.nn.functional.interpolate(x, size=[7, 9], mode="bicubic", data_format="NHWC"), [A((2, 5, 6, 3))])
cmp("interpolate_trilinear_ndhwc", lambda P, x: P.nn.functional.interpolate(x, size=[4, 6, 7], mode="trilinear", data_format="NDHWC"), [A((1, 3, 4, 5, 2))], rtol=1e-4)
cmp("interpolate_bicubic_nonfinite", lambda P, x: P.nn.functional.interpolate(x, size=[5, 5], mode="bicubic"), [np.array([[[[1.0, np.inf, 2.0], [3.0, 4.0, np.nan], [5.0, 6.0, 7.0]]]], "float32")], grad=False)
cmp("Upsample_bicubic", lambda P, x: P.nn.Upsample(scale_factor=2, mode="bicubic")(x), [_img])
cmp("Upsample_trilinear", lambda P, x: P.nn.Upsample(size=[2, 2, 2], mode="trilinear")(x), [_vol])
for _mode, _shape in (("bilinear", (1, 1, 4)), ("linear", (1, 1, 4, 4)), ("trilinear", (1, 1, 4, 4)), ("bicubic", (1, 1, 2, 2, 2))):
    cmp(f"interpolate_{_mode}_rank_error", lambda P, x, m=_mode: P.nn.functional.interpolate(x, scale_factor=2, mode=m), [A(_shape)], grad=False)
cmp("interpolate_area_needs_size", lambda P, x: P.nn.functional.interpolate(x, scale_factor=2, mode="area"), [A((1, 1, 4))], grad=False)
for _fn, _x, _w in (("conv2d", A((1, 3, 8, 8)), A((2, 3, 3, 3))), ("conv1d", A((1, 3, 9)), A((2, 3, 3))), ("conv3d", A((1, 2, 5, 5, 5)), A((2, 2, 3, 3, 3)))):
    for _st in (1, 2):
        cmp(f"{_fn}_same_dilation2_stride{_st}", lambda P, x, w, f=_fn, s=_st: getattr(P.nn.functional, f)(x, w, padding="SAME", dilation=2, stride=s), [_x, _w], rtol=1e-4)
_mn = A((2, 4, 3))
for _p in ("nuc", 2, -2):
    for _ax in ([-2, -1], [0, 2], [2, 1]):
        cmp(f"matrix_norm_{_p}_{_ax}", lambda P, x, p=_p, ax=_ax: P.linalg.matrix_norm(x, p=p, axis=ax), [_mn], rtol=1e-4, atol=1e-5)
    cmp(f"matrix_norm_{_p}_keepdim", lambda P, x, p=_p: P.linalg.matrix_norm(x, p=p, keepdim=True), [_mn], rtol=1e-4, atol=1e-5)
    cmp(f"linalg.norm_{_p}", lambda P, x, p=_p: P.linalg.norm(x, p=p, axis=[-2, -1]), [_mn], rtol=1e-4, atol=1e-5)
