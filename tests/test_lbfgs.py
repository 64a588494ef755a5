"""paddle.optimizer.LBFGS against Paddle 3.3.1 (CPU): trajectories on small problems with a
fixed step and with the strong-Wolfe line search, how often the closure is called, the
state_dict round trip mid-run, and the argument checks.

EXPECTED was measured with /work/scratch/lbfgs/measure.py (`/work/peers/bin/python measure.py
paddle`, Paddle 3.3.1, CPU): the problems and optimizer arguments below are that script's.
Each row is one step(closure): (loss step returned, closure calls in the step, state
func_evals, state n_iter, parameters after the step). jitgrad reproduces float32 rows to the
bit but lsq_fixed32 (float32 matmul and mean rounding differ: 2e-5, compared at 5e-5) and
float64 to 1e-15.
"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.optimizer import LBFGS

A = np.array([[3., 1., 0.], [1., 2., .5], [0., .5, 1.]])
B = np.array([1., 0., -1.])
X = np.array([[1., 2., 0.5], [0.3, -1., 2.], [1.5, 0., -0.5], [-1., 1., 1.]])
Y = np.array([[1., 0.], [0., 2.], [1., 1.], [-1., 0.5]])


def _dt(p):
    return "float64" if p.dtype == paddle.float64 else "float32"


def quad(ps):
    """0.5 x'Ax - b'x, minimum at A^-1 b."""
    x, = ps
    return 0.5 * (x * paddle.matmul(paddle.to_tensor(A.astype(_dt(x))), x)).sum() - \
        (paddle.to_tensor(B.astype(_dt(x))) * x).sum()


def rosen(ps):
    x, = ps
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def lsq(ps):
    """Least squares of X W + b against Y: two parameters."""
    W, b = ps
    out = paddle.matmul(paddle.to_tensor(X.astype(_dt(W))), W) + b
    return ((out - paddle.to_tensor(Y.astype(_dt(W)))) ** 2).mean()


CASES = {
    'quad_fixed': (quad, [[1., -2., .5]], 'float32',
                   dict(learning_rate=1.0, max_iter=4, history_size=2), 3),
    'quad_wolfe': (quad, [[1., -2., .5]], 'float32',
                   dict(learning_rate=1.0, max_iter=5, history_size=3,
                        line_search_fn='strong_wolfe'), 2),
    'quad_fixed_lr': (quad, [[1., -2., .5]], 'float32',
                      dict(learning_rate=0.3, max_iter=3, history_size=2), 3),
    'rosen_wolfe': (rosen, [[-1.5, 2.0]], 'float32',
                    dict(learning_rate=1.0, max_iter=20, line_search_fn='strong_wolfe'), 3),
    'rosen_fixed': (rosen, [[-1.5, 2.0]], 'float32',
                    dict(learning_rate=0.1, max_iter=6, history_size=4), 3),
    'lsq_wolfe64': (lsq, [np.full((3, 2), .1), [0., 0.]], 'float64',
                    dict(learning_rate=1.0, max_iter=4, line_search_fn='strong_wolfe'), 2),
    'lsq_fixed32': (lsq, [np.full((3, 2), .1), [0., 0.]], 'float32',
                    dict(learning_rate=0.5, max_iter=5, history_size=3), 2),
    # stops on tolerance_grad / tolerance_change, and on max_eval
    'quad_tol': (quad, [[1., -2., .5]], 'float32',
                 dict(max_iter=50, tolerance_grad=1e-3, tolerance_change=1e-4,
                      line_search_fn='strong_wolfe'), 2),
    'quad_maxeval': (quad, [[1., -2., .5]], 'float32',
                     dict(max_iter=10, max_eval=4, learning_rate=0.2), 2),
    # weight_decay and grad_clip are accepted and not applied (Paddle): quad_fixed's rows
    'quad_fixed_decay_clip': (quad, [[1., -2., .5]], 'float32',
                              dict(learning_rate=1.0, max_iter=4, history_size=2,
                                   weight_decay=0.5,
                                   grad_clip=paddle.nn.ClipGradByNorm(0.01)), 3),
}

EXPECTED = {
    'quad_fixed': [
        (2.625, 4, 4, 4, [
            [0.10485805571079254, 0.007056698203086853, -1.0803568363189697],
        ]),
        (-0.5881587266921997, 4, 8, 8, [
            [0.2940681576728821, 0.11783497035503387, -1.0593959093093872],
        ]),
        (-0.6764705181121826, 2, 10, 10, [
            [0.2941136956214905, 0.11764772236347198, -1.0588222742080688],
        ]),
    ],
    'quad_wolfe': [
        (2.625, 6, 6, 5, [
            [0.29321202635765076, 0.11913090944290161, -1.0588867664337158],
        ]),
        (-0.676468551158905, 3, 9, 8, [
            [0.29411616921424866, 0.1176518127322197, -1.058841586112976],
        ]),
    ],
    'quad_fixed_lr': [
        (2.625, 3, 3, 2, [
            [0.8204178810119629, -1.244386911392212, 0.24314171075820923],
        ]),
        (0.8382113575935364, 3, 6, 4, [
            [0.5344448685646057, -0.5555897951126099, -0.37752464413642883],
        ]),
        (-0.2956377863883972, 3, 9, 6, [
            [0.4138495922088623, -0.1760084331035614, -0.7660346031188965],
        ]),
    ],
    'rosen_wolfe': [
        (12.5, 25, 25, 19, [
            [-0.08534476906061172, -0.028848957270383835],
        ]),
        (1.308530330657959, 25, 50, 39, [
            [1.0005422830581665, 1.0010600090026855],
        ]),
        (3.555527712251205e-07, 2, 52, 41, [
            [0.9999780058860779, 0.9999558925628662],
        ]),
    ],
    'rosen_fixed': [
        (12.5, 6, 6, 6, [
            [-1.4222267866134644, 2.0237088203430176],
        ]),
        (5.867279052734375, 6, 12, 12, [
            [-1.4171171188354492, 2.016077756881714],
        ]),
        (5.848628520965576, 6, 18, 18, [
            [-1.2841308116912842, 1.6822052001953125],
        ]),
    ],
    'lsq_wolfe64': [
        (0.8811000000000002, 5, 5, 4, [
            [[0.8242297344374837, 0.32532766530375584],
             [0.06465820793134, -0.4761465521454581],
             [-0.04893460675475482, 0.44060994859712455]],
            [-0.07127285712989372, 0.622606134379944],
        ]),
        (0.02402888705001774, 5, 10, 7, [
            [[0.9492149235608363, 0.10154516614269891],
             [0.16819378640924013, -0.5844697174538367],
             [0.1265474230707712, 0.2054295852814622]],
            [-0.354236663423424, 0.9688531197678784],
        ]),
    ],
    'lsq_fixed32': [
        (0.8810999989509583, 5, 5, 5, [
            [[0.7546213865280151, 0.3056706190109253],
             [0.08311666548252106, -0.4409402906894684],
             [-0.08518940955400467, 0.48283886909484863]],
            [-0.0333566814661026, 0.5284818410873413],
        ]),
        (0.031256288290023804, 5, 10, 10, [
            [[0.9214335083961487, 0.10849805176258087],
             [0.1739111840724945, -0.5516177415847778],
             [0.11261225491762161, 0.24115455150604248]],
            [-0.33101361989974976, 0.9463194012641907],
        ]),
    ],
    'quad_tol': [
        (2.625, 6, 6, 6, [
            [0.2932286858558655, 0.11906209588050842, -1.0587730407714844],
        ]),
        (-0.676468551158905, 1, 7, 7, [
            [0.2932286858558655, 0.11906209588050842, -1.0587730407714844],
        ]),
    ],
    'quad_maxeval': [
        (2.625, 4, 4, 3, [
            [0.7688495516777039, -1.1630419492721558, 0.09950901567935944],
        ]),
        (0.6229005455970764, 4, 8, 6, [
            [0.5365959405899048, -0.5372194647789001, -0.46081554889678955],
        ]),
    ],
    'quad_fixed_decay_clip': [
        (2.625, 4, 4, 4, [
            [0.10485805571079254, 0.007056698203086853, -1.0803568363189697],
        ]),
        (-0.5881587266921997, 4, 8, 8, [
            [0.2940681576728821, 0.11783497035503387, -1.0593959093093872],
        ]),
        (-0.6764705181121826, 2, 10, 10, [
            [0.2941136956214905, 0.11764772236347198, -1.0588222742080688],
        ]),
    ],
}


def _make(inits, dtype):
    ps = []
    for v in inits:
        v = np.asarray(v, dtype)
        p = paddle.create_parameter(list(v.shape), dtype)
        p.set_value(v)
        ps.append(p)
    return ps


def _setup(name, **extra):
    f, inits, dtype, kw, steps = CASES[name]
    ps = _make(inits, dtype)
    opt = LBFGS(parameters=ps, **{**kw, **extra})
    calls = [0]

    def closure():
        calls[0] += 1
        opt.clear_grad()
        loss = f(ps)
        loss.backward()
        return loss
    return ps, opt, closure, calls, steps


def _check_row(name, row, loss, calls, st, ps):
    rtol = {'lsq_fixed32': 5e-5, 'lsq_wolfe64': 1e-12}.get(name, 1e-5)
    want_loss, want_calls, want_evals, want_iter, want_params = row
    assert (calls, st['func_evals'], st['n_iter']) == (want_calls, want_evals, want_iter)
    np.testing.assert_allclose(float(loss), want_loss, rtol=rtol, atol=1e-7)
    for p, w in zip(ps, want_params):
        np.testing.assert_allclose(p.numpy(), np.array(w), rtol=rtol, atol=1e-7)


@pytest.mark.parametrize("name", list(CASES))
def test_trajectory_matches_paddle(name):
    ps, opt, closure, calls, steps = _setup(name)
    assert len(EXPECTED[name]) == steps
    for row in EXPECTED[name]:
        calls[0] = 0
        loss = opt.step(closure)
        _check_row(name, row, loss, calls[0], opt.state_dict()['state'], ps)


def test_step_returns_the_first_loss_of_the_step():
    ps, opt, closure, calls, _ = _setup('rosen_wolfe')
    first = []

    def spy():
        out = closure()
        first.append(out)
        return out
    out = opt.step(spy)
    assert out is first[0] and isinstance(out, paddle.Tensor)
    assert float(out) == 12.5


@pytest.mark.parametrize("name", ['rosen_wolfe', 'quad_fixed'])
def test_state_dict_round_trip_mid_run(name, tmp_path):
    """Save after one step, load into a fresh optimizer over fresh parameters (set to the
    saved values), and the next steps are the uninterrupted run's (Paddle's rows).
    Paddle 3.3.1's set_state_dict leaves LBFGS's memory unused (it restarts); jitgrad's
    restores it."""
    ps, opt, closure, calls, _ = _setup(name)
    opt.step(closure)
    sd = opt.state_dict()
    assert sorted(sd) == ['state']
    assert sorted(sd['state']) == sorted(['func_evals', 'n_iter', 'd', 'alpha', 'old_yk',
                                          'old_sk', 'ro', 'H_diag', 'prev_flat_grad',
                                          'prev_loss'])
    paddle.save(sd, str(tmp_path / "lbfgs.pdopt"))
    values = [p.numpy() for p in ps]
    d_saved = sd['state']['d'].numpy().copy()
    opt.step(closure)                   # the state dict is a copy: later steps leave it
    np.testing.assert_array_equal(sd['state']['d'].numpy(), d_saved)

    ps2, opt2, closure2, calls2, _ = _setup(name)
    for p, v in zip(ps2, values):
        p.set_value(v)
    opt2.set_state_dict(paddle.load(str(tmp_path / "lbfgs.pdopt")))
    for row in EXPECTED[name][1:]:
        calls2[0] = 0
        loss = opt2.step(closure2)
        _check_row(name, row, loss, calls2[0], opt2.state_dict()['state'], ps2)


def test_converged_returns_after_one_call():
    ps = _make([[1., 1.]], 'float32')
    opt = LBFGS(parameters=ps, line_search_fn='strong_wolfe')
    calls = [0]

    def closure():
        calls[0] += 1
        opt.clear_grad()
        loss = rosen(ps)
        loss.backward()
        return loss
    assert float(opt.step(closure)) == 0.0
    assert calls[0] == 1
    assert opt.state_dict() == {'state': {'func_evals': 1, 'n_iter': 0}}
    np.testing.assert_array_equal(ps[0].numpy(), [1., 1.])


def test_closure_returning_a_float_and_get_lr():
    ps, opt, closure, _, _ = _setup('quad_fixed_lr')
    assert opt.get_lr() == 1.0          # Paddle: the base class gets 1.0
    assert opt.learning_rate == 0.3
    out = opt.step(lambda: float(closure()))
    assert out == 2.625


def test_all_groups_are_optimized():
    """Paddle 3.3.1 optimizes only the last group's parameters; jitgrad all of them (a
    group's learning_rate is not read, as in Paddle)."""
    a, b = _make([[1., 2.], [1., 2.]], 'float32')
    opt = LBFGS(parameters=[{'params': [a]}, {'params': [b], 'learning_rate': 0.5}],
                line_search_fn='strong_wolfe')

    def closure():
        opt.clear_grad()
        loss = ((a - 3) ** 2).sum() + ((b - 3) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    np.testing.assert_allclose(a.numpy(), [3., 3.], atol=1e-5)
    np.testing.assert_allclose(b.numpy(), [3., 3.], atol=1e-5)


def test_a_graph_recorded_before_the_step_is_stale():
    ps, opt, closure, _, _ = _setup('quad_fixed')
    loss = quad(ps)
    version = ps[0]._version
    opt.step(closure)
    assert ps[0]._version > version
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        loss.backward()


def test_errors():
    ps = _make([[1., 2.]], 'float32')
    opt = LBFGS(parameters=ps)
    assert 'LBFGS' in dir(paddle.optimizer) and paddle.optimizer.LBFGS is LBFGS
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'closure'"):
        opt.step()
    with pytest.raises(TypeError, match="closure must be callable"):
        opt.step(None)
    with pytest.raises(NotImplementedError, match="does not use this way to minimize"):
        opt.minimize(None)
    with pytest.raises(ValueError, match="only 'strong_wolfe' is supported"):
        LBFGS(parameters=ps, line_search_fn='backtracking')
    with pytest.raises(ValueError, match="parameters"):
        LBFGS()
    with pytest.raises(TypeError, match="parameters must be a list"):
        LBFGS(parameters=ps[0])
    with pytest.raises(ValueError, match="parameters is empty"):
        LBFGS(parameters=[])
    with pytest.raises(TypeError, match="learning_rate must be a float"):
        LBFGS(learning_rate=paddle.optimizer.lr.StepDecay(1.0, 2), parameters=ps)
    with pytest.raises(ValueError, match="history_size must be an integer >= 1"):
        LBFGS(parameters=ps, history_size=0)
    with pytest.raises(TypeError, match=r"\{'state': \{\.\.\.\}\}"):
        opt.set_state_dict({'d': 1})
    with pytest.raises(ValueError, match="unknown entries"):
        opt.set_state_dict({'state': {'momentum': 1}})
    with pytest.raises(ValueError, match="has shape \\[3\\], but the parameters have 2"):
        opt.set_state_dict({'state': {'d': paddle.zeros([3])}})
    opt.set_state_dict({'state': {}})
    assert opt.state_dict() == {'state': {}}
