"""Survey: which of Paddle 3.3.1's public functions that jitgrad also exports (paddle,
paddle.nn.functional, paddle.linalg, Tensor methods) take the torch-style keywords out=,
device=, requires_grad=, pin_memory= (inspect.signature), and which parameter aliases their
docstrings and alias decorators name. Prints counts, writes JSON rows with --json, and
prints src/jitgrad/core/torch_kwargs.TABLE with --table.

    /work/peers/bin/python perf/paddle_torch_kwargs.py --jitgrad-python /work/venv/bin/python \
        [--json survey.json] [--table]

Runs under an env with paddle 3.3.1; jitgrad's names come from a second interpreter that
can import jitgrad (this checkout's src/ on its path).
"""

import argparse
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
import warnings

KW = ("out", "device", "requires_grad", "pin_memory")
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
# the keyword is the function's own subject there (jitgrad has it): not a torch-style extra
OWN = {"set_device", "get_rng_state", "set_rng_state", "Tensor.requires_grad_"}

JITGRAD_NAMES = r'''
import inspect, json, types
import jitgrad as paddle
from jitgrad.ops import METHODS

def params(fn):
    try:
        return list(inspect.signature(inspect.unwrap(fn)).parameters)
    except (TypeError, ValueError):
        return None

def space(mod):
    return {n: params(v) for n in dir(mod) if not n.startswith("_")
            for v in [getattr(mod, n, None)]
            if callable(v) and not isinstance(v, (type, types.ModuleType))}

methods = {n: params(v) for n in dir(paddle.Tensor) if not n.startswith("_")
           for v in [inspect.getattr_static(paddle.Tensor, n, None)]
           if isinstance(v, types.FunctionType)}
methods.update({n: params(v) for n, v in METHODS.items()
                if not n.startswith("_") and callable(v) and n not in methods})
print(json.dumps({"": space(paddle), "nn.functional": space(paddle.nn.functional),
                  "linalg": space(paddle.linalg), "Tensor": methods}))
'''


def doc_aliases(fn):
    """{param: [aliases]} from the Args section's 'Alias: ``a``' lines."""
    found, current = {}, None
    for line in (inspect.getdoc(fn) or "").splitlines():
        m = re.match(r"\s{0,8}(\w+)\s*\(.*\)\s*:", line)
        if m:
            current = m.group(1)
        for a in re.findall(r"[Aa]lias(?:es)?\s*:\s*((?:``\w+``[\s,]*(?:or|and)?\s*)+)", line):
            if current:
                found.setdefault(current, []).extend(re.findall(r"``(\w+)``", a))
    return found


def closure_aliases(fn):
    """{param: [aliases]} from alias decorators' closures ([['x', 'input'], ...])."""
    found = {}
    for c in getattr(fn, "__closure__", None) or ():
        try:
            v = c.cell_contents
        except ValueError:
            continue
        if isinstance(v, list) and len(v) >= 2 and all(isinstance(s, str) for s in v):
            found.setdefault(v[0], []).extend(v[1:])
        elif isinstance(v, dict) and v and all(isinstance(k, str) and isinstance(t, str)
                                               for k, t in v.items()):
            for a, t in v.items():
                found.setdefault(t, []).append(a)
    return found


def survey(paddle, jg):
    spaces = {"": paddle, "nn.functional": paddle.nn.functional, "linalg": paddle.linalg,
              "Tensor": paddle.Tensor}
    rows = {}
    for key, mod in spaces.items():
        for name, jparams in sorted(jg[key].items()):
            fn = getattr(mod, name, None)
            if fn is None or not callable(fn) or isinstance(fn, type):
                continue
            try:
                params = list(inspect.signature(fn).parameters)
            except (TypeError, ValueError):
                params = None
            aliases = closure_aliases(fn)
            for p, al in doc_aliases(fn).items():
                aliases[p] = sorted(set(aliases.get(p, [])) | set(al))
            kws = [k for k in KW if params and k in params]
            rows[f"{key}.{name}" if key else name] = {
                "paddle_params": params, "kwargs": kws, "aliases": aliases,
                "jitgrad_params": jparams,
                "jitgrad_missing": [k for k in kws if jparams is not None and k not in jparams]}
    return rows


def table(rows):
    groups = {}
    for name, r in sorted(rows.items()):
        if r["kwargs"] and name not in OWN:
            groups.setdefault(tuple(r["kwargs"]), []).append(name)
    lines = ["TABLE: dict[str, tuple[str, ...]] = {"]
    for kws, names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        body = ", ".join(f'"{n}"' for n in names) + ("," if len(names) == 1 else "")
        lines += ["    **dict.fromkeys((", textwrap.fill(body, 92, initial_indent=" " * 8,
                                                          subsequent_indent=" " * 8),
                  "    ), (" + ", ".join(f'"{k}"' for k in kws)
                  + ("," if len(kws) == 1 else "") + ")),"]
    return "\n".join(lines + ["}"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jitgrad-python", required=True)
    ap.add_argument("--json")
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=os.path.abspath(SRC))
    jg = json.loads(subprocess.run([a.jitgrad_python, "-c", JITGRAD_NAMES], env=env,
                                   check=True, capture_output=True, text=True).stdout)
    warnings.filterwarnings("ignore")
    import paddle
    assert paddle.__version__ == "3.3.1", paddle.__version__
    rows = survey(paddle, jg)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1, sort_keys=True)
    print(f"paddle {paddle.__version__}: {len(rows)} functions jitgrad also exports")
    for key in ("paddle", "nn.functional", "linalg", "Tensor"):
        sub = {n: r for n, r in rows.items()
               if (key == "paddle" and "." not in n) or n.startswith(key + ".")}
        print(f"== {key}: {len(sub)} functions; documented aliases on "
              f"{sum(1 for r in sub.values() if r['aliases'])}")
        for k in KW:
            have = sorted(n for n, r in sub.items() if k in r["kwargs"])
            miss = sum(1 for r in sub.values() if k in r["jitgrad_missing"])
            print(f"  {k}: {len(have)} ({miss} without it in jitgrad's signature)")
    if a.table:
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
