"""paddle.distribution's ReshapeTransform, SoftmaxTransform, StackTransform and
StickBreakingTransform (missing before): values measured on Paddle 3.3.1, log-det-Jacobians
against finite-difference Jacobians, gradients against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

from distribution_helpers import close, t64

D = paddle.distribution


_X = [[0.3, -0.5], [0.1, 0.7]]


def test_stick_breaking_values_match_paddle():
    sb = D.StickBreakingTransform()
    x = t64(_X)
    y = sb.forward(x)
    close(y, [[0.40295991, 0.22540691, 0.37163317],
              [0.35591307, 0.43037101, 0.21371592]])                  # Paddle 3.3.1
    close(y.sum(-1), [1.0, 1.0], 1e-12)
    close(sb.forward_log_det_jacobian(x), [-3.3886142, -3.41928402])  # Paddle 3.3.1
    close(sb.inverse(y), _X, 1e-12)
    close(sb.inverse_log_det_jacobian(y), [3.3886142, 3.41928402])
    assert sb.forward_shape([4, 2]) == (4, 3) and sb.inverse_shape([4, 3]) == (4, 2)
    assert (sb._domain.event_rank, sb._codomain.event_rank) == (1, 1) and sb._is_injective()
    with pytest.raises(ValueError, match="empty"):
        sb.forward_shape([])


def test_stick_breaking_log_det_is_the_jacobian_of_the_first_k_outputs():
    sb = D.StickBreakingTransform()
    x0 = np.array([0.4, -1.2, 0.9])
    f = lambda v: sb.forward(t64(v)).numpy()[:-1]                    # noqa: E731
    h = 1e-6
    jac = np.stack([(f(x0 + h * e) - f(x0 - h * e)) / (2 * h) for e in np.eye(3)], 1)
    close(sb.forward_log_det_jacobian(t64(x0)), np.log(abs(np.linalg.det(jac))), 1e-6)
    check_grads(lambda x: sb.forward(x) * t64([1.0, 2.0, 3.0, 4.0]), x0)
    check_grads(lambda x: sb.forward_log_det_jacobian(x), x0)


def test_softmax_transform_matches_paddle_and_keeps_far_rows_finite():
    sm = D.SoftmaxTransform()
    x = t64(_X)
    close(sm.forward(x), [[0.68997448, 0.31002552], [0.35434369, 0.64565631]])  # Paddle
    close(sm.inverse(t64([0.2, 0.8])), np.log([0.2, 0.8]))
    assert sm._type == D.transform.Type.OTHER and not sm._is_injective()
    with pytest.raises(NotImplementedError):
        sm.forward_log_det_jacobian(x)
    # each row is shifted by its own maximum (Paddle 3.3.1 uses the first row's: NaN here)
    close(sm.forward(t64([[0.0, 1.0], [1000.0, 1001.0]])),
          [[0.26894142, 0.73105858], [0.26894142, 0.73105858]])
    check_grads(lambda v: sm.forward(v) * t64([[1.0, 2.0], [3.0, 5.0]]), np.array(_X))


def test_stack_transform_matches_paddle():
    st = D.StackTransform([D.ExpTransform(), D.TanhTransform()], axis=1)
    x = t64(_X)
    close(st.forward(x), [[1.34985881, -0.46211716], [1.10517092, 0.60436778]])  # Paddle
    close(st.forward_log_det_jacobian(x), [[0.3, -0.24022901], [0.1, -0.45454046]])
    close(st.inverse(t64([[1.5, 0.5]])), [[0.40546511, 0.54930614]])           # Paddle
    assert st.axis == 1 and len(st.transforms) == 2 and st._is_injective()
    with pytest.raises(ValueError, match="number of transforms"):
        st.forward(t64([[0.1, 0.2, 0.3]]))
    with pytest.raises(TypeError):
        D.StackTransform([])
    check_grads(lambda v: st.forward(v) + st.forward_log_det_jacobian(v), np.array(_X))


def test_reshape_transform_matches_paddle():
    rt = D.ReshapeTransform((2, 3), (3, 2))
    x = paddle.arange(12, dtype="float64").reshape([2, 2, 3])
    y = rt.forward(x)
    assert y.shape == [2, 3, 2] and y.numpy().ravel().tolist() == list(range(12))
    assert rt.inverse(y).shape == [2, 2, 3]
    assert rt.forward_log_det_jacobian(paddle.ones([5, 2, 3])).shape == [5]
    assert rt.forward_shape([4, 2, 3]) == (4, 3, 2) and rt.inverse_shape([4, 3, 2]) == (4, 2, 3)
    assert (rt.in_event_shape, rt.out_event_shape) == ((2, 3), (3, 2))
    with pytest.raises(ValueError, match="mismatch"):
        rt.forward_shape([2, 3, 2])
    with pytest.raises(ValueError, match="numbers of elements|different numbers"):
        D.ReshapeTransform((2, 3), (4,))


def test_transformed_distribution_onto_the_simplex():
    base = D.Independent(D.Normal(t64([0.5, 1.0]), t64([2.0, 1.0])), 1)
    td = D.TransformedDistribution(base, [D.StickBreakingTransform()])
    assert (td.batch_shape, td.event_shape) == ((), (3,))
    close(td.log_prob(t64([0.2, 0.3, 0.5])), -0.34371341)                  # Paddle 3.3.1
    assert td.sample([4]).shape == [4, 3]
