"""Debug dumps of a backward graph (dump_backward_graph_path).

Each backward()/grad() call given a directory writes four files with one timestamp prefix
(`YYYY-MM-DD_HH:MM:SS.ffffff_`), as Paddle does for the first three:

- `backward_graph.dot`: the grad nodes (`MatmulGradNode`) and edges to their inputs' nodes;
- `ref_forward_graph.dot`: the recorded forward ops;
- `call_stack.log`: for each grad node, the user's source line that created its forward op
  (recorded for every op at creation, see `tape.call_site`);
- `program.txt`: the lowered Program, one instruction per line.
"""

from __future__ import annotations

import datetime
import linecache
import os
from typing import Any

from . import tape

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
    try:
        from .graph_dot import backward_graph_dot
    except ImportError:                 # TODO: drop once graph_dot.py is on main
        return _minimal_backward_dot(roots)
    return backward_graph_dot(roots, addresses=True)


def forward_dot(roots: list) -> str:
    try:
        from .graph_dot import forward_graph_dot
    except ImportError:
        return _minimal_forward_dot(roots)
    return forward_graph_dot(roots, addresses=True)


def call_stack_log(roots: list, targets: list | None = None,
                   stop: set[int] | None = None) -> str:
    """Per grad node, the file:line and function whose code created its forward op."""
    lines = ["Note: Paddle writes these stacks only with FLAGS_call_stack_level=3; jitgrad "
             "records, for every op, the line outside jitgrad that created it.", ""]
    for node in tape.reachable_nodes(roots, stop):
        lines.append(f"GradNodeBase {node.grad_name} ptr : {hex(id(node))} call stack:")
        where = tape.site_line(node.site)
        if where is None:
            lines.append("  (unknown: created outside any Python frame)")
        else:
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
    from .autograd import program_for
    return program_for(roots, targets, stop).text() + "\n"


# ---- a minimal DOT writer, used until graph_dot.py is available -------------------------

def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _meta(t: Any, sep: str) -> str:
    return f"{t._data.dtype.name}{sep}[{', '.join(str(d) for d in t._data.shape)}]"


def _minimal_backward_dot(roots: list) -> str:
    ids: dict[int, str] = {}
    nodes, edges = [], []

    def node_for(t: Any) -> str:
        obj = t._node if t._node is not None else t
        if id(obj) not in ids:
            ids[id(obj)] = f"n{len(ids)}"
            name = t._node.grad_name if t._node is not None else "GradNodeAccumulation"
            nodes.append(f"  {ids[id(obj)]} [label={_quote(name + chr(10) + 'Ptr: ' + hex(id(obj)))}];")
        return ids[id(obj)]

    for r in roots:
        if not r._stop_gradient:
            node_for(r)
    for node in tape.reachable_nodes(roots):
        for t in node.inputs:
            if not t._stop_gradient:
                edges.append(f"  {ids[id(node)]} -> {node_for(t)} "
                             f"[label={_quote('Place(cpu)' + chr(10) + _meta(t, ''))}];")
    return "\n".join(["digraph G {", *nodes, *edges, "} // end G"]) + "\n"


def _minimal_forward_dot(roots: list) -> str:
    seen: dict[int, Any] = {}
    stack = [r._node for r in roots if r._node is not None]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen[id(node)] = node
            stack.extend(t._node for t in node.inputs if t._node is not None)
    order = sorted(seen.values(), key=lambda n: n.seq)
    ids: dict[int, str] = {}
    nodes, edges = [], []

    def source(t: Any) -> str:
        obj = t._node if t._node is not None else t
        if id(obj) not in ids:
            ids[id(obj)] = f"n{len(ids)}"
            nodes.append(f"  {ids[id(obj)]} [label="
                         f"{_quote('leaf' if not t._stop_gradient else 'constant')}];")
        return ids[id(obj)]

    for node in order:
        ids[id(node)] = f"n{len(ids)}"
        name = "".join(p.capitalize() for p in node.op.name.split("_"))
        nodes.append(f"  {ids[id(node)]} [label={_quote(name + chr(10) + 'GradNode: ' + hex(id(node)))}];")
    for node in order:
        for t in node.inputs:
            edges.append(f"  {source(t)} -> {ids[id(node)]} [label={_quote(_meta(t, ' '))}];")
    for i, r in enumerate(roots):
        nodes.append(f"  out{i} [label={_quote('output ' + str(i))}];")
        edges.append(f"  {source(r)} -> out{i} [label={_quote(_meta(r, ' '))}];")
    return "\n".join(["digraph G {", *nodes, *edges, "} // end G"]) + "\n"
