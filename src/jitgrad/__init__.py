"""jitgrad: reverse-mode autograd with PaddlePaddle's eager API and a compiled backward.

`import jitgrad as paddle` runs code written for `paddle.autograd.backward`. The backward
pass is lowered to a flat instruction list and replayed by a Numba-compiled interpreter.
"""

import math as _math
import sys as _sys

from . import autograd, ops
from .core.printing import set_printoptions
from .core.flags import get_flags, set_flags
from .autograd import backward, grad
from .core.dtypes import (DType, bool_, float16, float32, float64, get_default_dtype, int8, int16,
                          int32, int64, set_default_dtype, uint8)
from .ops import *  # noqa: F401,F403  (the op functions, Paddle names)
from .ops.attribute import shape  # noqa: E402  (paddle.shape; jitgrad.ops.shape is a module)
from .core.grad_mode import enable_grad, no_grad, set_grad_enabled
from .core.tape import is_grad_enabled
from .core.size import Size
from .core.tensor import Tensor, user_to_tensor as to_tensor
from .precompile import warmup
from .vm import set_vm
from .core.compat import (CPUPlace, disable_static, dtype, enable_static, get_device,  # noqa: F401
                          in_dynamic_mode, is_floating_point, is_tensor, set_device,
                          is_complex, is_integer, is_empty, tolist, finfo, iinfo)
pi, e, inf, nan, newaxis = _math.pi, _math.e, _math.inf, _math.nan, None   # Paddle's constants
from . import nn  # noqa: E402  (needs ops)
from . import optimizer, regularizer  # noqa: E402
from .nn import ParamAttr, create_parameter  # noqa: E402
from .ops import linalg  # noqa: E402  (paddle.linalg.*)

bool = bool_  # noqa: A001  (paddle.bool)
float, double, half = float32, float64, float16  # noqa: A001  (Paddle's torch-style aliases)
from .ops.creation import range  # noqa: E402,A004  (Paddle's, end included; not in __all__)

from .compile.program_cache import cache_clear, cache_info, set_cache_limit  # noqa: E402
from . import incubate, tensor  # noqa: E402  (paddle.incubate.autograd, paddle.tensor.*)
from . import distribution  # noqa: E402  (paddle.distribution)
from . import geometric  # noqa: E402  (paddle.geometric)
from . import amp, device, jit, metric, static  # noqa: E402  (CPU-only forms of these)
from .core.places import CUDAPinnedPlace, CUDAPlace, CustomPlace, XPUPlace  # noqa: E402,F401
from .device import (get_cudnn_version, is_compiled_with_cinn,  # noqa: E402,F401
                     is_compiled_with_cuda, is_compiled_with_custom_device,
                     is_compiled_with_distribute, is_compiled_with_ipu,
                     is_compiled_with_rocm, is_compiled_with_xpu)
from .device import cuda_module as cuda  # noqa: E402,F401  (paddle.cuda)
from .device import device_guard, get_default_device  # noqa: E402,F401
from .ops.legacy_creation import TENSOR_FACTORIES as _TENSOR_FACTORIES  # noqa: E402
globals().update(_TENSOR_FACTORIES)     # paddle.FloatTensor ... (legacy constructors)
from .amp import (autocast, get_autocast_cpu_dtype, get_autocast_dtype,  # noqa: E402
                  get_autocast_gpu_dtype, is_autocast_enabled)

__version__ = "0.1.0"

from . import utils  # noqa: E402  (paddle.utils.unique_name)
from .ops.creation import Generator  # noqa: E402  (what paddle.seed returns)
from .single_process import (DataParallel, LazyGuard, batch,  # noqa: E402
                             disable_signal_handler, get_cuda_rng_state, set_cuda_rng_state)
from .nn.functional import (adaptive_avg_pool1d, conv1d, conv2d, conv3d,  # noqa: E402
                            group_norm, layer_norm)     # (Paddle exports these at the top too)

# paddle.io, paddle.save, paddle.load, paddle.summary / flops / Model (hapi) and
# paddle.callbacks are imported on first use; a missing name says what Paddle has
# (core/namespace.py)
from .core.namespace import module_getattr as _module_getattr  # noqa: E402
__getattr__ = _module_getattr("jitgrad", "", lazy={"io": ".io", "distributed": ".distributed",
                                                  "hapi": ".hapi", "summary": ".hapi",
                                                  "flops": ".hapi", "Model": ".hapi",
                                                  "callbacks": ".callbacks",
                                                  "save": ".serialization",
                                                  "load": ".serialization"})

# Paddle 3.x's torch-style keyword aliases (dim=, input=, other=, size=, ord=) on the public
# functions of these namespaces (core/param_aliases.py), and the keywords out=, device=,
# requires_grad=, pin_memory= on those Paddle gives them (core/torch_kwargs.py)
from .core import param_aliases as _param_aliases  # noqa: E402
_param_aliases.install(_sys.modules[__name__], key="")
_param_aliases.install(linalg, key="linalg")
_param_aliases.install(nn.functional, key="nn.functional")

# paddle.special: Paddle 3.3.1's three names, the top-level functions (keyword aliases too)
from .core.namespace import Namespace as _Namespace  # noqa: E402
special = _Namespace("jitgrad.special", "special",
                     {"expm1": expm1, "logsumexp": logsumexp, "softmax": softmax},  # noqa: F405
                     doc="Paddle's paddle.special: expm1, logsumexp, softmax.")
_sys.modules["jitgrad.special"] = special
