"""Writes src/jitgrad/core/paddle_names.py: the public names of Paddle 3.3.1's namespaces that
jitgrad mirrors (paddle, paddle.nn, paddle.nn.functional, paddle.linalg, paddle.optimizer.lr,
paddle.distribution, paddle.tensor.<submodule>), so a name jitgrad lacks fails with "not
implemented in jitgrad" rather than a bare AttributeError.

    /work/peers/bin/python perf/paddle_api_names.py       # an env with paddle 3.3.1
"""

import os
import types

import paddle

TENSOR_SUBS = ["math", "manipulation", "creation", "linalg", "search", "logic", "stat",
               "random", "attribute"]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "jitgrad", "core",
                   "paddle_names.py")


def public(module) -> list:
    """Functions and classes a user calls: in paddle's public lists, or defined in the
    module's own package (not the type-checking and decorator helpers it imports)."""
    listed = set(getattr(paddle, "__all__", [])) | set(getattr(paddle.tensor, "__all__", []))
    listed |= set(getattr(module, "__all__", []))
    out = []
    for name in dir(module):
        obj = getattr(module, name)
        if name.startswith("_") or isinstance(obj, types.ModuleType) or not callable(obj):
            continue
        home = getattr(obj, "__module__", "") or ""
        if name in listed or (home.startswith(("paddle.tensor", "paddle.optimizer.lr"))
                              and not name.endswith("_decorator")):
            out.append(name)
    return sorted(out)


def submodules(module) -> set:
    """Its public submodules (paddle.fft, paddle.nn.initializer ...), which __all__ omits."""
    return {n for n in dir(module) if not n.startswith("_")
            and isinstance(getattr(module, n), types.ModuleType)
            and getattr(module, n).__name__.startswith(module.__name__ + ".")}


def main() -> None:
    assert paddle.__version__ == "3.3.1", paddle.__version__
    spaces = {"": sorted(set(paddle.__all__) | submodules(paddle)),
              "nn": sorted(set(paddle.nn.__all__) | submodules(paddle.nn)),
              "nn.functional": sorted(paddle.nn.functional.__all__),
              "linalg": public(paddle.linalg), "optimizer.lr": public(paddle.optimizer.lr),
              "distribution": sorted(set(paddle.distribution.__all__)
                                     | submodules(paddle.distribution))}
    spaces.update({f"tensor.{s}": public(getattr(paddle.tensor, s)) for s in TENSOR_SUBS})
    lines = ['"""Public names of PaddlePaddle 3.3.1 namespaces, written by perf/paddle_api_names.py',
             '(do not edit): namespace.py reports a name Paddle has and jitgrad lacks as "not',
             'implemented in jitgrad"."""', "", "NAMES = {"]
    for key, names in spaces.items():
        lines.append(f"    {key!r}: (")
        row = "       "
        for n in names:
            if len(row) + len(n) + 4 > 96:
                lines.append(row)
                row = "       "
            row += f" {n!r},"
        lines.append(row)
        lines.append("    ),")
    lines.append("}")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print({k: len(v) for k, v in spaces.items()})


if __name__ == "__main__":
    main()
