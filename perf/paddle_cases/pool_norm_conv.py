"""Pooling, instance_norm and transposed convolutions added in this session."""

rng = np.random.default_rng(3)
CV = NM = None


def fn(name, mod):
    return lambda P: getattr(P.nn.functional, name)


KNOWN = {
    "max_pool1d mask {'kernel_size': 2, 'padding': [1, 0]}":
        "uneven padding with return_mask works, as the docs say (Paddle 3.3.1 raises)",
    "max_pool1d mask {'kernel_size': 4, 'stride': 3, 'padding': [[0, 0], [0, 0], [1, 2]]}":
        "uneven padding with return_mask works, as the docs say (Paddle 3.3.1 raises)",
    "max_pool1d mask {'kernel_size': 3, 'padding': 'SAME'":
        "'SAME' applies with return_mask too, as the docs say (Paddle 3.3.1 ignores it there)",
    "max_pool1d {'kernel_size': 12}": "a kernel larger than the input raises ValueError "
        "(Paddle 3.3.1 returns a clipped window or an empty tensor)",
    "max_pool1d mask {'kernel_size': 12}": "as above",
    "avg_pool1d {'kernel_size': 12}": "as above",
    "avg_pool1d nonexcl {'kernel_size': 12}": "as above",
    "instance_norm w only": "a lone weight gets its gradient (Paddle 3.3.1: None)",
    "instance_norm b only": "a lone bias gets its gradient (Paddle 3.3.1: None)",
}

mp1, ap1 = fn("max_pool1d", CV), fn("avg_pool1d", CV)
xs = A((2, 3, 9))
for kw in [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
           dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=2, padding=[1, 0]),
           dict(kernel_size=3, padding='SAME', stride=2), dict(kernel_size=[3], padding=[2], stride=[2]),
           dict(kernel_size=4, stride=3, padding=[[0, 0], [0, 0], [1, 2]]),
           dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
           dict(kernel_size=3, padding='VALID'), dict(kernel_size=3, padding='VALID', ceil_mode=True),
           dict(kernel_size=2, stride=1, padding=2), dict(kernel_size=12),
           dict(kernel_size=2, stride=2, padding=1, ceil_mode=True)]:
    cmp(f"max_pool1d {kw}", lambda P, x, kw=kw: mp1(P)(x, **kw), [xs])
    if kw.get("padding") != 2 and not kw.get("ceil_mode"):  # Paddle's mask kernel corrupts the heap (hangs) for that one
        cmp(f"max_pool1d mask {kw}", lambda P, x, kw=kw: mp1(P)(x, return_mask=True, **kw), [xs])
    cmp(f"avg_pool1d {kw}", lambda P, x, kw=kw: ap1(P)(x, **kw), [xs])
    cmp(f"avg_pool1d nonexcl {kw}", lambda P, x, kw=kw: ap1(P)(x, exclusive=False, **kw), [xs])
cmp("max_pool1d positional", lambda P, x: mp1(P)(x, 3, 2, 1, False, True), [xs])
cmp("avg_pool1d positional", lambda P, x: ap1(P)(x, 3, 2, 1, False, True), [xs])
cmp("avg_pool1d f64", lambda P, x: ap1(P)(x, 3, 2, 1), [A((1, 2, 6), dtype="float64")])
cmp("max_pool1d 4d", lambda P, x: mp1(P)(x, 2), [A((1, 2, 2, 6))])
cmp("max_pool1d int", lambda P, x: mp1(P)(x, 2), [A((1, 2, 6), dtype="int32")])
inorm = fn("instance_norm", NM)
for shp in [(2, 3, 4, 5), (2, 3, 6), (2, 3), (1, 2, 2, 2, 3), (2, 3, 1, 1)]:
    cmp(f"instance_norm {shp}", lambda P, x: inorm(P)(x), [A(shp)])
    cmp(f"instance_norm wb {shp}", lambda P, x, w, b: inorm(P)(x, weight=w, bias=b), [A(shp), A((shp[1],)), A((shp[1],))])
cmp("instance_norm w only eps", lambda P, x, w: inorm(P)(x, weight=w, eps=0.5), [A((2, 3, 4)), A((3,))])
cmp("instance_norm b only f64", lambda P, x, b: inorm(P)(x, bias=b), [A((2, 3, 4), dtype="float64"), A((3,), dtype="float64")])
cmp("instance_norm stats ignored", lambda P, x, m, v: inorm(P)(x, m, v, use_input_stats=False, momentum=0.5), [A((2, 3, 4)), A((3,)), A((3,), 0.5, 2)])
cmp("instance_norm int", lambda P, x: inorm(P)(x), [A((2, 3, 4), dtype="int64")])
amp2, amp1, aap1 = fn("adaptive_max_pool2d", CV), fn("adaptive_max_pool1d", CV), fn("adaptive_avg_pool1d", CV)
x4 = (rng.permutation(2 * 3 * 5 * 7).reshape(2, 3, 5, 7) / 9.0 - 2).astype("float32")
for os in [(2, 3), 3, (None, 2), (5, 7), (1, 1), (4, 5), (6, 8), (2, None)]:
    cmp(f"adaptive_max_pool2d {os}", lambda P, x, os=os: amp2(P)(x, os), [x4])
    cmp(f"adaptive_max_pool2d mask {os}", lambda P, x, os=os: amp2(P)(x, os, return_mask=True), [x4])
x3 = (rng.permutation(2 * 3 * 9).reshape(2, 3, 9) / 9.0 - 2).astype("float32")
for os in [3, [2], 4, 9, 11, 1]:
    cmp(f"adaptive_max_pool1d {os}", lambda P, x, os=os: amp1(P)(x, os), [x3])
    cmp(f"adaptive_max_pool1d mask {os}", lambda P, x, os=os: amp1(P)(x, os, True), [x3])
    cmp(f"adaptive_avg_pool1d {os}", lambda P, x, os=os: aap1(P)(x, os), [x3])
cmp("adaptive_max_pool2d f64", lambda P, x: amp2(P)(x, [3, 2]), [x4.astype("float64")])
cmp("adaptive_max_pool2d 3d", lambda P, x: amp2(P)(x, 2), [x3])
cmp("adaptive_max_pool2d int", lambda P, x: amp2(P)(x, 2), [A((1, 1, 4, 4), dtype="int32")])
ct2, ct1 = fn("conv2d_transpose", CV), fn("conv1d_transpose", CV)
xc, wc, bc = A((2, 2, 3, 3)), A((2, 4, 2, 3)), A((4,))
for kw in [dict(), dict(stride=2), dict(stride=2, padding=1), dict(stride=2, output_padding=1),
           dict(stride=2, output_size=[7, 8]), dict(stride=3, output_size=[8, 9]), dict(padding='SAME'),
           dict(padding='SAME', stride=2), dict(padding='SAME', stride=2, dilation=2), dict(padding='VALID', stride=2),
           dict(padding=[1, 0, 2, 1]), dict(padding=[[0, 0], [0, 0], [1, 0], [2, 1]]), dict(dilation=2),
           dict(dilation=[2, 1], stride=[1, 2], padding=[1, 2]), dict(output_padding=1), dict(stride=2, output_size=[9, 9]),
           dict(stride=2, dilation=2, output_padding=1)]:
    cmp(f"conv2d_transpose {kw}", lambda P, x, w, kw=kw: ct2(P)(x, w, **kw), [xc, wc])
    cmp(f"conv2d_transpose bias {kw}", lambda P, x, w, b, kw=kw: ct2(P)(x, w, b, **kw), [xc, wc, bc])
cmp("conv2d_transpose groups", lambda P, x, w, b: ct2(P)(x, w, b, 2, 1, groups=2), [A((2, 4, 3, 3)), A((4, 3, 2, 2)), A((6,))])
cmp("conv2d_transpose positional", lambda P, x, w, b: ct2(P)(x, w, b, 2, 1, 1, 2, 2), [A((1, 4, 3, 3)), A((4, 1, 3, 3)), A((2,))])
cmp("conv2d_transpose nhwc", lambda P, x, w: ct2(P)(x, w, stride=2, padding=1, data_format="NHWC"), [A((2, 3, 3, 2)), wc])
cmp("conv2d_transpose f64", lambda P, x, w: ct2(P)(x, w, stride=2), [xc.astype("float64"), wc.astype("float64")])
x1, w1 = A((2, 2, 5)), A((2, 3, 3))
for kw in [dict(), dict(stride=2), dict(stride=2, padding=1, output_padding=1), dict(padding=[1, 2]), dict(padding='SAME', stride=2),
           dict(stride=3, output_size=12), dict(dilation=2, padding=1), dict(stride=2, output_size=[11])]:
    cmp(f"conv1d_transpose {kw}", lambda P, x, w, kw=kw: ct1(P)(x, w, **kw), [x1, w1])
cmp("conv1d_transpose bias groups", lambda P, x, w, b: ct1(P)(x, w, b, 2, 1, 1, 2), [A((2, 4, 5)), A((4, 2, 3)), A((4,))])
cmp("conv1d_transpose nlc", lambda P, x, w: ct1(P)(x, w, stride=2, data_format="NLC"), [A((2, 5, 2)), w1])
mp2 = lambda P: P.nn.functional.max_pool2d
cmp("max_pool2d all-padding window", lambda P, x: mp2(P)(x, 2, 2, 1, ceil_mode=True), [A((1, 2, 5, 5))])
cmp("max_pool2d all-padding window f64", lambda P, x: mp2(P)(x, 2, 1, 2), [A((1, 2, 3, 3), dtype="float64")])
cmp("max_pool2d VALID ceil", lambda P, x: mp2(P)(x, 2, padding="VALID", ceil_mode=True), [A((1, 2, 5, 5))])
