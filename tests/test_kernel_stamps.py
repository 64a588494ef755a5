"""Every compiled kernel's disk-cache key covers the files whose kernels it embeds.

Numba's cache key stamps the function's own file only: a kernel calling a @jit helper
imported from another file would keep the old helper's code after that file changed
(`stamp_with`, _numba.jit). This checks every kernel of jitgrad.vm against the helpers its
code names, followed through their own calls.
"""

import importlib
import pkgutil

import pytest

import jitgrad.vm as vm_pkg

numba = pytest.importorskip("numba")
from numba.core.registry import CPUDispatcher  # noqa: E402


def _kernels():
    for info in pkgutil.iter_modules(vm_pkg.__path__):
        module = importlib.import_module(f"jitgrad.vm.{info.name}")
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
                yield f"{info.name}.{name}", obj


def _names(code):
    yield from code.co_names
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            yield from _names(const)


def _embedded_files(disp):
    """The files of the @jit functions `disp` calls, directly or through its callees."""
    files, seen, stack = set(), {id(disp)}, [disp.py_func]
    while stack:
        f = stack.pop()
        for name in _names(f.__code__):
            callee = f.__globals__.get(name)
            if isinstance(callee, CPUDispatcher) and id(callee) not in seen:
                seen.add(id(callee))
                files.add(callee.py_func.__code__.co_filename)
                stack.append(callee.py_func)
    return files


def test_every_kernel_stamps_the_files_of_the_kernels_it_calls():
    missing = {}
    for name, disp in _kernels():
        cache = getattr(disp, "_cache", None)
        stamped = set(getattr(cache, "stamp_with", ()))
        own = disp.py_func.__code__.co_filename
        lack = {f for f in _embedded_files(disp) if f != own and f not in stamped}
        if lack and hasattr(cache, "stamp_with"):
            missing[name] = sorted(f.rsplit("/", 1)[-1] for f in lack)
    assert not missing, f"kernels whose cache key misses a file they embed: {missing}"
