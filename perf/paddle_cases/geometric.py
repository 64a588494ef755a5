"""paddle.geometric: message passing and segment reductions (values and gradients)."""

KNOWN = {
    "geo tie": "a max/min tie gives its gradient once, to the first row (3.3.1 gives each tied "
               "row, or each duplicate edge, the whole gradient)",
}

SRC = np.array([0, 1, 2, 0, 3, 1], "int64")
DST = np.array([1, 2, 1, 0, 1, 3], "int64")
for red in ("sum", "mean", "max", "min"):
    for osz in (None, 5):
        cmp(f"geo send_u_recv {red} {osz}",
            lambda P, x, s, d, red=red, osz=osz: P.geometric.send_u_recv(x, s, d, red, osz),
            [A((4, 3)), SRC, DST])
    cmp(f"geo send_u_recv 3d {red}",
        lambda P, x, s, d, red=red: P.geometric.send_u_recv(x, s, d, red),
        [A((4, 2, 3)), SRC, DST.astype("int32")])
    for mop in ("add", "sub", "mul", "div"):
        for yshape in ((6, 3), (6, 1)):
            cmp(f"geo send_ue_recv {mop} {red} {yshape}",
                lambda P, x, y, s, d, mop=mop, red=red: P.geometric.send_ue_recv(
                    x, y, s, d, mop, red), [A((4, 3)), A(yshape, 0.5, 2.0), SRC, DST])
    ids = np.array([0, 0, 1, 3, 3], "int64")
    cmp(f"geo segment_{red}", lambda P, x, i, red=red: getattr(P.geometric, "segment_" + red)(
        x, i), [A((5, 3)), ids])
    cmp(f"geo incubate segment_{red}", lambda P, x, i, red=red: getattr(
        P.incubate, "segment_" + red)(x, i), [A((5, 2), dtype="float64"), ids])
    cmp(f"geo tie segment_{red}", lambda P, x, i, red=red: getattr(
        P.geometric, "segment_" + red)(x, i), [np.array([[1.0], [1.0], [0.5]], "float32"),
                                              np.array([0, 0, 0], "int64")])
for mop in ("add", "sub", "mul", "div"):
    cmp(f"geo send_uv {mop}", lambda P, x, y, s, d, mop=mop: P.geometric.send_uv(
        x, y, s, d, mop), [A((4, 3)), A((4, 3), 0.5, 2.0), SRC, DST])
cmp("geo graph_send_recv", lambda P, x, s, d: P.incubate.graph_send_recv(x, s, d, "mean"),
    [A((4, 3)), SRC, DST])
cmp("geo unsorted segment ids", lambda P, x, i: P.geometric.segment_sum(x, i),
    [A((3, 2)), np.array([1, 0, 1], "int64")])
cmp("geo reindex_graph", lambda P, x, n, c: P.geometric.reindex_graph(x, n, c),
    [np.array([0, 5, 9], "int64"), np.array([8, 9, 0, 4, 7, 6, 7], "int64"),
     np.array([2, 3, 2], "int32")], grad=False)
