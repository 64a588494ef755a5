"""Layer forms of ops/losses_seq.py, ops/losses_sampled.py and
ops/pool_fractional.py, as name -> class in NAMES."""

from __future__ import annotations

from ..core.dtypes import get_default_dtype
from ..ops import losses_sampled as _smp
from ..ops import losses_seq as _seq
from ..ops import pool_fractional as _frac
from .layer import Layer

NAMES: dict = {}


# ---- CTCLoss, RNNTLoss: layer forms of ops/losses_seq.py -------------------------------------


class CTCLoss(Layer):
    """Paddle's CTCLoss(blank, reduction, zero_infinity): forward(log_probs, labels,
    input_lengths, label_lengths, norm_by_times=False) is nn.functional.ctc_loss."""

    def __init__(self, blank: int = 0, reduction: str = "mean",
                 zero_infinity: bool = False) -> None:
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths,
                norm_by_times: bool = False):
        return _seq.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                             self.reduction, norm_by_times=norm_by_times,
                             zero_infinity=self.zero_infinity)


class RNNTLoss(Layer):
    """Paddle's RNNTLoss(blank, fastemit_lambda, reduction): forward(input, label,
    input_lengths, label_lengths) is nn.functional.rnnt_loss."""

    def __init__(self, blank: int = 0, fastemit_lambda: float = 0.001,
                 reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        self.blank, self.fastemit_lambda = blank, fastemit_lambda
        self.reduction, self.name = reduction, name

    def forward(self, input, label, input_lengths, label_lengths):
        return _seq.rnnt_loss(input, label, input_lengths, label_lengths, blank=self.blank,
                              fastemit_lambda=self.fastemit_lambda,
                              reduction=self.reduction, name=self.name)


NAMES.update(CTCLoss=CTCLoss, RNNTLoss=RNNTLoss)


# ---- FractionalMaxPool2D, FractionalMaxPool3D: layer forms of ops/pool_fractional.py -----------


class FractionalMaxPool2D(Layer):
    """Paddle's FractionalMaxPool2D(output_size, kernel_size, random_u, return_mask):
    forward(x) is nn.functional.fractional_max_pool2d."""

    _fn = staticmethod(_frac.fractional_max_pool2d)

    def __init__(self, output_size, kernel_size=None, random_u: float | None = None,
                 return_mask: bool = False, name: str | None = None) -> None:
        super().__init__()
        self._output_size, self._kernel_size = output_size, kernel_size
        self._random_u, self._return_mask, self._name = random_u, return_mask, name

    def forward(self, x):
        return self._fn(x, output_size=self._output_size, kernel_size=self._kernel_size,
                        random_u=self._random_u, return_mask=self._return_mask,
                        name=self._name)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class FractionalMaxPool3D(FractionalMaxPool2D):
    """Paddle's FractionalMaxPool3D: forward(x) is nn.functional.fractional_max_pool3d."""

    _fn = staticmethod(_frac.fractional_max_pool3d)


NAMES.update(FractionalMaxPool2D=FractionalMaxPool2D, FractionalMaxPool3D=FractionalMaxPool3D)


# ---- MultiLabelMarginLoss, HSigmoidLoss, AdaptiveLogSoftmaxWithLoss: ops/losses_sampled.py -----


class MultiLabelMarginLoss(Layer):
    """forward(input, label) is nn.functional.multi_label_margin_loss."""

    def __init__(self, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        if reduction not in ("sum", "mean", "none"):
            raise ValueError("'reduction' in 'MultiLabelMarginLoss' should be 'sum', 'mean' or "
                             f"'none', but received {reduction}.")
        self.reduction, self.name = reduction, name

    def forward(self, input, label):
        return _smp.multi_label_margin_loss(input, label, reduction=self.reduction)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid with its parameters, as Paddle's: weight [num_classes - 1,
    feature_size] (Xavier) and bias [num_classes - 1, 1] (zeros; none with bias_attr=False);
    with is_custom=True, [num_classes, ...] and forward takes path_table and path_code."""

    def __init__(self, feature_size: int, num_classes: int, weight_attr=None, bias_attr=None,
                 is_custom: bool = False, is_sparse: bool = False,
                 name: str | None = None) -> None:
        super().__init__(dtype=get_default_dtype())     # the default dtype, as Paddle
        if num_classes < 2 and not is_custom:
            raise ValueError("num_classes must not be less than 2 with default tree")
        self._feature_size, self._num_classes = feature_size, num_classes
        self._is_custom, self._is_sparse = is_custom, bool(is_sparse and is_custom)
        self._name = name
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], weight_attr)
        self.bias = None if bias_attr is False else \
            self.create_parameter([rows, 1], bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        return _smp.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias,
                                  path_table=path_table, path_code=path_code,
                                  is_sparse=self._is_sparse)


class AdaptiveLogSoftmaxWithLoss(Layer):
    """Adaptive softmax (Grave et al.) as Paddle's: head_weight [in_features, cutoffs[0] +
    clusters] (and head_bias [that] with head_bias=True), tail_weights a list of
    [in_features, hsz], [hsz, osz] pairs with hsz = in_features // div_value^(i + 1). As in
    Paddle, only head_weight and head_bias are registered parameters; forward(input, label)
    gives (output, loss)."""

    def __init__(self, in_features: int, n_classes: int, cutoffs, weight_attr=None,
                 bias_attr=None, div_value: float = 4.0, head_bias: bool = False,
                 name: str | None = None) -> None:
        super().__init__(dtype=get_default_dtype())     # the default dtype, as Paddle
        cutoffs = list(cutoffs)
        if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 \
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = [*cutoffs, n_classes]
        self.div_value, self.is_head_bias, self.name = div_value, head_bias, name
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head_weight = self.create_parameter([in_features, self.head_size], weight_attr)
        self.head_bias = self.create_parameter([self.head_size], bias_attr, is_bias=True) \
            if head_bias and bias_attr is not False else None
        self.tail_weights = []
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail_weights.append([self.create_parameter([in_features, hsz], weight_attr),
                                      self.create_parameter([hsz, osz], weight_attr)])

    def forward(self, input, label):
        return _smp.adaptive_log_softmax_with_loss(input, label, self.head_weight,
                                                   self.tail_weights, self.cutoffs,
                                                   self.head_bias)

    def log_prob(self, input):
        """[N, n_classes] log-probabilities of every class."""
        from ..ops.elementwise import astype
        out = _smp.full_log_prob(input, self.head_weight, self.head_bias, self.tail_weights,
                                 self.cutoffs)
        dt = get_default_dtype()
        return out if out.dtype.name == dt else astype(out, dt)

    def predict(self, input):
        """The most likely class of each row: float32 (the head's argmax) unless no row's
        head argmax falls in the shortlist, then the full argmax as int64 (Paddle's types)."""
        import numpy as np
        from ..core.tensor import Tensor
        from ..ops.linear_embedding import linear
        head = linear(input, self.head_weight, self.head_bias)._data
        out = head.argmax(axis=1).astype(np.float32)
        tail = out >= self.shortlist_size
        if not tail.any():
            return Tensor._make(out)
        full = self.log_prob(input)._data.argmax(axis=1)
        if tail.all():
            return Tensor._make(full.astype(np.int64))
        out[tail] = full[tail]
        return Tensor._make(out)


NAMES.update(MultiLabelMarginLoss=MultiLabelMarginLoss, HSigmoidLoss=HSigmoidLoss,
             AdaptiveLogSoftmaxWithLoss=AdaptiveLogSoftmaxWithLoss)
