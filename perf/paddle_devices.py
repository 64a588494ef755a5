"""Survey: the device/place API a CPU user touches, on Paddle 3.3.1 (CPU build) and on
jitgrad, side by side: each case's value (repr) or its exception's type and message.

    OMP_NUM_THREADS=1 /work/peers/bin/python perf/paddle_devices.py [--only-diff]

Runs each case in a child of this interpreter (paddle) and of one with this checkout's
src/ first on its path (jitgrad, imported as paddle); after every case the device is set
back to 'cpu'. tests/test_devices.py pins the values measured here.
"""

import argparse
import json
import os
import subprocess
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

CASES = [
    # set_device / get_device
    "paddle.set_device('cpu')", "paddle.set_device('CPU')", "paddle.set_device('Cpu')",
    "paddle.set_device('cpu:0')", "paddle.set_device('cpu:1')", "paddle.set_device(' cpu')",
    "paddle.set_device('gpu')", "paddle.set_device('gpu:0')", "paddle.set_device('GPU')",
    "paddle.set_device('cuda')", "paddle.set_device('xpu')", "paddle.set_device('xpu:0')",
    "paddle.set_device('npu')", "paddle.set_device('')", "paddle.set_device(None)",
    "paddle.set_device(1)", "paddle.set_device(paddle.CPUPlace())",
    "paddle.set_device(b'cpu')",
    "(paddle.set_device('CPU'), paddle.get_device())[1]",
    "paddle.get_device()", "paddle.device.get_device()",
    "paddle.device.set_device('cpu')", "paddle.device.set_device('CPU')",
    "paddle.device.set_device('cpu:0')",
    "type(paddle.set_device('cpu')).__name__",
    "paddle.set_device('cpu') == paddle.CPUPlace()",
    # places
    "paddle.CPUPlace()", "str(paddle.CPUPlace())", "repr(paddle.CPUPlace())",
    "paddle.CPUPlace() == paddle.CPUPlace()", "paddle.CPUPlace() != paddle.CPUPlace()",
    "paddle.CPUPlace() == 'cpu'", "paddle.CPUPlace() == 0",
    "hash(paddle.CPUPlace()) == hash(paddle.CPUPlace())",
    "type(paddle.CPUPlace()).__name__",
    "paddle.CPUPlace().is_cpu_place()", "paddle.CPUPlace().is_gpu_place()",
    "paddle.CPUPlace(0)",
    "paddle.CUDAPlace(0)", "paddle.CUDAPinnedPlace()", "paddle.XPUPlace(0)",
    "paddle.CustomPlace('npu', 0)",
    "paddle.is_compiled_with_cuda()", "paddle.is_compiled_with_rocm()",
    "paddle.is_compiled_with_xpu()", "paddle.is_compiled_with_custom_device('npu')",
    "paddle.is_compiled_with_cinn()", "paddle.is_compiled_with_distribute()",
    "paddle.is_compiled_with_ipu()",
    "paddle.device.is_compiled_with_cuda()", "paddle.device.is_compiled_with_rocm()",
    "paddle.device.is_compiled_with_xpu()", "paddle.device.is_compiled_with_ipu()",
    "paddle.device.is_compiled_with_cinn()", "paddle.device.is_compiled_with_distribute()",
    "paddle.device.is_compiled_with_custom_device('npu')",
    "paddle.device.get_all_device_type()", "paddle.device.get_available_device()",
    "paddle.device.get_all_custom_device_type()",
    "paddle.device.get_available_custom_device()",
    "paddle.device.synchronize()", "paddle.device.synchronize('cpu')",
    "paddle.device.cuda.device_count()", "paddle.device.cuda.is_available()",
    "paddle.device.cuda.synchronize()", "paddle.device.cuda.empty_cache()",
    "paddle.device.cuda.current_device()",
    "paddle.device.cuda.memory_allocated()", "paddle.device.cuda.max_memory_allocated()",
    "paddle.device.cuda.memory_reserved()", "paddle.device.cuda.max_memory_reserved()",
    "paddle.cuda.device_count()", "paddle.cuda.is_available()",
    # Tensor.place and the moves
    "x.place", "str(x.place)", "x.place == paddle.CPUPlace()", "x.place.is_cpu_place()",
    "x.place.is_gpu_place()", "type(x.place).__name__", "x.place.gpu_device_id()",
    "x.is_cuda", "x.device", "str(x.device)",
    "x.cpu() is x", "x.cpu().numpy().tolist()", "x.cpu().place",
    "x.cuda()", "x.cuda(0)", "x.pin_memory()", "x.is_pinned()",
    "x.to('cpu') is x", "x.to('cpu').place", "x.to('CPU').place", "x.to('cpu:0').place",
    "x.to('gpu')", "x.to('gpu:0')", "x.to('cuda')", "x.to('xpu')", "x.to('npu')",
    "x.to('float64').dtype", "x.to(paddle.float64).dtype", "x.to(paddle.CPUPlace()).place",
    "x.to(paddle.CPUPlace()) is x", "x.to('cpu', 'float64').dtype",
    "x.to(device='cpu').place", "x.to(device='gpu')", "x.to(dtype='int32').dtype",
    "x.to(x.place).place", "x.to(1)", "x.to(None)", "x.to('abc')",
    "x.to(paddle.to_tensor([1], dtype='int32')).dtype",
    "x.to('cpu', blocking=True).place", "x.to('cpu', non_blocking=True).place",
    "x.to('cpu', copy=True) is x",
    # to_tensor(place=...)
    "paddle.to_tensor([1.0], place='cpu').place",
    "paddle.to_tensor([1.0], place='CPU').place",
    "paddle.to_tensor([1.0], place='cpu:0').place",
    "paddle.to_tensor([1.0], place=paddle.CPUPlace()).place",
    "paddle.to_tensor([1.0], place='gpu:0')", "paddle.to_tensor([1.0], place='gpu')",
    "paddle.to_tensor([1.0], place=1)", "paddle.to_tensor([1.0], place='abc')",
    "paddle.to_tensor([1.0], place=None).place",
    "paddle.to_tensor([1.0], place=x.place).place",
    # device= keyword (torch style)
    "paddle.zeros([1], device='cpu').place", "paddle.zeros([1], device='CPU').place",
    "paddle.zeros([1], device='cpu:0').place", "paddle.zeros([1], device='cpu:1').place",
    "paddle.zeros([1], device=paddle.CPUPlace()).place",
    "paddle.zeros([1], device='gpu')", "paddle.zeros([1], device='gpu:0')",
    "paddle.zeros([1], device='cuda')", "paddle.zeros([1], device='xpu')",
    "paddle.zeros([1], device='')", "paddle.zeros([1], device=1)",
    "paddle.zeros([1], device=0)", "paddle.zeros([1], device='abc')",
    "paddle.zeros([1], device=None).place",
    "paddle.zeros([1], pin_memory=True)",
    "paddle.ones_like(x, device='cpu').place",
    "paddle.arange(3, device='cpu').place",
    # layers
    "paddle.nn.Linear(1, 1).to('cpu') is not None",
    "paddle.nn.Linear(1, 1).to('CPU') is not None",
    "paddle.nn.Linear(1, 1).to('cpu:0') is not None",
    "paddle.nn.Linear(1, 1).to(paddle.CPUPlace()) is not None",
    "paddle.nn.Linear(1, 1).to('gpu')", "paddle.nn.Linear(1, 1).to(1)",
    "paddle.nn.Linear(1, 1).cpu() is not None",
    # more set_device forms (Paddle's device_to_place: strip, None, an int index)
    "paddle.set_device(True)", "paddle.set_device(False)", "paddle.set_device(0)",
    "paddle.set_device(-1)", "paddle.set_device(1.5)", "paddle.set_device([])",
    "paddle.set_device('cuda:0')", "paddle.set_device('CUDA')", "paddle.set_device('gpu:0abc')",
    "paddle.set_device('ipu')", "paddle.set_device('dcu')", "paddle.set_device('cpu ')",
    "paddle.set_device('\\tcpu\\n')", "paddle.set_device(x.place)",
    "type(paddle.set_device(None)).__name__",
    "paddle.set_device(paddle.CPUPlace()) == paddle.CPUPlace()",
    "paddle.get_device(x)", "paddle.device.get_device(x)",
    "paddle.CUDAPlace(1)", "paddle.CUDAPlace('a')", "isinstance(x.place, paddle.CPUPlace)",
    "paddle.CPUPlace() == x.place", "paddle.CPUPlace()._equals(x.place)",
    "x.place._equals(paddle.CPUPlace())", "{x.place, paddle.CPUPlace()}",
    "x.place.is_xpu_place()", "x.place.is_custom_place()", "x.place.is_cuda_pinned_place()",
    "x.place.custom_device_type()",
    "paddle.device.is_available()", "paddle.device.device_count()",
    "paddle.device.synchronize(paddle.CPUPlace())",
    "paddle.device.cuda.device_count(1)", "paddle.device.cuda.empty_cache(1)",
    "paddle.device.cuda.get_device_name()", "paddle.device.cuda.get_device_properties()",
    "paddle.device.cuda.get_device_capability()",
    "paddle.device.cuda.reset_max_memory_allocated()",
    "paddle.cuda.synchronize()", "paddle.cuda.current_device()",
    # more device= / place= strings (Paddle's _get_paddle_place: no strip)
    "paddle.zeros([1], device=' cpu')", "paddle.zeros([1], device='cuda:0')",
    "paddle.zeros([1], device='ipu:0')", "paddle.zeros([1], device='Cpu').place",
    "paddle.zeros([1], device=x.place).place", "paddle.zeros([1], device=True)",
    "paddle.zeros([1], device=b'cpu')", "paddle.to_tensor([1.0], place=' cpu')",
    "paddle.to_tensor([1.0], place='xpu:0')",
    "paddle.to_tensor([1.0], place='cpu', dtype='float64').dtype",
    # more Tensor.to forms (Paddle's _convert_to_place: no strip)
    "x.to(' cpu')", "x.to('cuda:0')", "x.to('ipu')", "x.to('dcu')", "x.to()",
    "x.to(None) is x", "x.to('cpu', 'float32') is x", "x.to('float32') is x",
    "x.to(paddle.float32) is x", "x.to(np.dtype('float32')) is x", "x.to('FLOAT64').dtype",
    "x.to(x) is x", "x.to(dtype=paddle.float32) is x", "x.to(dtype='float32') is x",
    "x.to(np.float32)", "x.to('cpu', np.float64).dtype", "x.to('cpu', 'float64', False).dtype",
    "x.to(x.place, paddle.float32) is x", "x.to(device='cpu', dtype='float64').dtype",
    "x.to(blocking=True) is x", "x.to(dtype=None) is x", "x.to(device=None) is x",
    "x.to(device=1)", "x.to(device=' cpu')", "x.to('cpu', 'float32', True, 1)",
    "x.to('cpu', foo=1)", "x.to('cpu', blocking=1) is x", "x.to(other=x) is x",
    "x.to(paddle.CPUPlace(), blocking=False) is x", "x.to(other=x.astype('int32')).dtype",
    "x.to('cpu', other=x) is x", "x.to(x, 'float64').dtype", "x.to('gpu', 'float64')",
    "w.to('float64').stop_gradient", "w.to('float64').is_leaf",
    "w.to('cpu', copy=True).stop_gradient", "w.to('cpu', copy=True).is_leaf",
    "w.to('cpu', copy=True) is w", "x.to('cpu', copy=True).numpy().tolist()",
    "w.to(paddle.float32, copy=True).is_leaf", "w.to('float64', copy=True).is_leaf",
    "x.cuda('0')", "x.pin_memory(False)",
    # more layers (Paddle's _convert_to_place: no strip)
    "paddle.nn.Linear(1, 1).to(' cpu')", "paddle.nn.Linear(1, 1).to('cuda:0')",
    "paddle.nn.Linear(1, 1).to(None) is not None",
    "paddle.nn.Linear(1, 1).to(device=x.place) is not None",
    "paddle.nn.Linear(1, 1).to('float64')", "paddle.nn.Linear(1, 1).cuda()",
    "paddle.nn.Linear(1, 1).cpu().weight.place",
    # the layers' device= (Paddle's _convert_to_place), fill_constant's place=, the rng state
    "paddle.nn.Conv2D(1, 1, 1, device='gpu')", "paddle.nn.Conv2D(1, 1, 1, device='cpu:0')",
    "paddle.nn.Conv2D(1, 1, 1, device='CPU').weight.place",
    "paddle.nn.Conv2D(1, 1, 1, device=paddle.CPUPlace()).weight.place",
    "paddle.nn.Conv2D(1, 1, 1, device='abc')", "paddle.nn.Conv1D(1, 1, 1, device='gpu:0')",
    "paddle.nn.Conv3D(1, 1, 1, device='gpu:0')", "paddle.nn.LayerNorm(2, device='gpu:0')",
    "paddle.nn.LayerNorm(2, device='cpu:0')", "paddle.nn.LayerNorm(2, device='cpu').weight.place",
    "paddle.nn.Embedding(2, 2, device='gpu:0')", "paddle.nn.Embedding(2, 2, device='cpu:0')",
    "paddle.nn.Embedding(2, 2, device='cpu').weight.place",
    "paddle.nn.GroupNorm(1, 2, device='gpu:0')", "paddle.nn.GroupNorm(1, 2, device='cpu:0')",
    "paddle.nn.GroupNorm(1, 2, device='cpu').weight.place",
    "paddle.tensor.fill_constant([1], 'float32', 1.0, place='gpu:0')",
    "paddle.tensor.fill_constant([1], 'float32', 1.0, place='cpu:0')",
    "paddle.tensor.fill_constant([1], 'float32', 1.0, place=paddle.CPUPlace()).place",
    "paddle.get_rng_state('gpu')", "paddle.get_rng_state('cpu:0')", "paddle.get_rng_state('abc')",
    "len(paddle.get_rng_state('cpu'))", "len(paddle.get_rng_state(paddle.CPUPlace()))",
    "paddle.set_rng_state(paddle.get_rng_state(), device='gpu:0')",
    "paddle.set_rng_state(paddle.get_rng_state(), device='cpu:0')",
    "paddle.set_rng_state(paddle.get_rng_state(), device='cpu')",
    "paddle.linspace(0, 1, 3, device='cpu:0')", "paddle.range(0, 3, device='cpu:0')",
    # the device context (set_device's rules) and cuDNN
    "paddle.device.device('cpu').place", "paddle.device.device('CPU').place",
    "paddle.device.device(None).place", "paddle.device.device(0).place",
    "paddle.device.device(paddle.CPUPlace()).place", "paddle.device.device('gpu')",
    "paddle.device.device('cpu:0')", "paddle.device.device(1)",
    "paddle.cuda.device('cpu').place",
    "[paddle.get_device() for _ in [paddle.device.device('cpu').__enter__()]]",
    "paddle.get_cudnn_version()", "paddle.device.get_cudnn_version()",
]

CHILD = r'''
import json, os, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import paddle
x = paddle.to_tensor([1.0, 2.0])
w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
out = {}
for case in json.loads(sys.argv[1]):
    try:
        v = eval(case)
        out[case] = ["ok", repr(v)]
    except BaseException as e:
        out[case] = [type(e).__name__, str(e).strip().splitlines()[0][:150] if str(e).strip()
                     else ""]
    try:
        paddle.set_device("cpu")
    except Exception:
        pass
print("@@" + json.dumps(out))
'''

SHIM = r'''
import sys, jitgrad
sys.modules["paddle"] = jitgrad
'''


def run(use_jitgrad: bool) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", GLOG_minloglevel="3")
    code = CHILD
    if use_jitgrad:
        env["PYTHONPATH"] = SRC
        code = SHIM + CHILD
    p = subprocess.run([sys.executable, "-c", code, json.dumps(CASES)], env=env,
                       capture_output=True, text=True)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("@@")]
    if not line:
        sys.exit(p.stderr)
    return json.loads(line[0][2:])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only-diff", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    pd, jg = run(False), run(True)
    diffs = 0
    for case in CASES:
        same = pd[case] == jg[case] or (pd[case][0] != "ok" and pd[case][0] == jg[case][0])
        diffs += not same
        if a.only_diff and same:
            continue
        mark = "  " if same else "!!"
        print(f"{mark} {case}\n     paddle : {pd[case]}\n     jitgrad: {jg[case]}")
    print(f"{len(CASES)} cases, {diffs} differ (value, or exception type)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"paddle": pd, "jitgrad": jg}, f, indent=1)


if __name__ == "__main__":
    main()
