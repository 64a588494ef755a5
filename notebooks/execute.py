"""Re-run notebooks/tour.ipynb in place so its stored outputs are current.

    python notebooks/execute.py            # uses this Python and the checkout's src/

Run it with a Python that has torch and Graphviz (`pip install graphviz` plus the `dot`
program) installed so the stored outputs include the torch curve and the graph picture.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

import nbformat
from nbclient import NotebookClient

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")


def main(path: str = os.path.join(HERE, "tour.ipynb")) -> None:
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [SRC] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:       # a kernel running this very Python
        spec = os.path.join(tmp, "kernels", "jitgrad-tour")
        os.makedirs(spec)
        with open(os.path.join(spec, "kernel.json"), "w") as f:
            json.dump({"argv": [sys.executable, "-m", "ipykernel_launcher", "-f",
                                "{connection_file}"],
                       "display_name": "Python 3", "language": "python"}, f)
        os.environ["JUPYTER_PATH"] = tmp
        NotebookClient(nb, timeout=600, kernel_name="jitgrad-tour",
                       resources={"metadata": {"path": HERE}}).execute()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    nbformat.write(nb, path)
    print(f"executed {os.path.relpath(path)} in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main(*sys.argv[1:])
