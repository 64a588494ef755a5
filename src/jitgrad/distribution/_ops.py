"""The ops the distributions are built from, under their Paddle names (P.log, P.lgamma,
P.linalg.cholesky, ...): jitgrad.ops plus to_tensor and dtype helpers, without importing the
top-level package (tests/test_layout.py: imports go one way)."""

from ..core.compat import is_complex, is_floating_point  # noqa: F401
from ..core.dtypes import get_default_dtype  # noqa: F401
from ..core.tensor import to_tensor  # noqa: F401
from ..ops import *  # noqa: F401,F403
from ..ops import linalg  # noqa: F401
