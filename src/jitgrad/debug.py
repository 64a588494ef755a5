"""Debug dumps of a backward graph (dump_backward_graph_path)."""

from __future__ import annotations

import os
from typing import Any


def check_dump_path(path: Any) -> str:
    if not isinstance(path, str):
        raise TypeError(f"dump_backward_graph_path must be a string, got {type(path).__name__}")
    if os.path.exists(path) and not os.path.isdir(path):
        raise NotADirectoryError(f"dump_backward_graph_path {path!r} exists and is not a "
                                 "directory")
    return path


def dump_backward_graph(path: Any, roots: list) -> None:
    check_dump_path(path)
    raise NotImplementedError("dump_backward_graph_path is not implemented yet in this "
                              "version of jitgrad")
