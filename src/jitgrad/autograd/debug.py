"""Debug dumps of a backward graph (dump_backward_graph_path).

Each backward()/grad() call given a directory writes four files with one timestamp prefix
(`YYYY-MM-DD_HH:MM:SS.ffffff_`), as Paddle does for the first three:

- `backward_graph.dot`: the grad nodes (`MatmulGradNode`) and edges to their inputs' nodes;
- `ref_forward_graph.dot`: the recorded forward ops;
- `call_stack.log`: for each grad node, the user's source line that created its forward op
  (recorded for every op at creation, see `tape.Node.__init__`);
- `program.txt`: the lowered Program, one instruction per line.
"""

from __future__ import annotations

import datetime
import linecache
import os
from typing import Any

from ..core import tape
from .graph_dot import backward_graph_dot, forward_graph_dot

_last_stamp = ""


def check_dump_path(path: Any) -> str:
    if not isinstance(path, str):
        raise TypeError(f"dump_backward_graph_path must be a string, got {type(path).__name__}")
    if os.path.exists(path) and not os.path.isdir(path):
        raise NotADirectoryError(f"dump_backward_graph_path {path!r} exists and is not a "
                                 "directory")
    return path


def _stamp() -> str:
    """A timestamp prefix, distinct from the previous call's even within a microsecond."""
    global _last_stamp
    now = datetime.datetime.now()
    stamp = now.strftime("%Y-%m-%d_%H:%M:%S.%f")
    while stamp <= _last_stamp:
        now += datetime.timedelta(microseconds=1)
        stamp = now.strftime("%Y-%m-%d_%H:%M:%S.%f")
    _last_stamp = stamp
    return stamp


def dump_backward_graph(path: Any, roots: list, targets: list | None = None,
                        stop: set[int] | None = None) -> dict[str, str]:
    """Write the four dump files for a backward from `roots`; returns {kind: file path}."""
    check_dump_path(path)
    os.makedirs(path, exist_ok=True)
    prefix = os.path.join(path, _stamp() + "_")
    files = {
        "backward_graph": backward_dot(roots),
        "ref_forward_graph": forward_dot(roots),
        "call_stack": call_stack_log(roots, targets, stop),
        "program": program_text(roots, targets, stop),
    }
    written = {}
    for kind, text in files.items():
        name = prefix + kind + (".log" if kind == "call_stack" else
                                ".txt" if kind == "program" else ".dot")
        with open(name, "w", encoding="utf-8") as fh:
            fh.write(text)
        written[kind] = name
    return written


def backward_dot(roots: list) -> str:
    return backward_graph_dot(roots, addresses=True)


def forward_dot(roots: list) -> str:
    return forward_graph_dot(roots, addresses=True)


def call_stack_log(roots: list, targets: list | None = None,
                   stop: set[int] | None = None) -> str:
    """Per grad node, the file:line and function whose code created its forward op: empty
    for ops recorded while FLAGS_call_stack_level was below 3 (the default), as Paddle."""
    lines = ["Note : If you want to see the call stack information of each Node, please make "
             "sure FLAGS_call_stack_level=3 is set at runtime (paddle.set_flags("
             "{'FLAGS_call_stack_level': 3} before the forward); jitgrad then records, per op, "
             "the line outside jitgrad that created it.", ""]
    for node in tape.reachable_nodes(roots, stop):
        lines.append(f"GradNodeBase {node.grad_name} ptr : {hex(id(node))} call stack:")
        where = tape.site_line(node.site)
        if where is not None:
            filename, lineno, func = where
            lines.append(f'  File "{filename}", line {lineno}, in {func}')
            src = linecache.getline(filename, lineno).strip()
            if src:
                lines.append(f"    {src}")
        lines.append("")
    return "\n".join(lines)


def program_text(roots: list, targets: list | None = None, stop: set[int] | None = None
                 ) -> str:
    if not roots:
        return "# no output needs a gradient: nothing to run\n"
    from ..compile.executor import program_for
    return program_for(roots, targets, stop).text() + "\n"
