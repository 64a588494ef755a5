"""paddle.regularizer: weight decay the optimizers accept as weight_decay, or a parameter
takes as ParamAttr(regularizer=...)."""


class WeightDecayRegularizer:
    """Base of L1Decay and L2Decay (Paddle's name)."""

    def __init__(self, coeff: float = 0.0) -> None:
        try:
            value = float(coeff)
        except (TypeError, ValueError):
            raise TypeError(f"{type(self).__name__}: coeff must be a float, got "
                            f"{coeff!r}") from None
        self.coeff = self._coeff = value

    def __repr__(self) -> str:
        return f"{type(self).__name__}(coeff={self.coeff})"


class L1Decay(WeightDecayRegularizer):
    """Adds coeff * sign(p) to each gradient."""


class L2Decay(WeightDecayRegularizer):
    """Adds coeff * p to each gradient (AdamW's own decay is decoupled; see AdamW)."""


__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]
