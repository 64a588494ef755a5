"""nn/norm3d.py against Paddle 3.3.1 (train and eval, running statistics)."""
KNOWN = {"SyncBatchNorm": "runs as batch norm in one process (Paddle 3.3.1's CPU build has no "
                          "sync_batch_norm kernel)"}
_v = A((2, 3, 2, 3, 4))


def _bn(P, x, cls, train, **kw):
    m = getattr(P.nn, cls)(3, **kw)
    m.train() if train else m.eval()
    out = m(x)
    return [out, m._mean * 1.0, m._variance * 1.0] if hasattr(m, "_mean") else out


cmp("BatchNorm3D_train", lambda P, x: _bn(P, x, "BatchNorm3D", True), [_v])
cmp("BatchNorm3D_eval", lambda P, x: _bn(P, x, "BatchNorm3D", False), [_v])
cmp("BatchNorm3D_ndhwc", lambda P, x: _bn(P, x, "BatchNorm3D", True, data_format="NDHWC"), [A((2, 2, 3, 4, 3))])
cmp("InstanceNorm3D", lambda P, x: P.nn.InstanceNorm3D(3)(x), [_v])
cmp("SyncBatchNorm", lambda P, x: _bn(P, x, "SyncBatchNorm", True), [A((4, 3, 5, 5))])
cmp("SyncBatchNorm_as_BatchNorm2D", lambda P, x: _bn(P, x, "BatchNorm2D" if P.__name__ == "paddle" else "SyncBatchNorm", True), [A((4, 3, 5, 5))])
cmp("SyncBatchNorm_convert", lambda P, x: P.nn.SyncBatchNorm.convert_sync_batchnorm(P.nn.Sequential(P.nn.Conv2D(3, 3, 1), P.nn.BatchNorm2D(3)))[1].__class__.__name__ == "SyncBatchNorm" and P.to_tensor(1.0), [A((1,))], grad=False)
