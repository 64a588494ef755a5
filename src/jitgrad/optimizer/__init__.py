"""paddle.optimizer: the optimizers and `paddle.optimizer.lr`, the learning-rate schedulers.

optimizers.py and optimizers_more.py (NAdam, RAdam, ASGD, Rprop) hold the update rules,
state.py their state_dict layout (Paddle's names), lr_schedulers.py and lr_cycles.py the
schedulers, lbfgs.py LBFGS (driven by a closure).
"""

import sys

from ..core.namespace import Namespace
from . import lr_cycles, lr_schedulers
from .optimizers import (SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Lamb, Momentum, Optimizer,
                         RMSProp)
from .lbfgs import LBFGS
from .optimizers_more import ASGD, NAdam, RAdam, Rprop

_SCHEDULERS = ("LRScheduler", "StepDecay", "MultiStepDecay", "ExponentialDecay",
               "CosineAnnealingDecay", "LambdaDecay", "PiecewiseDecay", "LinearWarmup",
               "NoamDecay", "NaturalExpDecay", "InverseTimeDecay", "PolynomialDecay",
               "MultiplicativeDecay", "LinearLR")
_CYCLES = ("OneCycleLR", "CyclicLR", "ReduceOnPlateau", "CosineAnnealingWarmRestarts")

lr = Namespace("jitgrad.optimizer.lr", "optimizer.lr",
               {**{n: getattr(lr_schedulers, n) for n in _SCHEDULERS},
                **{n: getattr(lr_cycles, n) for n in _CYCLES}},
               doc="Paddle's paddle.optimizer.lr: the learning-rate schedulers.")
sys.modules.setdefault(lr.__name__, lr)     # `from paddle.optimizer.lr import StepDecay`

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "RMSProp", "Adagrad", "Adamax",
           "Adadelta", "Lamb", "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS", "lr"]


def __dir__() -> list[str]:
    return sorted(__all__)
