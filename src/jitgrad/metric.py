"""paddle.metric: top-k accuracy as a function and the stateful Metric classes (Accuracy,
Precision, Recall, Auc) with Paddle 3.3.1's names, return types and formulas (Auc: the
trapezoid rule over num_thresholds + 1 buckets of the positive class's probability)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .core.tensor import Tensor


def _array(x: Any) -> np.ndarray:
    return np.asarray(x._data if isinstance(x, Tensor) else x)


def _top_correct(pred: np.ndarray, label: np.ndarray, k: int) -> np.ndarray:
    """[N, k]: 1 where the i-th best class of a row is its label."""
    if pred.ndim < 2:
        raise ValueError(f"accuracy: input must be [N, classes], got shape {list(pred.shape)}")
    top = np.argsort(-pred, axis=-1, kind="stable")[..., :k]
    lab = label.reshape(top.shape[:-1] + (1,))
    return (top == lab).astype(np.float32)


def accuracy(input: Tensor, label: Tensor, k: int = 1, correct: Tensor | None = None,
             total: Tensor | None = None, name: str | None = None) -> Tensor:
    """The fraction of rows whose label is among their k highest scores (a 0-d float32);
    correct / total, when given, receive the two counts."""
    hit = _top_correct(_array(input), _array(label), k).sum(-1) > 0
    if correct is not None:
        correct._data = np.asarray(hit.sum(), correct._data.dtype)    # 0-d, as Paddle's
    if total is not None:
        total._data = np.asarray(hit.size, total._data.dtype)
    return Tensor._make(np.array(hit.mean() if hit.size else 0.0, np.float32))


class Metric:
    """Paddle's Metric interface: compute (optional), update, accumulate, reset, name."""

    def compute(self, *args: Any) -> Any:
        return args

    def update(self, *args: Any) -> Any:
        raise NotImplementedError

    def accumulate(self) -> Any:
        raise NotImplementedError

    def reset(self) -> None:
        raise NotImplementedError

    def name(self) -> Any:
        return self._name


class Accuracy(Metric):
    def __init__(self, topk: int | Sequence[int] = (1,), name: str | None = None,
                 *args: Any, **kwargs: Any) -> None:
        self.topk = (topk,) if isinstance(topk, int) else tuple(topk)
        self.maxk = max(self.topk)
        base = name or "acc"
        self._name = [f"{base}_top{k}" for k in self.topk] if len(self.topk) > 1 else [base]
        self.reset()

    def compute(self, pred: Tensor, label: Tensor, *args: Any) -> Tensor:
        """[N, maxk] float32: 1 where the i-th best class is the label (a one-hot label row
        is read as its argmax, as Paddle 3.3.1)."""
        p, lab = _array(pred), _array(label)
        if lab.ndim == p.ndim and lab.shape[-1] == p.shape[-1] and lab.shape[-1] != 1:
            lab = lab.argmax(-1)
        return Tensor._make(_top_correct(p, lab, self.maxk))

    def update(self, correct: Any, *args: Any) -> Any:
        c = _array(correct)
        n = np.prod(np.array(c.shape[:-1]), dtype=np.int64)   # (numpy scalars, as Paddle's:
        accs = []                                               # its results print as such)
        for i, k in enumerate(self.topk):
            hits = float(c[..., :k].sum())
            self.total[i] += hits
            self.count[i] += n
            accs.append(hits / n if n else 0.0)
        return accs[0] if len(accs) == 1 else accs

    def accumulate(self) -> Any:
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(res) == 1 else res

    def reset(self) -> None:
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)


class _Binary(Metric):
    """Counts of a binary classifier's predictions rounded at 0.5."""

    def __init__(self, name: str, *args: Any, **kwargs: Any) -> None:
        self._name = name
        self.reset()

    def update(self, preds: Any, labels: Any) -> None:
        p = np.floor(_array(preds).astype(np.float64).ravel() + 0.5).astype(np.int64)
        y = _array(labels).astype(np.int64).ravel()
        if p.size != y.size:
            raise ValueError(f"{self._name}: preds and labels have {p.size} and {y.size} "
                             f"elements")
        self.tp += int(((p == 1) & (y == 1)).sum())
        self.fp += int(((p == 1) & (y == 0)).sum())
        self.fn += int(((p == 0) & (y == 1)).sum())

    def reset(self) -> None:
        self.tp = self.fp = self.fn = 0


class Precision(_Binary):
    def __init__(self, name: str = "precision", *args: Any, **kwargs: Any) -> None:
        super().__init__(name)

    def accumulate(self) -> float:
        seen = self.tp + self.fp
        return float(self.tp) / seen if seen else 0.0


class Recall(_Binary):
    def __init__(self, name: str = "recall", *args: Any, **kwargs: Any) -> None:
        super().__init__(name)

    def accumulate(self) -> float:
        seen = self.tp + self.fn
        return float(self.tp) / seen if seen else 0.0


class Auc(Metric):
    def __init__(self, curve: str = "ROC", num_thresholds: int = 4095, name: str = "auc",
                 *args: Any, **kwargs: Any) -> None:
        if curve != "ROC":
            raise NotImplementedError(f"Auc: only curve='ROC' is supported, got {curve!r}")
        self._num_thresholds, self._name = int(num_thresholds), name
        self.reset()

    def update(self, preds: Any, labels: Any) -> None:
        """preds [N, 2] (the second column: the positive class's probability), labels [N]
        or [N, 1] of 0 / 1."""
        p = _array(preds)
        pos = p[:, 1] if p.ndim == 2 else p.ravel()
        y = _array(labels).ravel().astype(np.int64)
        bins = (pos * self._num_thresholds).astype(np.int64)
        np.add.at(self._stat_pos, bins, y)
        np.add.at(self._stat_neg, bins, 1 - y)

    def accumulate(self) -> float:
        tot_pos = tot_neg = 0.0
        auc = 0.0
        for idx in range(self._num_thresholds, -1, -1):
            prev_pos, prev_neg = tot_pos, tot_neg
            tot_pos += self._stat_pos[idx]
            tot_neg += self._stat_neg[idx]
            auc += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0
        return auc / tot_pos / tot_neg if tot_pos > 0 and tot_neg > 0 else 0.0

    def reset(self) -> None:
        self._stat_pos = np.zeros(self._num_thresholds + 1, np.int64)
        self._stat_neg = np.zeros(self._num_thresholds + 1, np.int64)
