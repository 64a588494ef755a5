"""Parameter groups, ParamAttr and grad_clip as Paddle 3.3.1's optimizers read them (values
measured on Paddle 3.3.1: /work/scratch/hunt6/optim/repro): a group's rate and weight decay
replace a parameter's ParamAttr ones, a parameter's optimize_attr and regularizer are read at
every step, and each group is clipped on its own."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.optimizer import SGD, Adam, AdamW


def _param(values):
    p = paddle.create_parameter([len(values)], "float32")
    p.set_value(np.array(values, "float32"))
    return p


def _weight(attr):
    layer = paddle.nn.Linear(1, 1, weight_attr=attr, bias_attr=False)
    layer.weight.set_value(np.array([[1.0]], "float32"))
    return layer.weight


def test_each_group_is_clipped_by_its_own_global_norm():
    a, b = _param([3.0, 4.0]), _param([0.3, 0.4])      # grads [6, 8] (norm 10), [0.6, 0.8]
    opt = SGD(1.0, grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0),
              parameters=[{"params": [a]}, {"params": [b]}])
    ((a * a).sum() + (b * b).sum()).backward()
    opt.step()
    np.testing.assert_allclose(a.numpy(), [2.4, 3.2], rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), [-0.3, -0.4], rtol=1e-6)   # norm 1: not clipped


def test_a_groups_own_grad_clip_replaces_the_optimizers():
    c, d = _param([3.0, 4.0]), _param([3.0, 4.0])
    opt = SGD(1.0, parameters=[{"params": [c], "grad_clip": paddle.nn.ClipGradByValue(0.5)},
                               {"params": [d]}])
    ((c * c).sum() + (d * d).sum()).backward()
    opt.step()
    np.testing.assert_array_equal(c.numpy(), [2.5, 3.5])
    np.testing.assert_array_equal(d.numpy(), [-3.0, -4.0])


def test_a_groups_rate_and_decay_replace_the_paramattr_ones():
    w1 = _weight(paddle.ParamAttr(learning_rate=3.0))
    w2 = _weight(paddle.ParamAttr(learning_rate=2.0))
    w3 = _weight(paddle.ParamAttr(regularizer=paddle.regularizer.L1Decay(0.5)))
    opt = SGD(0.1, parameters=[{"params": [w1, w3]}, {"params": [w2], "learning_rate": 0.5}])
    (w1.sum() + w2.sum() + w3.sum()).backward()
    opt.step()
    np.testing.assert_allclose([w1.item(), w2.item(), w3.item()], [0.9, 0.95, 0.9], rtol=1e-6)
    assert w2.optimize_attr["learning_rate"] == 0.5 and w3.regularizer is None


def test_a_groups_zero_weight_decay_turns_the_optimizers_off():
    a, b = _param([1.0]), _param([1.0])
    opt = SGD(0.1, weight_decay=0.5, parameters=[{"params": [a], "weight_decay": 0.0},
                                                 {"params": [b]}])
    (a.sum() + b.sum()).backward()                      # grads 1
    opt.step()
    np.testing.assert_allclose([a.item(), b.item()], [0.9, 0.85], rtol=1e-6)


def test_adamw_groups_keep_the_paramattr_regularizer():
    w = _weight(paddle.ParamAttr(regularizer=paddle.regularizer.L1Decay(0.5)))
    AdamW(0.1, parameters=[{"params": [w], "weight_decay": 0.0}])
    assert isinstance(w.regularizer, paddle.regularizer.L1Decay)


def test_rate_and_regularizer_set_after_construction_apply_at_the_next_step():
    w, v = _param([1.0, 2.0]), _param([1.0, 2.0])
    opt = SGD(0.1, parameters=[w, v])
    w.optimize_attr["learning_rate"] = 0.0              # freeze w
    v.regularizer = paddle.regularizer.L1Decay(1.0)
    (w.sum() + v.sum()).backward()
    opt.step()
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(v.numpy(), [0.8, 1.8], rtol=1e-6)


def test_a_parameter_in_two_groups_is_refused():
    w = _param([1.0])
    with pytest.raises(ValueError, match="more than one parameter group"):
        SGD(0.1, parameters=[{"params": [w]}, {"params": [w]}])


@pytest.mark.parametrize("given", ["tensor", "dict"])
def test_a_single_parameter_must_be_in_a_list(given):
    w = _param([1.0, 1.0])
    with pytest.raises(TypeError, match="list"):
        SGD(0.1, parameters=w if given == "tensor" else {"params": [w]})


def test_a_tensor_beta_is_read_at_every_step():
    def run(beta1):
        p = _param([1.0, -2.0])
        opt = Adam(0.1, beta1=beta1, beta2=0.6, parameters=[p])
        for step in range(2):
            (p * p * p).sum().backward()
            opt.step()
            opt.clear_grad()
            if isinstance(beta1, paddle.Tensor) and step == 0:
                beta1.set_value(np.array([0.7], "float32"))
        return p.numpy()
    changed = run(paddle.to_tensor([0.5]))
    fixed = run(0.5)
    # torch.optim.Adam(lr=0.1, betas=(0.5, 0.6)) after 2 steps: [0.8014338, -2.2002923]
    np.testing.assert_allclose(fixed, [0.8014338, -2.2002923], rtol=1e-6)
    assert not np.allclose(changed, fixed)


def test_clips_take_paddles_param_grad_pairs():
    # the global norm's clip scales the gradient in place (Paddle 3.3.1's multiply_), the
    # other two give new tensors
    for clip, want, kept in ((paddle.nn.ClipGradByGlobalNorm(1.0, group_name="g"), [0.6, 0.8],
                              [0.6, 0.8]),
                             (paddle.nn.ClipGradByNorm(1.0), [0.6, 0.8], [6.0, 8.0]),
                             (paddle.nn.ClipGradByValue(1.0), [1.0, 1.0], [6.0, 8.0])):
        p = _param([3.0, 4.0])
        (p * p).sum().backward()                        # grad [6, 8]
        (q, g), = clip([(p, p.grad)])
        assert q is p and isinstance(g, paddle.Tensor)
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-6)
        np.testing.assert_allclose(p.grad.numpy(), kept, rtol=1e-6)


def test_a_clip_base_subclass_is_used_on_pairs():
    class Halve(paddle.nn.clip.ClipGradBase):
        def _dygraph_clip(self, params_grads):
            return [(p, g * 0.5) for p, g in params_grads]
    p = _param([3.0, 4.0])
    opt = SGD(1.0, parameters=[p], grad_clip=Halve())
    (p * p).sum().backward()
    opt.step()
    np.testing.assert_array_equal(p.numpy(), [0.0, 0.0])


def test_a_scheduler_saves_the_keys_its_state_keys_names():
    L = paddle.optimizer.lr

    class Scaled(L.LRScheduler):
        def __init__(self, lr):
            self.scale = 1.0
            super().__init__(lr)

        def get_lr(self):
            return self.base_lr * self.scale

        def state_keys(self):
            self.keys = ["last_epoch", "last_lr", "scale"]
    s = Scaled(0.3)
    s.scale = 0.1
    s.step()
    assert s.state_dict() == {"last_epoch": 1, "last_lr": pytest.approx(0.03), "scale": 0.1}
    resumed = Scaled(0.3)
    resumed.set_state_dict(s.state_dict())
    resumed.step()
    assert resumed() == pytest.approx(0.03)


def test_the_base_scheduler_has_no_rule():
    with pytest.raises(NotImplementedError, match="get_lr"):
        paddle.optimizer.lr.LRScheduler(0.3)


def test_piecewise_decay_takes_the_last_value_after_the_last_boundary():
    s = paddle.optimizer.lr.PiecewiseDecay([2], [0.3, 0.05, 0.01])
    rates = []
    for _ in range(4):
        rates.append(s())
        s.step()
    assert rates == [0.3, 0.3, 0.01, 0.01] and s.base_lr == 0.1
    with pytest.raises(ValueError, match="empty"):
        paddle.optimizer.lr.PiecewiseDecay([], [0.1])


def test_a_plain_parameter_list_is_clipped_by_one_global_norm():
    a, b = _param([3.0, 4.0]), _param([0.0, 0.0])
    b.set_value(np.array([0.0, 0.0], "float32"))
    opt = SGD(1.0, grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0), parameters=[a, b])
    ((a * a).sum() + (b * 0.75).sum()).backward()      # grads [6, 8], [0.75, 0.75]
    opt.step()
    norm = np.sqrt(100 + 2 * 0.75 ** 2)
    np.testing.assert_allclose(a.numpy(), [3 - 6 / norm, 4 - 8 / norm], rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), [-0.75 / norm, -0.75 / norm], rtol=1e-6)


@pytest.mark.parametrize("step_size, error", [(1.5, TypeError), (np.int64(2), TypeError),
                                              (0, ValueError), (-1, ValueError)])
def test_step_decay_wants_a_positive_python_int_step(step_size, error):
    # Paddle 3.3.1: TypeError for anything but an int, then a positive check
    with pytest.raises(error, match="step_size"):
        paddle.optimizer.lr.StepDecay(0.1, step_size=step_size)
