"""dump_backward_graph_path (PADDLE_SEMANTICS.md J, M.58): files, DOT structure, call sites."""

import os
import re

import pytest

import jitgrad as paddle
from jitgrad.core import tape

TT = paddle.to_tensor
HERE = os.path.abspath(__file__)

NODE = re.compile(r'^\s*(\w+) \[label="((?:[^"\\]|\\.)*)"[^\]]*\];$')
EDGE = re.compile(r'^\s*(\w+) -> (\w+) \[label="((?:[^"\\]|\\.)*)"[^\]]*\];$')


def parse_dot(text):
    """A strict reader for the DOT subset we write: returns ({id: label}, [(a, b, label)])."""
    lines = text.strip().splitlines()
    assert lines[0] == "digraph G {" and lines[-1] == "} // end G"
    nodes, edges = {}, []
    for line in lines[1:-1]:
        m = EDGE.match(line)
        if m:
            edges.append((m[1], m[2], m[3].replace("\\n", "\n")))
            continue
        m = NODE.match(line)
        assert m, f"not a node or edge statement: {line!r}"
        assert m[1] not in nodes
        nodes[m[1]] = m[2].replace("\\n", "\n")
    for a, b, _ in edges:
        assert a in nodes and b in nodes
    return nodes, edges


def dumped(path):
    files = sorted(os.listdir(path))
    kinds = {}
    for f in files:
        m = re.match(r"^(\d{4}-\d\d-\d\d_\d\d:\d\d:\d\d\.\d{6})_(\w+)\.(dot|log|txt)$", f)
        assert m, f
        kinds.setdefault(m[1], {})[m[2]] = open(os.path.join(path, f)).read()
    return kinds


def _matmul_graph():
    x = TT([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    w = TT([[3.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    z = paddle.matmul(x, w)                 # MATMUL_LINE
    loss = paddle.sum(z)                    # SUM_LINE
    return x, w, loss


def _line_of(marker):
    for i, line in enumerate(open(HERE), 1):
        if marker in line and "_line_of" not in line:
            return i
    raise AssertionError(marker)


@pytest.mark.parametrize("entry", ["tensor", "autograd", "grad"])
def test_each_call_writes_four_files_and_computes_gradients(tmp_path, entry):
    x, w, loss = _matmul_graph()
    path = str(tmp_path / "new" / "dir")            # created when missing
    if entry == "tensor":
        loss.backward(dump_backward_graph_path=path)
        got = x.grad
    elif entry == "autograd":
        paddle.autograd.backward(loss, dump_backward_graph_path=path)
        got = x.grad
    else:
        got = paddle.grad(loss, x, dump_backward_graph_path=path)[0]
    assert got.tolist() == [[5.0, 7.0], [5.0, 7.0]]
    (stamp, files), = dumped(path).items()
    assert set(files) == {"backward_graph", "ref_forward_graph", "call_stack", "program"}


def test_backward_graph_nodes_edges_and_labels(tmp_path):
    x, w, loss = _matmul_graph()
    loss.backward(dump_backward_graph_path=str(tmp_path))
    (files,) = dumped(str(tmp_path)).values()
    nodes, edges = parse_dot(files["backward_graph"])
    names = sorted(label.split("\n")[0] for label in nodes.values())
    assert names == ["GradNodeAccumulation", "GradNodeAccumulation", "MatmulGradNode",
                     "SumGradNode"]
    assert all(re.search(r"Ptr: 0x[0-9a-f]+", label) for label in nodes.values())
    assert len(edges) == 3
    labels = sorted(label for _, _, label in edges)
    assert labels == ["Place(cpu)\nfloat32[2, 2]"] * 3
    by_name = {label.split("\n")[0]: nid for nid, label in nodes.items()
               if "Accumulation" not in label}
    assert (by_name["SumGradNode"], by_name["MatmulGradNode"]) in [(a, b) for a, b, _ in edges]


def test_forward_graph_runs_from_inputs_to_outputs(tmp_path):
    x, w, loss = _matmul_graph()
    loss.backward(dump_backward_graph_path=str(tmp_path))
    (files,) = dumped(str(tmp_path)).values()
    nodes, edges = parse_dot(files["ref_forward_graph"])
    ops = {nid: label.split("\n")[0] for nid, label in nodes.items() if "GradNode: 0x" in label}
    assert sorted(ops.values()) == ["Matmul", "Sum"]
    assert len(nodes) == 5                  # two ops, two leaves, one output
    assert len(edges) == 4                  # x, w -> Matmul -> Sum -> output
    matmul = next(n for n, name in ops.items() if name == "Matmul")
    sum_ = next(n for n, name in ops.items() if name == "Sum")
    assert (matmul, sum_, "float32 [2, 2]") in edges


def test_call_stack_log_names_this_files_lines(tmp_path, call_sites):
    x, w, loss = _matmul_graph()
    loss.backward(dump_backward_graph_path=str(tmp_path))
    (files,) = dumped(str(tmp_path)).values()
    log = files["call_stack"]
    assert "FLAGS_call_stack_level=3" in log
    entries = re.findall(r"GradNodeBase (\w+) ptr : 0x[0-9a-f]+ call stack:\n"
                         r'  File "([^"]+)", line (\d+), in (\w+)', log)
    got = {name: (f, int(line), fn) for name, f, line, fn in entries}
    assert got == {"MatmulGradNode": (HERE, _line_of("# MATMUL_LINE"), "_matmul_graph"),
                   "SumGradNode": (HERE, _line_of("# SUM_LINE"), "_matmul_graph")}
    assert "paddle.matmul(x, w)" in log


def test_call_stack_log_entries_are_empty_without_the_flag_as_paddle(tmp_path):
    # Paddle 3.3.1 records an op's stack only while FLAGS_call_stack_level is 3 (default 1)
    assert paddle.get_flags(["FLAGS_call_stack_level"]) == {"FLAGS_call_stack_level": 1}
    x, w, loss = _matmul_graph()
    assert all(node.site is None for node in tape.reachable_nodes([loss]))
    loss.backward(dump_backward_graph_path=str(tmp_path))
    (files,) = dumped(str(tmp_path)).values()
    log = files["call_stack"]
    assert "FLAGS_call_stack_level=3" in log and "File " not in log
    assert re.findall(r"GradNodeBase (\w+) ptr : 0x[0-9a-f]+ call stack:\n(?:\n|$)", log) == \
        ["SumGradNode", "MatmulGradNode"]


def test_the_level_in_force_when_an_op_runs_decides_its_site(call_sites):
    x = TT([1.0], stop_gradient=False)
    a = paddle.exp(x)
    paddle.set_flags({"FLAGS_call_stack_level": 1})
    b = paddle.exp(x)
    paddle.set_flags({"FLAGS_call_stack_level": 3})
    c = paddle.exp(x)                       # LEVEL_LINE
    assert a._node.site is not None and b._node.site is None
    assert tape.site_line(c._node.site)[:2] == (HERE, _line_of("# LEVEL_LINE"))


def test_set_and_get_flags_check_their_arguments_as_paddle():
    with pytest.raises(TypeError, match="flags in set_flags should be a dict"):
        paddle.set_flags("FLAGS_call_stack_level")
    with pytest.raises(TypeError, match="should be a list, tuple or string"):
        paddle.get_flags(3)
    with pytest.raises(ValueError, match="Flag FLAGS_check_nan_inf cannot set its value"):
        paddle.set_flags({"FLAGS_check_nan_inf": True})
    with pytest.raises(ValueError, match="Flag call_stack_level cannot get its value"):
        paddle.get_flags("call_stack_level")
    with pytest.raises(TypeError, match="FLAGS_call_stack_level takes an int, got float"):
        paddle.set_flags({"FLAGS_call_stack_level": 2.7})
    assert paddle.get_flags("FLAGS_call_stack_level") == {"FLAGS_call_stack_level": 1}
    paddle.set_flags({"FLAGS_call_stack_level": True})     # (Paddle casts it to 1)
    assert paddle.get_flags(("FLAGS_call_stack_level",)) == {"FLAGS_call_stack_level": 1}


def test_the_flag_is_read_from_the_environment_at_import():
    import subprocess
    import sys
    code = ("import jitgrad as p; x = p.to_tensor([1.0], stop_gradient=False); "
            "print(p.get_flags('FLAGS_call_stack_level'), p.exp(x)._node.site is not None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "FLAGS_call_stack_level": "3"}, check=True)
    assert out.stdout.split("\n")[0] == "{'FLAGS_call_stack_level': 3} True"


def test_program_text_has_one_line_per_instruction(tmp_path):
    x, w, loss = _matmul_graph()
    loss.backward(dump_backward_graph_path=str(tmp_path), retain_graph=True)
    (files,) = dumped(str(tmp_path)).values()
    from jitgrad.compile.executor import program_for
    prog = program_for([loss])
    text = files["program"]
    rows = [line for line in text.splitlines() if re.match(r"^\s*\d+ [A-Z_]+ ", line)]
    assert len(rows) == len(prog) > 0
    assert "GEMM" in text and "MatmulGradNode" in text


def test_each_call_gets_its_own_timestamp(tmp_path):
    x, w, loss = _matmul_graph()
    for _ in range(3):
        loss.backward(retain_graph=True, dump_backward_graph_path=str(tmp_path))
    assert len(dumped(str(tmp_path))) == 3
    assert x.grad.tolist() == [[15.0, 21.0], [15.0, 21.0]]


def test_none_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x, w, loss = _matmul_graph()
    loss.backward(dump_backward_graph_path=None)
    assert os.listdir(tmp_path) == []


def test_non_string_path_raises_type_error():
    x, w, loss = _matmul_graph()
    with pytest.raises(TypeError, match="dump_backward_graph_path"):
        loss.backward(dump_backward_graph_path=3)
    assert x.grad is None
    with pytest.raises(TypeError, match="dump_backward_graph_path"):
        paddle.grad(loss, x, dump_backward_graph_path=b"dir")


def test_existing_file_raises_not_a_directory_error(tmp_path):
    f = tmp_path / "file"
    f.write_text("")
    x, w, loss = _matmul_graph()
    with pytest.raises(NotADirectoryError):
        paddle.autograd.backward(loss, dump_backward_graph_path=str(f))


def test_call_site_is_recorded_for_every_op_and_points_here(call_sites):
    x = TT([1.0], stop_gradient=False)
    y = paddle.exp(x) * 2 + x               # SITE_LINE
    for node in tape.reachable_nodes([y]):
        filename, line, func = tape.site_line(node.site)
        assert (filename, line) == (HERE, _line_of("# SITE_LINE"))
        assert func == "test_call_site_is_recorded_for_every_op_and_points_here"


def test_pylayer_node_site_points_here(call_sites):
    class Double(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Double.apply(TT([1.0], stop_gradient=False))    # PYLAYER_LINE
    assert tape.site_line(y._node.site)[:2] == (HERE, _line_of("# PYLAYER_LINE"))
