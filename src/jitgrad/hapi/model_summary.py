"""paddle.summary (Paddle 3.3.1's paddle/hapi/model_summary.py): one forward on random
inputs with a post-hook on every sublayer, then a table of each hooked layer's input and
output shapes and parameter count, and the totals.

Paddle's rules, kept as it has them: the model itself is hooked only when it has no
sublayers, Sequential and LayerList never are, and an LSTM/GRU/SimpleRNN (a LayerList in
Paddle) is hooked as one layer when it could use Paddle's fused kernel (four parameters per
layer and direction), its cells then not being called. A layer is named `<Class>-<n+1>` for
`<snake_name>_<n>`, its full_name(); a layer called twice keeps one row (the last call's).
Parameter counts are of the layer's own parameters (`_parameters`); a parameter is
trainable when `trainable` and not `stop_gradient`. Sizes in MB count 4 bytes per element,
outputs twice (for their gradients). The counts are numpy int64, as Paddle's.
"""

from __future__ import annotations

import numbers
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["summary", "summary_string"]


def _input_spec_type() -> type:
    from ..static import InputSpec
    return InputSpec


def summary(net: Any, input_size: Any = None, dtypes: Any = None, input: Any = None) -> dict:
    """Print a table of `net`'s layers (input and output shapes, parameter counts) and the
    totals; return {'total_params': n, 'trainable_params': m}. input_size: a shape (tuple,
    int or InputSpec) or a list of them for several inputs (only the batch dim may be None
    or -1, taken as 1); dtypes: one dtype or one per input (default float32); input: the
    tensor(s) to run instead, input_size then read from them."""
    import jitgrad as paddle
    InputSpec = _input_spec_type()
    if input_size is None and input is None:
        raise ValueError("input_size and input cannot be None at the same time")
    if input_size is None and input is not None:
        if paddle.is_tensor(input):
            input_size = tuple(input.shape)
        elif isinstance(input, (list, tuple)):
            input_size = [tuple(x.shape) for x in input]
        elif isinstance(input, dict):
            input_size = [tuple(input[key].shape) for key in input.keys()]
        else:
            raise ValueError("Input is not tensor, list, tuple and dict, unable to determine "
                             "input_size, please input input_size.")

    if isinstance(input_size, InputSpec):
        _input_size: Any = tuple(input_size.shape)
    elif isinstance(input_size, list):
        _input_size = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            assert isinstance(item, (tuple, InputSpec)), (
                "When input_size is list, expect item in input_size is a tuple or "
                f"InputSpec, but got {type(item)}")
            _input_size.append(tuple(item.shape) if isinstance(item, InputSpec) else item)
    elif isinstance(input_size, int):
        _input_size = (input_size,)
    else:
        _input_size = input_size

    if not paddle.in_dynamic_mode():
        warnings.warn("Your model was created in static graph mode, this may not get "
                      "correct summary information!")
        in_train_mode = False
    else:
        in_train_mode = net.training
    if in_train_mode:
        net.eval()

    def _is_shape(shape: Any) -> bool:
        return not any(isinstance(item, (list, tuple)) for item in shape)

    def _check_shape(shape: Any) -> tuple:
        num_unknown = 0
        new_shape = []
        for item in shape:
            if item is None or item == -1:
                num_unknown += 1
                if num_unknown > 1:
                    raise ValueError(
                        'Option input_size only the dim of batch_size can be None or -1.')
                item = 1
            elif isinstance(item, numbers.Number):
                if item <= 0:
                    raise ValueError("Expected element in input size greater than zero, "
                                     f"but got {item}")
            new_shape.append(item)
        return tuple(new_shape)

    def _check_input(input_size: Any) -> Any:
        if isinstance(input_size, (list, tuple)) and _is_shape(input_size):
            return _check_shape(input_size)
        return [_check_input(i) for i in input_size]

    _input_size = _check_input(_input_size)
    result, params_info = summary_string(net, _input_size, dtypes, input)
    print(result)
    if in_train_mode:
        net.train()
    return params_info


def _all_is_number(items: Any) -> bool:
    return all(isinstance(item, numbers.Number) for item in items)


def _fused_rnn(layer: Any) -> bool:
    """Paddle's `could_use_cudnn` of an RNNBase (LSTM, GRU, SimpleRNN): it runs as one op,
    not through its cells, when it has 4 parameters per layer and direction."""
    from ..nn.rnn import RNNBase
    if not isinstance(layer, RNNBase):
        return False
    flag = getattr(layer, "could_use_cudnn", None)
    if flag is not None:
        return bool(flag)
    return len(layer.parameters()) == layer.num_layers * 4 * layer.num_directions


def summary_string(model: Any, input_size: Any = None, dtypes: Any = None,
                   input: Any = None) -> tuple[str, dict]:
    """The table summary() prints, and its {'total_params', 'trainable_params'}."""
    import jitgrad as paddle
    from .. import nn
    from ..core.tensor import Tensor

    def _build_dtypes(input_size: Any, dtype: Any) -> list:
        if dtype is None:
            dtype = 'float32'
        if isinstance(input_size, (list, tuple)) and _all_is_number(input_size):
            return [dtype]
        return [_build_dtypes(i, dtype) for i in input_size]

    if not isinstance(dtypes, (list, tuple)):
        dtypes = _build_dtypes(input_size, dtypes)

    summary_str = ''
    depth = len(list(model.sublayers()))

    def _get_shape_from_tensor(x: Any) -> Any:
        if isinstance(x, Tensor):
            return list(x.shape)
        elif isinstance(x, (list, tuple)):
            return [_get_shape_from_tensor(xx) for xx in x]
        return None

    def _get_output_shape(output: Any) -> Any:
        if isinstance(output, (list, tuple)):
            return [_get_output_shape(o) for o in output]
        elif hasattr(output, 'shape'):
            return list(output.shape)
        return []

    # layers whose forward Paddle runs as one op: their sublayers are not called there
    fused = [layer for layer in model.sublayers(include_self=True) if _fused_rnn(layer)]
    inside_fused = {id(sub) for layer in fused for sub in layer.sublayers()}

    def register_hook(layer: Any) -> None:
        def hook(layer: Any, input: Any, output: Any) -> None:
            class_name = str(layer.__class__).split(".")[-1].split("'")[0]
            try:
                layer_idx = int(layer._full_name.split('_')[-1])
            except Exception:
                layer_idx = len(summary)
            m_key = f"{class_name}-{layer_idx + 1}"
            summary[m_key] = OrderedDict()
            try:
                summary[m_key]["input_shape"] = _get_shape_from_tensor(input)
            except Exception:
                warnings.warn('Get layer {} input shape failed!')
                summary[m_key]["input_shape"] = []
            try:
                summary[m_key]["output_shape"] = _get_output_shape(output)
            except Exception:
                warnings.warn('Get layer {} output shape failed!')
                summary[m_key]["output_shape"] = []

            params = 0
            summary[m_key]["trainable_params"] = 0
            trainable_flag = False
            for k, v in layer._parameters.items():
                params += np.prod(v.shape)
                try:
                    p = getattr(layer, k)
                    if p.trainable and not p.stop_gradient:
                        summary[m_key]["trainable_params"] += np.prod(v.shape)
                        summary[m_key]["trainable"] = True
                        trainable_flag = True
                    elif not trainable_flag:
                        summary[m_key]["trainable"] = False
                except Exception:
                    summary[m_key]["trainable"] = True
            summary[m_key]["nb_params"] = params

        if id(layer) in inside_fused:
            return
        if (not isinstance(layer, (nn.Sequential, nn.LayerList))
                and (layer is not model or depth < 1)):
            hooks.append(layer.register_forward_post_hook(hook))
        elif _fused_rnn(layer):     # for rnn, gru and lstm layer
            hooks.append(layer.register_forward_post_hook(hook))

    if isinstance(input_size, tuple):
        input_size = [input_size]

    def build_input(input_size: Any, dtypes: Any) -> Any:
        if isinstance(input_size, (list, tuple)) and _all_is_number(input_size):
            dtype = dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes
            return paddle.cast(paddle.rand(list(input_size)), dtype)
        return [build_input(i, dtype) for i, dtype in zip(input_size, dtypes)]

    summary: OrderedDict = OrderedDict()
    hooks: list = []
    model.apply(register_hook)
    try:
        with paddle.no_grad():
            if input is not None:
                model(input)
            else:
                model(*build_input(input_size, dtypes))
    finally:
        for h in hooks:
            h.remove()

    def _get_str_length(summary: OrderedDict) -> dict:
        head_length = {'layer_width': 15, 'input_shape_width': 20, 'output_shape_width': 20,
                       'params_width': 15, 'table_width': 75}
        for layer in summary:
            head_length['output_shape_width'] = max(head_length['output_shape_width'],
                                                    len(str(summary[layer]["output_shape"])))
            head_length['input_shape_width'] = max(head_length['input_shape_width'],
                                                   len(str(summary[layer]["input_shape"])))
            head_length['layer_width'] = max(head_length['layer_width'], len(str(layer)))
            head_length['params_width'] = max(head_length['params_width'],
                                              len(str(summary[layer]["nb_params"])))
        _temp_width = sum(v for k, v in head_length.items() if k != 'table_width')
        if head_length['table_width'] < _temp_width + 5:
            head_length['table_width'] = _temp_width + 5
        return head_length

    width = _get_str_length(summary)
    row = "{:^{}} {:^{}} {:^{}} {:^{}}"
    summary_str += "-" * width['table_width'] + "\n"
    summary_str += row.format("Layer (type)", width['layer_width'], "Input Shape",
                              width['input_shape_width'], "Output Shape",
                              width['output_shape_width'], "Param #",
                              width['params_width']) + "\n"
    summary_str += "=" * width['table_width'] + "\n"
    total_params: Any = 0
    total_output: Any = 0
    trainable_params: Any = 0
    for layer in summary:
        line_new = row.format(layer, width['layer_width'],
                              str(summary[layer]["input_shape"]), width['input_shape_width'],
                              str(summary[layer]["output_shape"]),
                              width['output_shape_width'],
                              "{:,}".format(summary[layer]["nb_params"]),
                              width['params_width'])
        total_params += summary[layer]["nb_params"]
        try:
            total_output += np.sum(np.prod(summary[layer]["output_shape"], axis=-1))
        except Exception:
            for output_shape in summary[layer]["output_shape"]:
                total_output += np.sum(np.prod(output_shape, axis=-1))
        if summary[layer].get("trainable"):
            trainable_params += summary[layer]["trainable_params"]
        summary_str += line_new + "\n"

    def _get_input_size(input_size: Any, size: Any) -> Any:
        if isinstance(input_size, (list, tuple)) and _all_is_number(input_size):
            return abs(np.prod(input_size) * 4.0 / (1024**2.0))
        return sum([_get_input_size(i, size) for i in input_size])

    total_input_size = _get_input_size(input_size, 0)
    total_output_size = abs(2.0 * total_output * 4.0 / (1024**2.0))  # x2 for gradients
    total_params_size = abs(total_params * 4.0 / (1024**2.0))
    total_size = total_params_size + total_output_size + total_input_size

    summary_str += "=" * width['table_width'] + "\n"
    summary_str += f"Total params: {total_params:,}" + "\n"
    summary_str += f"Trainable params: {trainable_params:,}" + "\n"
    summary_str += f"Non-trainable params: {total_params - trainable_params:,}" + "\n"
    summary_str += "-" * width['table_width'] + "\n"
    summary_str += f"Input size (MB): {total_input_size:0.2f}" + "\n"
    summary_str += f"Forward/backward pass size (MB): {total_output_size:0.2f}" + "\n"
    summary_str += f"Params size (MB): {total_params_size:0.2f}" + "\n"
    summary_str += f"Estimated Total Size (MB): {total_size:0.2f}" + "\n"
    summary_str += "-" * width['table_width'] + "\n"
    return summary_str, {'total_params': total_params, 'trainable_params': trainable_params}
