"""Differential sweep against real PaddlePaddle: the same calls in paddle and in jitgrad, with
values, dtypes, shapes and gradients compared. Needs `pip install paddlepaddle==3.3.1` (the
`paddle` extra) in the same environment; it is not part of the test suite.

    python perf/paddle_sweep.py                      # every file in perf/paddle_cases/
    python perf/paddle_sweep.py perf/paddle_cases/math.py -v

A case file calls `cmp(name, fn, inputs, grad=True, rtol=2e-5, atol=1e-6, known=None)`, where
`fn(P, *tensors)` is run with P = paddle and P = jitgrad on tensors made from the numpy
`inputs` (float inputs need gradients when grad=True), and `A(shape, lo, hi, dtype)` draws
seeded inputs. Each output that needs a gradient is weighted by fixed random numbers and
summed, and one backward gives every input's gradient. `known="why"` marks a deliberate
difference (README, Paddle compatibility notes): reported, not counted as a failure; a
case file may instead map case-name prefixes to reasons in a dict named KNOWN.
Exit status 1 if any other difference is found.

Each case is a new graph structure, so its backward runs in the interpret state
(autograd/interpret.py); `JITGRAD_NO_INTERPRET=1 python perf/paddle_sweep.py` sweeps the
compiled path instead. 2026-12-07 02:32 UTC: 0 differences in 3080 cases either way.
Inputs are drawn per case file (its own seed), so a new file does not move the others'.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import warnings
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

warnings.filterwarnings("ignore")
import paddle  # noqa: E402
import jitgrad  # noqa: E402

_rng = np.random.default_rng(0)
_found: dict = {"cases": 0, "diff": [], "known": [], "both_raise": []}
_scope: dict = {}            # the running case file's globals (its KNOWN table)


def A(shape, lo=-2.0, hi=2.0, dtype="float32"):  # noqa: N802 (the case files' short name)
    """Seeded input: uniform floats in [lo, hi), ints in [lo, hi), or random bools."""
    if dtype.startswith("int"):
        return _rng.integers(lo, hi, shape).astype(dtype)
    if dtype == "bool":
        return _rng.random(shape) > 0.5
    return _rng.uniform(lo, hi, shape).astype(dtype)


def _reseed(path):
    """Each case file draws its inputs from its own seed (its name's CRC), so adding or
    editing one file leaves every other file's inputs as they were."""
    global _rng
    _rng = np.random.default_rng(zlib.crc32(os.path.basename(path).encode()))


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [o for item in out for o in _flat(item)]
    return [out]


def _run(lib, fn, datas, grad):
    ts = [lib.to_tensor(d, stop_gradient=not (grad and d.dtype.kind == "f"))
          if isinstance(d, np.ndarray) else d for d in datas]
    outs = _flat(fn(lib, *ts))
    vals = [(o.numpy(), str(o.dtype).split(".")[-1], list(o.shape)) if hasattr(o, "numpy")
            else ("py", str(o)) for o in outs]
    grads = None
    if grad:
        diff = [o for o in outs if hasattr(o, "dtype") and "float" in str(o.dtype)
                and not o.stop_gradient]
        if diff:
            wrng, total = np.random.default_rng(1), None
            for o in diff:
                w = lib.to_tensor(wrng.uniform(0.5, 1.5, o.shape).astype(o.numpy().dtype))
                s = lib.sum(o * w)
                total = s if total is None else total + s
            total.backward()
            grads = [None if not (isinstance(d, np.ndarray) and d.dtype.kind == "f")
                     else "none" if t.grad is None else t.grad.numpy()
                     for t, d in zip(ts, datas)]
    return vals, grads


def _compare(pv, pg, jv, jg, rtol, atol):
    msgs = []
    if len(pv) != len(jv):
        msgs.append(f"{len(pv)} outputs vs {len(jv)}")
    for k, (a, b) in enumerate(zip(pv, jv)):
        if isinstance(a[0], str) or isinstance(b[0], str):        # a Python value
            if a[1] != b[1]:
                msgs.append(f"out{k} {a[1]} vs {b[1]}")
            continue
        if a[1] != b[1]:
            msgs.append(f"out{k} dtype {a[1]} vs {b[1]}")
        if a[2] != b[2]:
            msgs.append(f"out{k} shape {a[2]} vs {b[2]}")
        elif not np.allclose(a[0].astype(np.float64), b[0].astype(np.float64), rtol=rtol,
                             atol=atol, equal_nan=True):
            msgs.append(f"out{k} values {a[0].ravel()[:4]} vs {b[0].ravel()[:4]}")
    if (pg is None) != (jg is None):
        msgs.append(f"gradients {'none' if pg is None else 'some'} vs "
                    f"{'none' if jg is None else 'some'}")
    elif pg is not None:
        for k, (a, b) in enumerate(zip(pg, jg)):
            if a is None or b is None:
                continue
            if isinstance(a, str) or isinstance(b, str):
                if type(a) is not type(b):
                    msgs.append(f"grad{k} {'None' if isinstance(a, str) else 'array'} vs "
                                f"{'None' if isinstance(b, str) else 'array'}")
            elif a.shape != b.shape:
                msgs.append(f"grad{k} shape {a.shape} vs {b.shape}")
            elif not np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True):
                msgs.append(f"grad{k} {a.ravel()[:4]} vs {b.ravel()[:4]}")
    return msgs


def cmp(name, fn, datas, grad=True, rtol=2e-5, atol=1e-6, known=None):
    """Run fn in both libraries and record any difference (see the module docstring). A case
    file may also give reasons by case-name prefix in a dict KNOWN."""
    _found["cases"] += 1
    if known is None:
        known = next((why for prefix, why in _scope.get("KNOWN", {}).items()
                      if name.startswith(prefix)), None)
    res = {}
    for lib in (paddle, jitgrad):
        try:
            res[lib.__name__] = ("ok", _run(lib, fn, [d.copy() if isinstance(d, np.ndarray)
                                                      else d for d in datas], grad))
        except Exception as e:  # noqa: BLE001 (either side may refuse the call)
            first = str(e).strip().splitlines()[0][:120] if str(e).strip() else ""
            res[lib.__name__] = ("err", f"{type(e).__name__}: {first}")
    p, j = res["paddle"], res["jitgrad"]
    if p[0] == "err" and j[0] == "err":
        _found["both_raise"].append((name, f"paddle {p[1]} | jitgrad {j[1]}"))
    if p[0] == "err" or j[0] == "err":
        msgs = [] if p[0] == j[0] else [f"paddle {p[1] if p[0] == 'err' else 'ok'} | "
                                        f"jitgrad {j[1] if j[0] == 'err' else 'ok'}"]
    else:
        msgs = _compare(*p[1], *j[1], rtol, atol)
    if msgs:
        _found["known" if known else "diff"].append((name, "; ".join(msgs), known))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list known differences")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(HERE, "paddle_cases", "*.py")))
    for path in files:
        _reseed(path)
        _scope.clear()
        _scope.update(A=A, cmp=cmp, np=np, paddle=paddle, jitgrad=jitgrad)
        exec(compile(open(path).read(), path, "exec"), _scope)
    for name, msg, _ in _found["diff"]:
        print(f"DIFF  [{name}] {msg}")
    if args.verbose:
        for name, msg, why in _found["known"]:
            print(f"known [{name}] {why}: {msg}")
        for name, msg in _found["both_raise"]:
            print(f"both raise [{name}] {msg}")
    print(f"paddle {paddle.__version__}: {_found['cases']} cases, {len(_found['diff'])} "
          f"differences, {len(_found['known'])} known and deliberate, "
          f"{len(_found['both_raise'])} where both raise (-v lists them)")
    sys.exit(1 if _found["diff"] else 0)


if __name__ == "__main__":
    main()
