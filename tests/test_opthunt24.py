"""Optimizer results measured bitwise against Paddle 3.3.1 (CPU, float32, OMP_NUM_THREADS=1)."""
import numpy as np

import jitgrad as paddle


def _adam_three_steps():
    rng = np.random.RandomState(3)
    p0 = rng.randn(8).astype("float32")
    grads = rng.randn(3, 8).astype("float32")
    p = paddle.create_parameter([8], "float32")
    p.set_value(paddle.to_tensor(p0))
    opt = paddle.optimizer.Adam(0.01, parameters=[p])
    for g in grads:
        (p * paddle.to_tensor(g)).sum().backward()
        opt.step()
        opt.clear_grad()
    state = opt.state_dict()
    moment = {k.rsplit("_", 2)[-2]: v.numpy() for k, v in state.items() if "moment" in k}
    return p.numpy(), moment["moment1"], moment["moment2"]


def test_adam_moments_and_parameter_round_as_paddles_fma_kernel():
    # was: b * m + (1 - b) * g rounded twice and (1 - b2) * g * g grouped left to right,
    # 1 ulp off Paddle in moment2 from step 1 and in moment1 / the parameter from step 2.
    # Values printed by Paddle 3.3.1 for the same run.
    param, m1, m2 = _adam_three_steps()
    np.testing.assert_array_equal(param, np.array([
        1.8151136636734009, 0.4645986557006836, 0.10578456521034241, -1.8699301481246948,
        -0.28110814094543457, -0.37409141659736633, -0.10856176167726517,
        -0.6208312511444092], "float32"))
    np.testing.assert_array_equal(m1, np.array([
        -0.15501020848751068, -0.24913698434829712, 0.04451454058289528,
        -0.04349302500486374, -0.11215109378099442, 0.09696386754512787,
        0.2123117446899414, 0.18613672256469727], "float32"))
    np.testing.assert_array_equal(m2, np.array([
        0.0013471549609676003, 0.003124801442027092, 0.0030777622014284134,
        0.002017868682742119, 0.0027691738214343786, 0.003011922584846616,
        0.002764000091701746, 0.004124375991523266], "float32"))
