"""Series coefficients an op's numpy code (ops/) and its compiled kernel (vm/) both evaluate,
kept in one place. Plain Python, no imports: ops import it without loading Numba, and vm
(which may not import ops) reads the tuples as globals, which Numba freezes into the
compiled code as constants (a kernel reading one names this file in its `stamp_with`, so
an edit here misses Numba's disk cache)."""

# sinc'(x) / pi = d/du sin(u) / u at u = pi x: its Taylor coefficients, -u/3 + u^3/30 - ...
# (ops/numeric.py's _sinc_slope, vm/forward_activation.py's sinc; highest power last)
SINC_SERIES = (-1 / 3, 1 / 30, -1 / 840, 1 / 45360, -1 / 3991680)
