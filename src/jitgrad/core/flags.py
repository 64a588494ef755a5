"""paddle.set_flags / paddle.get_flags, for the one Paddle flag jitgrad has:
FLAGS_call_stack_level.

At 3 every recorded op keeps the line outside jitgrad that created it, and the
`_call_stack.log` of dump_backward_graph_path shows it; below 3 (Paddle's default is 1)
nothing is recorded and the log's entries are empty, as Paddle 3.3.1 writes them
(measured). Walking out of jitgrad's frames to that line cost ~0.3 us of an op's ~2, so,
as in Paddle (and torch's anomaly mode), the stacks are paid for only when asked for. The
level in force when an op runs is the one that counts. The environment variable
FLAGS_call_stack_level sets the starting level (config.py), as Paddle reads it at import.
"""

from __future__ import annotations

from typing import Any

from . import tape
from .config import SETTINGS

_KNOWN = ("FLAGS_call_stack_level",)
_levels = {"FLAGS_call_stack_level": SETTINGS.call_stack_level}


def _apply() -> None:
    tape.call_sites = _levels["FLAGS_call_stack_level"] >= 3


def _check_name(name: Any, verb: str) -> str:
    if name not in _KNOWN:
        raise ValueError(f"Flag {name} cannot {verb} its value through this function "
                         f"(jitgrad has {', '.join(_KNOWN)})")
    return name


def set_flags(flags: dict) -> None:
    """Set flags by name, as `paddle.set_flags({'FLAGS_call_stack_level': 3})`."""
    if not isinstance(flags, dict):
        raise TypeError("flags in set_flags should be a dict")
    for name, value in flags.items():       # (all checked before any is set)
        _check_name(name, "set")
        if not isinstance(value, int):      # (a bool is one: Paddle casts True to 1)
            raise TypeError(f"set_flags: {name} takes an int, got "
                            f"{type(value).__name__} {value!r}")
    for name, value in flags.items():
        _levels[name] = int(value)
    _apply()


def get_flags(flags: str | list | tuple) -> dict:
    """The flags' values by name: `paddle.get_flags(['FLAGS_call_stack_level'])`."""
    if isinstance(flags, str):
        flags = [flags]
    elif not isinstance(flags, (list, tuple)):
        raise TypeError("Flags in get_flags should be a list, tuple or string.")
    return {_check_name(name, "get"): _levels[name] for name in flags}


_apply()
