"""Layer forms of the functional ops (constructor arguments passed through)."""

x = A((2, 3, 4, 4)); v = A((4, 5))


def L(name, *args, **kw):  # noqa: N802
    return lambda P: getattr(P.nn, name)(*args, **kw)


for name, args, inputs in [
        ("Hardshrink", (0.3,), [v]), ("Softshrink", (0.3,), [v]), ("CELU", (0.7,), [v]),
        ("ThresholdedReLU", (0.5, 0.1), [v]), ("GLU", (0,), [v]), ("LogSigmoid", (), [v]),
        ("Tanhshrink", (), [v]), ("PReLU", (3, 0.1), [x]), ("PReLU", (), [v]),
        ("Identity", (7,), [v]),
        ("MarginRankingLoss", (0.2,), [A((4,)), A((4,)), np.array([1., -1, 1, -1], "float32")]),
        ("HingeEmbeddingLoss", (0.5,), [A((4,)), np.array([1., -1, 1, -1], "float32")]),
        ("SoftMarginLoss", (), [A((4,)), np.array([1., -1, 1, -1], "float32")]),
        ("PoissonNLLLoss", (), [A((4,)), A((4,), 0, 3)]),
        ("GaussianNLLLoss", (), [A((4,)), A((4,)), A((4,), 0.5, 1)]),
        ("CosineEmbeddingLoss", (0.1,), [A((2, 3)), A((2, 3)), np.array([1, -1])]),
        ("TripletMarginLoss", (), [A((2, 3)), A((2, 3)), A((2, 3))]),
        ("MultiLabelSoftMarginLoss", (), [A((2, 3)), np.array([[1., 0, 1], [0, 0, 1]], "float32")]),
        ("PairwiseDistance", (), [A((2, 3)), A((2, 3))]),
        ("CosineSimilarity", (0,), [A((2, 3)), A((2, 3))])]:
    known = "Paddle gives the variance no gradient (see gaussian_nll_loss)" \
        if name == "GaussianNLLLoss" else None
    cmp(f"nn.{name}{args}", lambda P, *t, name=name, args=args: L(name, *args)(P)(*t), inputs,
        known=known)

img = A((2, 4, 5, 5)); seq = A((2, 3, 9))
for name, args, inputs in [
        ("MaxPool1D", (3, 2, 1), [seq]), ("AvgPool1D", (3, 2, 1, False), [seq]),
        ("AdaptiveMaxPool2D", ((2, 3),), [img]), ("AdaptiveMaxPool1D", (4,), [seq]),
        ("AdaptiveAvgPool1D", (4,), [seq]), ("InstanceNorm2D", (4,), [img]),
        ("InstanceNorm1D", (3,), [seq])]:
    cmp(f"nn.{name}{args}", lambda P, *t, name=name, args=args: L(name, *args)(P)(*t), inputs)


def conv_t(name, *args, **kw):
    """The layer's output with weights set from a fixed array (both libraries' init is random)."""
    def fn(P, x, w):
        layer = getattr(P.nn, name)(*args, **kw)
        layer.weight.set_value(w)
        return layer(x)
    return fn


cmp("nn.Conv2DTranspose", conv_t("Conv2DTranspose", 4, 6, 3, stride=2, padding=1, groups=2),
    [img, A((4, 3, 3, 3))])
cmp("nn.Conv1DTranspose", conv_t("Conv1DTranspose", 3, 2, 4, stride=3), [seq, A((3, 2, 4))])
