"""paddle.callbacks: the callbacks of paddle.Model.fit / evaluate / predict
(jitgrad/hapi/callbacks.py)."""

from .hapi.callbacks import (
    Callback,
    EarlyStopping,
    LRScheduler,
    ModelCheckpoint,
    ProgBarLogger,
    ReduceLROnPlateau,
    VisualDL,
    WandbCallback,
)

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL",  # noqa: RUF022
           "LRScheduler", "EarlyStopping", "ReduceLROnPlateau", "WandbCallback"]  # (Paddle's order)
