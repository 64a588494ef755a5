"""nn/resampling_layers.py against Paddle 3.3.1: padding, resampling and reshaping layers and
GroupNorm (parameters at their default initial values in both libraries)."""

KNOWN = {
    "GroupNorm_noaffine": "group_norm without weight and bias is differentiated (Paddle 3.3.1's "
                          "gradient then ignores the normalisation; finite differences agree "
                          "with jitgrad's)",
}

_s1, _s2, _s3 = A((2, 3, 6)), A((2, 3, 5, 6)), A((1, 2, 3, 4, 5))


def _run(name, *args, **kw):
    return lambda P, t: getattr(P.nn, name)(*args, **kw)(t)


for _d, _x in ((1, _s1), (2, _s2), (3, _s3)):
    _pad = [1, 2] * _d
    cmp(f"Pad{_d}D", _run(f"Pad{_d}D", _pad), [_x])
    cmp(f"Pad{_d}D_int", _run(f"Pad{_d}D", 1), [_x])
    for _mode in ("reflect", "replicate", "circular"):
        cmp(f"Pad{_d}D_{_mode}", _run(f"Pad{_d}D", _pad, _mode), [_x])
    cmp(f"Pad{_d}D_value", _run(f"Pad{_d}D", _pad, "constant", 2.5), [_x])
    cmp(f"ZeroPad{_d}D", _run(f"ZeroPad{_d}D", _pad), [_x])
    cmp(f"ConstantPad{_d}D", _run(f"ConstantPad{_d}D", _pad, 1.5), [_x])
    cmp(f"ConstantPad{_d}d", _run(f"ConstantPad{_d}d", _pad, 1.5), [_x])
    cmp(f"ReflectionPad{_d}D", _run(f"ReflectionPad{_d}D", _pad), [_x])
    cmp(f"ReplicationPad{_d}D", _run(f"ReplicationPad{_d}D", _pad), [_x])
    cmp(f"CircularPad{_d}D", _run(f"CircularPad{_d}D", _pad), [_x])
cmp("Pad2D_nhwc", _run("Pad2D", [1, 0, 2, 1], data_format="NHWC"), [_s2])
cmp("Upsample_nearest", _run("Upsample", scale_factor=2), [_s2])
cmp("Upsample_bilinear", _run("Upsample", size=[7, 9], mode="bilinear"), [_s2])
cmp("Upsample_bilinear_ac", _run("Upsample", scale_factor=1.5, mode="bilinear", align_corners=True), [_s2])
cmp("Upsample_linear_1d", _run("Upsample", scale_factor=2, mode="linear", data_format="NCW"), [_s1])
cmp("UpsamplingNearest2D", _run("UpsamplingNearest2D", scale_factor=2), [_s2])
cmp("UpsamplingBilinear2D", _run("UpsamplingBilinear2D", size=[4, 8]), [_s2])
cmp("PixelShuffle", _run("PixelShuffle", 2), [A((2, 8, 3, 3))])
cmp("Unfold", _run("Unfold", [2, 3], paddings=1, strides=2), [_s2])
cmp("Unflatten", _run("Unflatten", 1, [2, 3]), [A((2, 6, 4))])
cmp("Maxout", _run("Maxout", 2), [A((2, 6, 3, 2))])
cmp("GroupNorm", _run("GroupNorm", 2, 4), [A((2, 4, 3, 3))])
cmp("GroupNorm_1d", _run("GroupNorm", 3, 6, epsilon=1e-3), [A((2, 6, 5))])
cmp("GroupNorm_noaffine", _run("GroupNorm", 2, 4, weight_attr=False, bias_attr=False), [A((2, 4, 3, 3))])
cmp("GroupNorm_params", lambda P: [p for _, p in sorted(P.nn.GroupNorm(2, 4).named_parameters())], [], grad=False)
cmp("ModuleList", lambda P, t: P.nn.ModuleList([P.nn.Silu(), P.nn.Silu()])[1](t), [A((3,))])
cmp("AdaptiveMaxPool2d", _run("AdaptiveMaxPool2d", 2), [_s2])
