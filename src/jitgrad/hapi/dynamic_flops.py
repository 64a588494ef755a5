"""paddle.flops (Paddle 3.3.1's paddle/hapi/dynamic_flops.py): one forward on a random input
with hooks on the leaf layers (those without sublayers) that count each one's FLOPs,
parameters and input/output shapes, then `Total Flops: ...     Total Params: ...` and, with
print_detail, the per-layer table. Returns the total FLOPs (an int).

Paddle's counting rules: Conv*D(/Transpose) output numel * (in_channels / groups * kernel
numel + has_bias); BatchNorm2D / BatchNorm 2 * input numel; Linear in_features * output
numel; LeakyReLU input numel; AvgPool*D output numel; AdaptiveAvgPool*D output numel *
(prod(in_spatial // out_spatial) + 1); ReLU, ReLU6, Dropout 0; any other type counts 0 (and
says so) unless custom_ops maps its exact type to a `fn(layer, inputs, output)` that adds to
`layer.total_ops`. The counters are int64 buffers `total_ops`, `total_params`,
`input_shape`, `output_shape` on each leaf during the run, as in Paddle (a leaf that did not
run keeps `total_ops` and `total_params`, as in Paddle).

A layer type is printed as Paddle's (`<class 'paddle.nn.layer.common.Linear'>`) for the
jitgrad.nn layers Paddle has, so the messages read as Paddle's.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = ["flops", "dynamic_flops", "Table"]

# the module of each paddle.nn Layer class in Paddle 3.3.1 (paddle.nn.layer.<module>)
_PADDLE_MODULES = {
    "activation": "CELU ELU GELU GLU Hardshrink Hardsigmoid Hardswish Hardtanh LeakyReLU "
                  "LogSigmoid LogSoftmax Maxout Mish PReLU RReLU ReLU ReLU6 SELU Sigmoid Silu "
                  "Softmax Softmax2D Softplus Softshrink Softsign Swish Tanh Tanhshrink "
                  "ThresholdedReLU",
    "common": "AlphaDropout Bilinear CircularPad1D CircularPad2D CircularPad3D ConstantPad1D "
              "ConstantPad2D ConstantPad3D CosineSimilarity Dropout Dropout2D Dropout3D "
              "Embedding FeatureAlphaDropout Flatten Fold Identity Linear Pad1D Pad2D Pad3D "
              "ReflectionPad1D ReflectionPad2D ReflectionPad3D ReplicationPad1D "
              "ReplicationPad2D ReplicationPad3D Unflatten Unfold Upsample "
              "UpsamplingBilinear2D UpsamplingNearest2D ZeroPad1D ZeroPad2D ZeroPad3D",
    "container": "LayerDict LayerList ParameterDict ParameterList Sequential",
    "conv": "Conv1D Conv1DTranspose Conv2D Conv2DTranspose Conv3D Conv3DTranspose",
    "distance": "PairwiseDistance",
    "layers": "Layer",
    "loss": "AdaptiveLogSoftmaxWithLoss BCELoss BCEWithLogitsLoss CTCLoss "
            "CosineEmbeddingLoss CrossEntropyLoss GaussianNLLLoss HSigmoidLoss "
            "HingeEmbeddingLoss KLDivLoss L1Loss MSELoss MarginRankingLoss "
            "MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss NLLLoss "
            "PoissonNLLLoss RNNTLoss SmoothL1Loss SoftMarginLoss TripletMarginLoss "
            "TripletMarginWithDistanceLoss",
    "norm": "BatchNorm BatchNorm1D BatchNorm2D BatchNorm3D GroupNorm InstanceNorm1D "
            "InstanceNorm2D InstanceNorm3D LayerNorm LocalResponseNorm SpectralNorm "
            "SyncBatchNorm",
    "pooling": "AdaptiveAvgPool1D AdaptiveAvgPool2D AdaptiveAvgPool3D AdaptiveMaxPool1D "
               "AdaptiveMaxPool2D AdaptiveMaxPool3D AvgPool1D AvgPool2D AvgPool3D "
               "FractionalMaxPool2D FractionalMaxPool3D LPPool1D LPPool2D MaxPool1D "
               "MaxPool2D MaxPool3D MaxUnPool1D MaxUnPool2D MaxUnPool3D",
    "rnn": "BiRNN GRU GRUCell LSTM LSTMCell RNN RNNCellBase SimpleRNN SimpleRNNCell",
    "transformer": "MultiHeadAttention Transformer TransformerDecoder "
                   "TransformerDecoderLayer TransformerEncoder TransformerEncoderLayer",
    "vision": "ChannelShuffle PixelShuffle PixelUnshuffle",
}
_PADDLE_MODULE_OF = {name: mod for mod, names in _PADDLE_MODULES.items()
                     for name in names.split()}


def _type_str(t: type) -> str:
    """str(t), Paddle's for a jitgrad.nn layer type Paddle has."""
    from .. import nn
    name = t.__name__
    if t.__module__.startswith("jitgrad.") and getattr(nn, name, None) is t \
            and name in _PADDLE_MODULE_OF:
        return f"<class 'paddle.nn.layer.{_PADDLE_MODULE_OF[name]}.{name}'>"
    return str(t)


class Table:
    """The ASCII table flops(print_detail=True) prints (paddle.hapi.static_flops.Table)."""

    def __init__(self, table_heads: list) -> None:
        self.table_heads = table_heads
        self.table_len = [len(head) for head in table_heads]
        self.data: list = []
        self.col_num = len(table_heads)

    def add_row(self, row_str: list) -> None:
        if not isinstance(row_str, list):
            print('The row_str should be a list')
        if len(row_str) != self.col_num:
            print(f'The length of row data should be equal the length of table heads, but '
                  f'the data: {len(row_str)} is not equal table heads {self.col_num}')
        for i in range(self.col_num):
            if len(str(row_str[i])) > self.table_len[i]:
                self.table_len[i] = len(str(row_str[i]))
        self.data.append(row_str)

    def print_row(self, row: list) -> None:
        string = ''
        for i in range(self.col_num):
            string += '|' + str(row[i]).center(self.table_len[i] + 2)
        print(string + '|')

    def print_shelf(self) -> None:
        print(''.join('+' + '-' * (length + 2) for length in self.table_len) + '+')

    def print_table(self) -> None:
        self.print_shelf()
        self.print_row(self.table_heads)
        self.print_shelf()
        for data in self.data:
            self.print_row(data)
        self.print_shelf()


def flops(net: Any, input_size: list, custom_ops: dict | None = None,
          print_detail: bool = False) -> int:
    """FLOPs of one forward of `net` (a Layer) on a random input of shape input_size (batch
    1 advised): prints the total (and, with print_detail, a row per leaf layer) and returns
    it. custom_ops maps a layer type to fn(layer, inputs, output) adding to layer.total_ops."""
    import jitgrad as paddle
    from ..nn import Layer
    if isinstance(net, Layer):
        inputs = paddle.randn(input_size)
        return dynamic_flops(net, inputs=inputs, custom_ops=custom_ops,
                             print_detail=print_detail)
    warnings.warn("Your model must be an instance of paddle.nn.Layer or "
                  "paddle.static.Program.")
    return -1


def _int(t: Any) -> int:
    """int() of a one-element tensor or number."""
    return int(np.asarray(t.numpy() if hasattr(t, "numpy") else t).reshape(-1)[0])


def count_convNd(m: Any, x: Any, y: Any) -> None:
    x = x[0]
    kernel_ops = np.prod(m.weight.shape[2:])
    bias_ops = 1 if m.bias is not None else 0
    groups = m._groups if hasattr(m, "_groups") else m._args["groups"]   # (jitgrad's)
    total_ops = int(y.numel()) * (x.shape[1] / groups * kernel_ops + bias_ops)
    m.total_ops += abs(int(total_ops))


def count_leaky_relu(m: Any, x: Any, y: Any) -> None:
    m.total_ops += int(x[0].numel())


def count_bn(m: Any, x: Any, y: Any) -> None:
    nelements = x[0].numel()
    if not m.training:
        total_ops = 2 * nelements
    m.total_ops += abs(int(total_ops))


def count_linear(m: Any, x: Any, y: Any) -> None:
    total_ops = m.weight.shape[0] * y.numel()
    m.total_ops += abs(int(total_ops))


def count_avgpool(m: Any, x: Any, y: Any) -> None:
    m.total_ops += int(1 * y.numel())


def count_adap_avgpool(m: Any, x: Any, y: Any) -> None:
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    kernel_ops = np.prod(kernel) + 1
    total_ops = kernel_ops * int(y.numel())
    m.total_ops += abs(int(total_ops))


def count_zero_ops(m: Any, x: Any, y: Any) -> None:
    m.total_ops += 0


def count_parameters(m: Any, x: Any, y: Any) -> None:
    total_params = 0
    for p in m.parameters():
        total_params += int(p.numel())
    m.total_params[0] = abs(int(total_params))


def count_io_info(m: Any, x: Any, y: Any) -> None:
    import jitgrad as paddle
    m.register_buffer('input_shape', paddle.to_tensor(x[0].shape))
    if isinstance(y, (list, tuple)):
        m.register_buffer('output_shape', paddle.to_tensor(y[0].shape))
    else:
        m.register_buffer('output_shape', paddle.to_tensor(y.shape))


def _register_hooks() -> dict:
    from .. import nn
    return {
        nn.Conv1D: count_convNd, nn.Conv2D: count_convNd, nn.Conv3D: count_convNd,
        nn.Conv1DTranspose: count_convNd, nn.Conv2DTranspose: count_convNd,
        nn.Conv3DTranspose: count_convNd,
        nn.BatchNorm2D: count_bn, nn.BatchNorm: count_bn,
        nn.ReLU: count_zero_ops, nn.ReLU6: count_zero_ops,
        nn.LeakyReLU: count_leaky_relu,
        nn.Linear: count_linear,
        nn.Dropout: count_zero_ops,
        nn.AvgPool1D: count_avgpool, nn.AvgPool2D: count_avgpool,
        nn.AvgPool3D: count_avgpool,
        nn.AdaptiveAvgPool1D: count_adap_avgpool, nn.AdaptiveAvgPool2D: count_adap_avgpool,
        nn.AdaptiveAvgPool3D: count_adap_avgpool,
    }


_IO = ('total_ops', 'total_params', 'input_shape', 'output_shape')


def _pop_buffer(m: Any, name: str) -> None:
    m._buffers.pop(name, None)
    m.__dict__.pop(name, None)


def dynamic_flops(model: Any, inputs: Any, custom_ops: dict | None = None,
                  print_detail: bool = False) -> int:
    """flops() of `model` on `inputs` (one tensor)."""
    import jitgrad as paddle
    register_hooks = _register_hooks()
    handler_collection: list = []
    types_collection: set = set()
    if custom_ops is None:
        custom_ops = {}

    # Paddle runs a fused LSTM/GRU/SimpleRNN as one op: its cells are hooked but not called
    from .model_summary import _fused_rnn
    fused = [layer for layer in model.sublayers(include_self=True) if _fused_rnn(layer)]
    inside_fused = {id(sub) for layer in fused for sub in layer.sublayers()}

    def add_hooks(m: Any) -> None:
        if len(list(m.children())) > 0:
            return
        m.register_buffer('total_ops', paddle.zeros([1], dtype='int64'))
        m.register_buffer('total_params', paddle.zeros([1], dtype='int64'))
        m_type = type(m)
        flops_fn = None
        if m_type in custom_ops:
            flops_fn = custom_ops[m_type]
            if m_type not in types_collection:
                print(f"Customize Function has been applied to {_type_str(m_type)}")
        elif m_type in register_hooks:
            flops_fn = register_hooks[m_type]
            if m_type not in types_collection:
                print(f"{_type_str(m_type)}'s flops has been counted")
        else:
            if m_type not in types_collection:
                print(f"Cannot find suitable count function for {_type_str(m_type)}. "
                      "Treat it as zero FLOPs.")
        if id(m) not in inside_fused:
            if flops_fn is not None:
                handler_collection.append(m.register_forward_post_hook(flops_fn))
            handler_collection.append(m.register_forward_post_hook(count_parameters))
            handler_collection.append(m.register_forward_post_hook(count_io_info))
        types_collection.add(m_type)

    training = model.training
    model.eval()
    model.apply(add_hooks)
    with paddle.no_grad():
        model(inputs)

    total_ops = 0
    total_params = 0
    for m in model.sublayers():
        if len(list(m.children())) > 0:
            continue
        if set(_IO).issubset(set(m._buffers.keys())):
            total_ops += _int(m.total_ops)
            total_params += _int(m.total_params)

    if training:
        model.train()
    for handler in handler_collection:
        handler.remove()

    table = Table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"])
    for n, m in model.named_sublayers():
        if len(list(m.children())) > 0:
            continue
        if set(_IO).issubset(set(m._buffers.keys())):
            table.add_row([m.full_name(), m.input_shape.numpy().tolist(),
                           m.output_shape.numpy().tolist(), _int(m.total_params),
                           _int(m.total_ops)])
            for name in _IO:
                _pop_buffer(m, name)
    if print_detail:
        table.print_table()
    print(f'Total Flops: {int(total_ops)}     Total Params: {int(total_params)}')
    return int(total_ops)
