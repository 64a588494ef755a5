"""ops/grid_sample.py against Paddle 3.3.1."""
import numpy as np

_NEAREST = "nearest sampling gives the grid no gradient (None; Paddle 3.3.1 gives zeros)"
KNOWN = {"grid_sample_nearest": _NEAREST, "grid_sample_3d_nearest": _NEAREST}

_theta = np.array([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]], [[1.2, 0.1, 0.3], [-0.1, 0.8, 0.05]]], "float32")
for _ac in (True, False):
    cmp(f"affine_grid_{_ac}", lambda P, t, ac=_ac: P.nn.functional.affine_grid(t, [2, 3, 4, 5], align_corners=ac), [_theta])
_x = A((2, 3, 5, 6))
_g = A((2, 4, 7, 2), -1.3, 1.3)
for _mode in ("bilinear", "nearest"):
    for _pad in ("zeros", "border", "reflection"):
        for _ac in (True, False):
            cmp(f"grid_sample_{_mode}_{_pad}_{_ac}", lambda P, x, g, m=_mode, p=_pad, ac=_ac: P.nn.functional.grid_sample(x, g, mode=m, padding_mode=p, align_corners=ac), [_x, _g], rtol=1e-4, atol=1e-5)
cmp("stn", lambda P, x, t: P.nn.functional.grid_sample(x, P.nn.functional.affine_grid(t, [2, 3, 4, 4], align_corners=False), align_corners=False), [_x, _theta], rtol=1e-4, atol=1e-5)
# 3-D: [N, C, D, H, W] volumes, [N, 3, 4] matrices (trilinear for 'bilinear')
_theta3 = (np.tile(np.eye(3, 4), (2, 1, 1)) + np.linspace(-0.2, 0.2, 24).reshape(2, 3, 4)).astype("float32")
for _ac in (True, False):
    cmp(f"affine_grid_3d_{_ac}", lambda P, t, ac=_ac: P.nn.functional.affine_grid(t, [2, 2, 3, 4, 5], align_corners=ac), [_theta3])
_x3 = A((2, 2, 3, 4, 5))
_g3 = A((2, 2, 3, 2, 3), -1.3, 1.3)
for _mode in ("bilinear", "nearest"):
    for _pad in ("zeros", "border", "reflection"):
        for _ac in (True, False):
            cmp(f"grid_sample_3d_{_mode}_{_pad}_{_ac}", lambda P, x, g, m=_mode, p=_pad, ac=_ac: P.nn.functional.grid_sample(x, g, mode=m, padding_mode=p, align_corners=ac), [_x3, _g3], rtol=1e-4, atol=1e-5)
