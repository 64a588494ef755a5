"""(being written): Layer forms of ops/losses_seq.py, ops/losses_sampled.py and
ops/pool_fractional.py, as name -> class in NAMES."""

from __future__ import annotations

NAMES: dict = {}


# ---- CTCLoss, RNNTLoss: layer forms of ops/losses_seq.py -------------------------------------
from ..ops import losses_seq as _seq  # noqa: E402
from .layer import Layer as _SeqLayer  # noqa: E402


class CTCLoss(_SeqLayer):
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


class RNNTLoss(_SeqLayer):
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
