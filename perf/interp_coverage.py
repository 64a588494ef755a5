"""Which differentiable registry ops have no array rule (`interp`): a new structure's first
backward (the interpret state, autograd/interpret.py) runs their vjp on Tensors instead
(ops/core.vjp_on_arrays), op by op through apply.

    PYTHONPATH=src python perf/interp_coverage.py
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "src")))

import jitgrad  # noqa: E402,F401  (registers every op)
from jitgrad.ops.registry import REGISTRY  # noqa: E402


def main() -> None:
    ops = [op for op in REGISTRY.values() if op.differentiable]
    missing = sorted((op for op in ops if op.interp is None), key=lambda op: op.name)
    for op in missing:
        print(op.name)
    print(f"{len(missing)} of {len(ops)} differentiable ops have no array rule")


if __name__ == "__main__":
    main()
