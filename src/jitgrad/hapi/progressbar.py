"""The progress line paddle.Model's ProgBarLogger prints, in Paddle 3.3.1's format:
verbose=2 prints one line per update ("step  4/10 - loss: 0.6931 - acc: 0.5000 - 3ms/step"),
verbose=1 redraws one line with a bar ("step 4/10 [=====>....] - loss: ... - ETA: 0s - ...").
As Paddle's, both write to sys.stdout (whatever `file` says) and verbose=1, on POSIX, always
redraws in place (backspaces and a carriage return)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import Any

import numpy as np


def _fmt_number(v: Any) -> str | None:
    """' 0.6931' (or ' 1.0000e-04' for |v| <= 1e-3) for a float or a one-element float
    array, None for anything else."""
    if isinstance(v, np.ndarray) and v.size == 1 and v.dtype in (np.float32, np.float64):
        v = v.item()
    if isinstance(v, (float, np.float32, np.float64)):
        return f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
    return None


def _fmt_values(values: Any, arrays: bool) -> str:
    info = ""
    for k, val in values:
        info += f" - {k}:"
        for v in (val if isinstance(val, list) else [val]):
            s = _fmt_number(v) if arrays or not isinstance(v, np.ndarray) else None
            info += s if s is not None else f" {v}"
    return info


class ProgressBar:
    def __init__(self, num: int | None = None, width: int = 30, verbose: int = 1,
                 start: bool = True, file: Any = sys.stdout, name: str = "step") -> None:
        if isinstance(num, int) and num <= 0:
            raise TypeError("num should be None or integer (> 0)")
        self._num = num
        cols = shutil.get_terminal_size()[0]
        cols = cols if cols > 0 else 80
        self._width = min(width, min(int(cols * 0.6), cols - 50))
        self._total_width = 0
        self._verbose = verbose
        self.file = file
        self.name = name
        self._last_update = 0.0
        if start:
            self._start = time.time()
        self._dynamic_display = ((hasattr(file, "isatty") and file.isatty())
                                 or "ipykernel" in sys.modules or "posix" in sys.modules
                                 or "PYCHARM_HOSTED" in os.environ)

    def start(self) -> None:
        self.file.flush()
        self._start = time.time()

    def _count(self, current: int) -> str:
        if self._num:
            digits = int(np.log10(self._num)) + 1
            return (f"{self.name} %{digits}d/%d") % (current, self._num)
        return f"{self.name} {current:3}"

    def update(self, current_num: int, values: Any = ()) -> None:
        now = time.time()
        per = (now - self._start) / current_num if current_num else 0
        if per >= 1 or per == 0:
            fps = f" - {per:.0f}s/{self.name}"
        elif per >= 1e-3:
            fps = f" - {per * 1e3:.0f}ms/{self.name}"
        else:
            fps = f" - {per * 1e6:.0f}us/{self.name}"

        if self._verbose == 1:
            prev = self._total_width
            sys.stdout.write("\b" * prev + "\r" if self._dynamic_display else "\n")
            if self._num is not None:
                bar = self._count(current_num) + " ["
                filled = int(self._width * float(current_num) / self._num)
                if filled > 0:
                    bar += "=" * (filled - 1) + (">" if current_num < self._num else "=")
                bar += "." * (self._width - filled) + "]"
            else:
                bar = f"{self.name} {current_num:3}"
            self._total_width = len(bar)
            sys.stdout.write(bar)
            info = _fmt_values(values, arrays=False)
            if self._num is not None and current_num < self._num:
                eta = int(per * (self._num - current_num))
                if eta > 3600:
                    eta_s = f"{eta // 3600}:{(eta % 3600) // 60:02}:{eta % 60:02}"
                elif eta > 60:
                    eta_s = f"{eta // 60}:{eta % 60:02}"
                else:
                    eta_s = f"{eta}s"
                info += f" - ETA: {eta_s}"
            info += fps
            self._total_width += len(info)
            if prev > self._total_width:
                info += " " * (prev - self._total_width)
            if self._num is None or current_num >= self._num:
                info += "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
            self._last_update = now
        elif self._verbose in (2, 3):
            info = self._count(current_num) + _fmt_values(values, arrays=True) + fps + "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
