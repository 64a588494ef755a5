"""paddle.geometric: message passing and segment reductions. Values are Paddle 3.3.1's
(measured by /work/scratch/s20/geo_probe.py: 152 cases, values all equal, gradients equal
but at ties); gradients are checked against finite differences on every backward path."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

G = paddle.geometric
TT = paddle.to_tensor
SRC = np.array([0, 1, 2, 0, 2])
DST = np.array([1, 2, 1, 0, 1])
X = np.array([[1.0, -2.0], [3.0, 0.5], [-1.0, 4.0], [2.0, 2.0]])


def test_segment_reductions_give_one_row_per_segment_id_and_zero_when_empty():
    data = TT([[1.0, 2.0], [3.0, -4.0], [5.0, 6.0], [7.0, 8.0]])
    ids = TT(np.array([0, 0, 2, 2]))
    assert G.segment_sum(data, ids).tolist() == [[4.0, -2.0], [0.0, 0.0], [12.0, 14.0]]
    assert G.segment_mean(data, ids).tolist() == [[2.0, -1.0], [0.0, 0.0], [6.0, 7.0]]
    assert G.segment_max(data, ids).tolist() == [[3.0, 2.0], [0.0, 0.0], [7.0, 8.0]]
    assert G.segment_min(data, ids).tolist() == [[1.0, -4.0], [0.0, 0.0], [5.0, 6.0]]
    assert paddle.incubate.segment_sum(data, ids).tolist() == [[4.0, -2.0], [0.0, 0.0],
                                                               [12.0, 14.0]]


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_segment_gradients_match_finite_differences(op):
    data = np.random.default_rng(0).standard_normal((6, 3))
    ids = TT(np.array([0, 0, 1, 3, 3, 3], "int32"))
    check_grads(lambda d: getattr(G, "segment_" + op)(d, ids), data)


def test_send_u_recv_reduces_the_messages_into_their_destinations():
    x = TT(X)
    src, dst = TT(SRC), TT(DST)
    # node 1 receives x[0], x[2], x[2]; node 2 receives x[1]; node 0 receives x[0]
    assert G.send_u_recv(x, src, dst).tolist() == [[1.0, -2.0], [-1.0, 6.0], [3.0, 0.5],
                                                   [0.0, 0.0]]
    assert G.send_u_recv(x, src, dst, "mean").tolist() == [[1.0, -2.0], [-1 / 3, 2.0],
                                                           [3.0, 0.5], [0.0, 0.0]]
    assert G.send_u_recv(x, src, dst, "max", out_size=3).tolist() == [
        [1.0, -2.0], [1.0, 4.0], [3.0, 0.5]]
    assert G.send_u_recv(x, src, dst, "min", out_size=5).shape == [5, 2]
    assert paddle.incubate.graph_send_recv(x, src, dst, "max").tolist() == \
        G.send_u_recv(x, src, dst, "max").tolist()


@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("message_op", ["add", "sub", "mul", "div"])
def test_send_ue_recv_gradients_match_finite_differences(message_op, reduce_op):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((4, 3)), rng.uniform(0.5, 2.0, (5, 1))
    check_grads(lambda a, b: G.send_ue_recv(a, b, SRC, DST, message_op, reduce_op), x, y)


def test_send_uv_gives_one_message_per_edge():
    x, y = TT(X), TT(X * 10)
    out = G.send_uv(x, y, TT(SRC), TT(DST), "sub")
    np.testing.assert_array_equal(out.numpy(), X[SRC] - 10 * X[DST])
    check_grads(lambda a, b: G.send_uv(a, b, SRC, DST, "mul"), X, X + 1.0)


def test_a_max_tie_gives_the_gradient_once_to_the_first_row():
    # node 1 receives x[2] twice (two edges): max(x0, x2, x2) has slope 1 in x2, not 2
    # (Paddle 3.3.1 gives each tied message the whole gradient)
    x = TT(X, stop_gradient=False)
    G.send_u_recv(x, TT(SRC), TT(DST), "max").sum().backward()
    assert x.grad.tolist() == [[2.0, 1.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]
    d = TT([[1.0], [1.0], [0.5]], stop_gradient=False)
    G.segment_max(d, TT(np.array([0, 0, 0]))).backward()
    assert d.grad.tolist() == [[1.0], [0.0], [0.0]]


def test_reindex_graph_numbers_x_first_then_new_neighbors_in_order():
    x, nb = TT(np.array([0, 5, 9])), TT(np.array([8, 9, 0, 4, 7, 6, 7]))
    count = TT(np.array([2, 3, 2], "int32"))
    src, dst, nodes = G.reindex_graph(x, nb, count)
    # Paddle 3.3.1
    assert src.tolist() == [3, 2, 0, 4, 5, 6, 5] and dst.tolist() == [0, 0, 1, 1, 1, 2, 2]
    assert nodes.tolist() == [0, 5, 9, 8, 4, 7, 6] and nodes.dtype == paddle.int64
    src, dst, nodes = G.reindex_heter_graph(
        x, [nb, TT(np.array([0, 2, 3, 5, 1]))],
        [count, TT(np.array([1, 3, 1], "int32"))])
    assert src.tolist() == [3, 2, 0, 4, 5, 6, 5, 0, 7, 8, 1, 9]
    assert dst.tolist() == [0, 0, 1, 1, 1, 2, 2, 0, 1, 1, 1, 2]
    assert nodes.tolist() == [0, 5, 9, 8, 4, 7, 6, 2, 3, 1]


def test_bad_arguments_raise_with_the_reason():
    x = TT(X)
    with pytest.raises(ValueError, match="sorted"):
        G.segment_sum(x, TT(np.array([1, 0, 1, 2])))
    with pytest.raises(ValueError, match="reduce_op"):
        G.send_u_recv(x, TT(SRC), TT(DST), "prod")
    with pytest.raises(ValueError, match="message_op"):
        G.send_uv(x, x, TT(SRC), TT(DST), "pow")
    with pytest.raises(ValueError, match="one row per edge"):
        G.send_ue_recv(x, TT(np.ones((1, 2))), TT(SRC), TT(DST))
    with pytest.raises(ValueError, match="out of range"):
        G.send_u_recv(x, TT(SRC), TT(DST), out_size=2)
    with pytest.raises(TypeError, match="integers"):
        G.send_u_recv(x, TT(SRC.astype("float32")), TT(DST))
    with pytest.raises(TypeError, match="same dtype"):
        G.send_u_recv(x, TT(SRC.astype("int32")), TT(DST))
