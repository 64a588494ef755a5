"""paddle.regularizer: weight decay coefficients the optimizers accept as weight_decay."""


class L2Decay:
    """Adds coeff * p to each gradient (or, in AdamW, decays p directly)."""

    def __init__(self, coeff: float = 0.0) -> None:
        self.coeff = float(coeff)

    def __repr__(self) -> str:
        return f"L2Decay(coeff={self.coeff})"
