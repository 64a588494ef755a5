"""paddle.metric, paddle.amp on a CPU and paddle.ger against Paddle 3.3.1."""
import numpy as np

_s = np.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.6, 0.3, 0.1], [0.3, 0.3, 0.4]], "float32")
_l = np.array([[1], [2], [2], [1], [0]])
_p = np.array([0.9, 0.2, 0.6, 0.4, 0.55, 0.51, 0.05])
_y = np.array([1, 0, 0, 1, 1, 0, 1])
cmp("accuracy", lambda P, s, l: P.metric.accuracy(s, l), [_s, _l], grad=False)
cmp("accuracy_k2", lambda P, s, l: P.metric.accuracy(s, l, k=2), [_s, _l], grad=False)
cmp("Accuracy_compute", lambda P, s, l: P.metric.Accuracy(topk=(1, 2)).compute(s, l), [_s, _l], grad=False)
cmp("Accuracy_update", lambda P, s, l: (lambda m: P.to_tensor([m.update(m.compute(s, l)), m.accumulate()]))(P.metric.Accuracy()), [_s, _l], grad=False)
cmp("Precision", lambda P: (lambda m: (m.update(_p, _y), P.to_tensor(m.accumulate()))[1])(P.metric.Precision()), [], grad=False)
cmp("Recall", lambda P: (lambda m: (m.update(_p, _y), P.to_tensor(m.accumulate()))[1])(P.metric.Recall()), [], grad=False)
cmp("Auc", lambda P: (lambda m: (m.update(np.stack([1 - _p, _p], 1), _y.reshape(-1, 1)), P.to_tensor(m.accumulate()))[1])(P.metric.Auc()), [], grad=False)
cmp("Auc_100", lambda P: (lambda m: (m.update(np.stack([1 - _p, _p], 1), _y.reshape(-1, 1)), P.to_tensor(m.accumulate()))[1])(P.metric.Auc(num_thresholds=100)), [], grad=False)
def _cast_linear(P, x):
    lin = P.nn.Linear(3, 3)
    lin.weight.set_value(np.eye(3, dtype="float32"))
    with P.amp.auto_cast():
        return lin(x)


cmp("auto_cast_linear", _cast_linear, [A((2, 3))])
cmp("ger", lambda P, a, b: P.ger(a, b), [A((3,)), A((4,))])
