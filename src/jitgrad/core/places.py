"""Places and device strings, as Paddle 3.3.1's CPU build reads them (perf/paddle_devices.py
measures both side by side; tests/test_devices.py pins them).

jitgrad computes on the CPU only, so every accepted device is the CPU, and `to_place` is
the one reader of a device argument: set_device, the device= keyword, to_tensor's place=,
Tensor.to and Layer.to. Paddle reads them with two rules, kept here:

- every reader: a place object is itself; a str is compared lower-cased ('CPU' is the CPU,
  'cuda...' reads as 'gpu...'); only 'cpu' is the CPU, with no index ('cpu:0' raises
  ValueError: Paddle's readers have no 'cpu:N'); an accelerator ('gpu', 'gpu:0', 'xpu' ...)
  or any other str raises ValueError, as does anything else that is not a place.
- set_device only (Paddle's device_to_place) first strips the str (' cpu ' is the CPU),
  reads None as the current device (the CPU) and an int as a device index: 0 (or False)
  is the CPU, a negative or other index raises ValueError.

Paddle's keyword reader (to_tensor place=, device=) has a bug on its CPU build: 'gpu' and
'xpu' without an index raise AttributeError ('NoneType' object has no attribute 'group');
jitgrad raises ValueError for them as for 'gpu:0' (README, kept differences).
"""

from __future__ import annotations

from typing import Any

_DTYPE_NAMES = frozenset(("bfloat16", "float16", "float32", "float64", "int8", "int16",
                          "int32", "int64", "uint8", "complex64", "complex128", "bool"))
_ACCELERATORS = frozenset(("gpu", "dcu", "xpu", "ipu", "npu", "gpu_pinned", "xpu_pinned"))


class Place:
    """Where a tensor lives: always the CPU. `x.place` (Paddle's Place: printed `Place(cpu)`,
    `is_cpu_place()` True, the other devices' queries False, equal to `paddle.CPUPlace()`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Place(cpu)"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Place)

    def __hash__(self) -> int:
        return hash("Place(cpu)")

    def _equals(self, other: Any) -> bool:
        """Paddle's place comparison (its own code calls `t.place._equals(place)`)."""
        return isinstance(other, Place)

    def is_cpu_place(self) -> bool:
        return True

    def _no(self) -> bool:
        return False

    is_gpu_place = is_xpu_place = is_custom_place = is_ipu_place = _no
    is_cuda_pinned_place = is_xpu_pinned_place = _no

    def gpu_device_id(self) -> int:
        return 0

    xpu_device_id = ipu_device_id = custom_device_id = gpu_device_id

    def custom_device_type(self) -> str:
        return ""


CPU_PLACE = Place()


class CPUPlace(Place):
    """The only place jitgrad computes on; `to_tensor(..., place=CPUPlace())` accepts it,
    and it equals every tensor's `.place`."""

    __slots__ = ()


class CUDAPlace(Place):
    """Paddle's GPU place: its CPU build refuses to make one (ValueError), as jitgrad does;
    the class is there for `isinstance(p, paddle.CUDAPlace)` (always False)."""

    __slots__ = ()

    def __new__(cls, device_id: int) -> CUDAPlace:
        if not isinstance(device_id, int):
            raise TypeError(f"{cls.__name__}(): device_id must be an int, got "
                            f"{type(device_id).__name__}")
        raise ValueError(f"{cls.__name__}({device_id}): no such device: jitgrad runs on the "
                         "CPU only (use paddle.CPUPlace())")


class XPUPlace(CUDAPlace):
    __slots__ = ()


class CustomPlace(Place):
    __slots__ = ()

    def __new__(cls, device_type: str, device_id: int) -> CustomPlace:
        raise ValueError(f"CustomPlace({device_type!r}, {device_id}): no such device: "
                         "jitgrad runs on the CPU only (use paddle.CPUPlace())")


class CUDAPinnedPlace(Place):
    __slots__ = ()

    def __new__(cls) -> CUDAPinnedPlace:
        raise RuntimeError("CUDAPinnedPlace(): jitgrad has no pinned memory, it runs on the "
                           "CPU only (as Paddle's CPU build: 'Cannot use CUDAPinnedPlace in "
                           "CPU only version')")


def is_dtype_name(value: Any) -> bool:
    """A str Paddle's Tensor.to reads as a dtype rather than a device ('float64', 'INT32')."""
    return isinstance(value, str) and value.lower() in _DTYPE_NAMES


def to_place(device: Any, where: str, *, set_device: bool = False) -> Place:
    """The place `device` names (the CPU's), or ValueError; `where` starts the message and
    `set_device` adds that function's rules (module docstring)."""
    if isinstance(device, Place):
        return device
    if set_device:
        device = _set_device_form(device, where)
    if device is None:
        return CPU_PLACE
    if not isinstance(device, str):
        raise ValueError(f"{where}: device must be a str such as 'cpu' or a place such as "
                         f"paddle.CPUPlace() (jitgrad runs on the CPU only), got "
                         f"{type(device).__name__} {device!r}")
    name = device.lower()
    if name.startswith("cuda"):
        name = "gpu" + name[4:]
    if name == "cpu":
        return CPU_PLACE
    kind, colon, index = name.partition(":")
    if kind == "cpu":
        raise ValueError(f"{where}: device {device!r} is not a device Paddle 3.3.1 reads "
                         "(the CPU takes no index; jitgrad runs on the CPU only): use 'cpu'")
    if kind in _ACCELERATORS:
        raise ValueError(f"{where}: device {device!r} is not available: jitgrad runs on the "
                         "CPU only (as Paddle's CPU build, compiled without CUDA and XPU); "
                         "use 'cpu'")
    hint = " (a dtype: pass it as dtype=)" if name in _DTYPE_NAMES else ""
    raise ValueError(f"{where}: unknown device {device!r}{hint}; jitgrad runs on the CPU "
                     "only: use 'cpu' or paddle.CPUPlace()")


def _set_device_form(device: Any, where: str) -> Any:
    """set_device's argument in the form the other readers take: a str stripped, None and
    a device index (0 or False) 'cpu' (Paddle 3.3.1's device_to_place)."""
    if isinstance(device, str):
        return device.strip()
    if device is None:
        return "cpu"
    if isinstance(device, int):
        if device < 0:
            raise ValueError(f"{where}({device!r}): a device index must be non-negative")
        if device != 0:
            raise ValueError(f"{where}({device!r}): the CPU is device index 0, the only "
                             "device jitgrad runs on")
        return "cpu"
    return device
