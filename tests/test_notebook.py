"""notebooks/tour.ipynb runs top to bottom in a fresh kernel, and its stored outputs are current.

The kernel is this interpreter (sys.executable) with the checkout's src/ first on its path,
so the notebook tests the code under test, not some installed copy. Cells tagged
`nondeterministic` (timings, the torch comparison) are run but their outputs not compared.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

pytestmark = pytest.mark.slow      # subprocesses (`-m 'not slow'` skips them)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
NOTEBOOK = os.path.join(ROOT, "notebooks", "tour.ipynb")


def require(module: str):
    """Import a dev dependency; CI installs the dev extra, so there a missing one fails."""
    if os.environ.get("CI"):
        return __import__(module)
    return pytest.importorskip(module, reason=f"{module} is in the dev extra")


def comparable(cell) -> list[tuple[str, str]]:
    """The outputs of a cell that must not change between runs: streams and plain text.
    Consecutive pieces of one stream are joined: the kernel may send one print as two
    messages (its text, then the newline) when its flush timer fires between them."""
    out = []
    for o in cell.get("outputs", []):
        if o["output_type"] == "stream":
            if out and out[-1][0] == o["name"]:
                out[-1] = (o["name"], out[-1][1] + o["text"])
            else:
                out.append((o["name"], o["text"]))
        elif o["output_type"] == "execute_result":
            out.append(("result", o["data"].get("text/plain", "")))
        elif o["output_type"] == "error":
            out.append(("error", o["ename"]))
    return out


@pytest.fixture
def kernel_env(tmp_path, monkeypatch):
    """A kernelspec running this Python, with the checkout's src first on sys.path."""
    spec_dir = tmp_path / "jupyter" / "kernels" / "jitgrad-test"
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "jitgrad test kernel", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [SRC] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    return "jitgrad-test"


def test_tour_notebook_runs_and_its_stored_outputs_are_current(kernel_env, tmp_path):
    nbformat = require("nbformat")
    nbclient = require("nbclient")
    require("ipykernel")
    require("matplotlib")
    stored = nbformat.read(NOTEBOOK, as_version=4)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    probe = nbformat.v4.new_code_cell("import jitgrad, sys\nprint(jitgrad.__file__)")
    nb.cells.insert(0, probe)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name=kernel_env,
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()                    # raises CellExecutionError if any cell raises

    where = nb.cells[0].outputs[0]["text"].strip()
    assert os.path.realpath(where) == os.path.realpath(os.path.join(SRC, "jitgrad",
                                                                    "__init__.py"))
    ran = nb.cells[1:]
    assert len(ran) == len(stored.cells)
    for i, (new, old) in enumerate(zip(ran, stored.cells)):
        if old.cell_type != "code":
            continue
        assert old.get("outputs") or "nondeterministic" in old.metadata.get("tags", []), \
            f"cell {i} has no stored output: run `python notebooks/execute.py`"
        if "nondeterministic" in old.metadata.get("tags", []):
            continue
        assert comparable(new) == comparable(old), (
            f"cell {i} output changed; run `python notebooks/execute.py` and commit:\n"
            f"{old.source}")


def test_stored_notebook_has_the_pictures():
    nbformat = require("nbformat")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    kinds = {key for cell in nb.cells if cell.cell_type == "code"
             for o in cell.outputs for key in o.get("data", {})}
    assert "image/png" in kinds                      # the replay-time plot
    assert "image/svg+xml" in kinds                  # the backward graph, drawn by Graphviz


def test_readme_example_runs_and_prints_what_its_comments_say(capsys):
    import re

    import numpy as np
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert len(block.strip().splitlines()) <= 15
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    claimed = re.findall(r"print\(x\.grad\)\s*# (\[\[.*?\]\])", block)
    values = re.findall(r"\[\[[^()]*?\]\]", printed.replace("\n", " "))
    assert len(claimed) == 2 and len(values) == 2
    for want, got in zip(claimed, values):
        np.testing.assert_array_equal(np.array(eval(got)), np.array(eval(want)))


NOTICE_CELL = """
import threading
import numpy as np
from jitgrad import vm
from jitgrad.vm import compile_notice
compile_notice.NOTICE_AFTER = 0.01
noticed = threading.Event()
_write = sys.stderr.write
sys.stderr.write = lambda s: (noticed.set(), _write(s))[1]

def slow_compile():                     # stands in for Numba compiling: waits for the notice
    assert noticed.wait(30), "the notice was never printed"

vm.run_announced(slow_compile)
"""


def test_compile_notice_shows_in_the_cell_that_pauses(kernel_env, tmp_path):
    """The notice is printed from a timer thread: Jupyter must show it in the running cell."""
    nbformat = require("nbformat")
    nbclient = require("nbclient")
    require("ipykernel")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import sys"),
                nbformat.v4.new_code_cell(NOTICE_CELL.strip()),
                nbformat.v4.new_code_cell("print('next cell')")]
    nbclient.NotebookClient(nb, timeout=120, kernel_name=kernel_env,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    err = "".join(o.get("text", "") for o in nb.cells[1].outputs if o.get("name") == "stderr")
    assert err.startswith("jitgrad: compiling the backward interpreter")
    assert "jitgrad: ready in " in err
    assert comparable(nb.cells[2]) == [("stdout", "next cell\n")]
