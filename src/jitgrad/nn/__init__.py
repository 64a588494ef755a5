"""Paddle's `nn` namespace: Layer and the common layers, `functional`, `initializer`."""

from . import functional, initializer
from .initializer import ParamAttr
from .layer import Layer, Parameter, create_parameter
from .function_layers import (AdaptiveAvgPool1D, AdaptiveMaxPool1D, AdaptiveMaxPool2D, AvgPool1D,
                              BCELoss, BCEWithLogitsLoss, CELU, CosineEmbeddingLoss,
                              CosineSimilarity, CrossEntropyLoss, ELU, GaussianNLLLoss, GELU, GLU,
                              Hardshrink, Hardsigmoid, Hardswish, Hardtanh, HingeEmbeddingLoss,
                              KLDivLoss, L1Loss, LeakyReLU, LogSigmoid, LogSoftmax,
                              MarginRankingLoss, MaxPool1D, Mish, MSELoss,
                              MultiLabelSoftMarginLoss, NLLLoss, PairwiseDistance, PoissonNLLLoss,
                              ReLU, ReLU6, SELU, Sigmoid, SiLU, SmoothL1Loss, SoftMarginLoss,
                              Softmax, Softplus, Softshrink, Softsign, Swish, Tanh, Tanhshrink,
                              ThresholdedReLU, TripletMarginLoss)
from .layers import (AdaptiveAvgPool2D, AvgPool2D, BatchNorm, BatchNorm1D, BatchNorm2D, Conv1D,
                     Conv1DTranspose, Conv2D, Conv2DTranspose, Dropout, Embedding, Flatten,
                     Identity, InstanceNorm1D, InstanceNorm2D, LayerList, LayerNorm, Linear,
                     MaxPool2D, PReLU, Sequential)
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue

__all__ = ["functional", "initializer", "ParamAttr", "Layer", "Parameter", "create_parameter",
           "ELU", "GELU", "SELU", "AdaptiveAvgPool2D", "AvgPool2D", "BatchNorm", "BatchNorm1D",
           "BatchNorm2D", "BCELoss", "BCEWithLogitsLoss", "Conv1D", "Conv2D",
           "CrossEntropyLoss", "Dropout", "Embedding", "Flatten", "Hardsigmoid", "Hardswish",
           "Hardtanh", "KLDivLoss", "L1Loss", "LayerList", "LayerNorm", "LeakyReLU", "Linear",
           "LogSoftmax", "MaxPool2D", "Mish", "MSELoss", "NLLLoss", "ReLU", "ReLU6",
           "Sequential", "Sigmoid", "SiLU", "SmoothL1Loss", "Softmax", "Softplus", "Softsign",
           "Swish", "Tanh", "ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue",
           "CELU", "GLU", "CosineEmbeddingLoss", "CosineSimilarity", "GaussianNLLLoss",
           "Hardshrink", "HingeEmbeddingLoss", "Identity", "LogSigmoid", "MarginRankingLoss",
           "MultiLabelSoftMarginLoss", "PairwiseDistance", "PoissonNLLLoss", "PReLU",
           "Softshrink", "SoftMarginLoss", "Tanhshrink", "ThresholdedReLU",
           "TripletMarginLoss", "AdaptiveAvgPool1D", "AdaptiveMaxPool1D", "AdaptiveMaxPool2D",
           "AvgPool1D", "Conv1DTranspose", "Conv2DTranspose", "InstanceNorm1D",
           "InstanceNorm2D", "MaxPool1D"]

# recurrent layers (nn/rnn_cells.py, nn/rnn.py)
from .rnn_cells import GRUCell, LSTMCell, RNNCellBase, SimpleRNNCell  # noqa: E402
from .rnn import GRU, LSTM, RNN, BiRNN, RNNBase, SimpleRNN  # noqa: E402
__all__ += ["GRUCell", "LSTMCell", "RNNCellBase", "SimpleRNNCell", "GRU", "LSTM", "RNN",
            "BiRNN", "RNNBase", "SimpleRNN"]

# attention (nn/attention.py)
from .attention import (MultiHeadAttention, TransformerEncoder,  # noqa: E402
                        TransformerEncoderLayer)
__all__ += ["MultiHeadAttention", "TransformerEncoder", "TransformerEncoderLayer"]
from .containers import LayerDict, ParameterDict, ParameterList  # noqa: E402
__all__ += ["LayerDict", "ParameterDict", "ParameterList"]

from . import utils  # noqa: E402
from .utils import spectral_norm  # noqa: E402,F401  (Paddle 3.3.1: paddle.nn.spectral_norm)
from .layer_torch_names import METHODS as _LAYER_METHODS  # noqa: E402
for _n, _f in _LAYER_METHODS.items():
    setattr(Layer, _n, _f)
from .layers3d import (AdaptiveAvgPool3D, AdaptiveMaxPool3D, AvgPool3D,  # noqa: E402
                       BatchNorm3D, Conv3D, Conv3DTranspose, InstanceNorm3D, MaxPool3D,
                       SyncBatchNorm)
__all__ += ["AdaptiveAvgPool3D", "AdaptiveMaxPool3D", "AvgPool3D", "BatchNorm3D", "Conv3D",
            "Conv3DTranspose", "InstanceNorm3D", "MaxPool3D", "SyncBatchNorm"]
from .transformer import Transformer, TransformerDecoder, TransformerDecoderLayer  # noqa: E402
__all__ += ["Transformer", "TransformerDecoder", "TransformerDecoderLayer"]
from .extra_layers import NAMES as _EXTRA  # noqa: E402
globals().update(_EXTRA)
__all__ += sorted(_EXTRA)
from .resampling_layers import NAMES as _RESAMPLING  # noqa: E402
globals().update(_RESAMPLING)
__all__ += sorted(_RESAMPLING)
from .loss_layers_more import NAMES as _LOSS_LAYERS_MORE  # noqa: E402
globals().update(_LOSS_LAYERS_MORE)
__all__ += sorted(_LOSS_LAYERS_MORE)
from .layers_more import NAMES as _LAYERS_MORE  # noqa: E402
globals().update(_LAYERS_MORE)
__all__ += sorted(_LAYERS_MORE)
from . import init  # noqa: E402
# Paddle 3.3.1's torch-style names for the same classes
_ALIASES = {"ModuleList": "LayerList", "ModuleDict": "LayerDict", "Module": "Layer", "Silu": "SiLU",
            "Conv1d": "Conv1D", "Conv2d": "Conv2D", "Conv3d": "Conv3D",
            "AdaptiveAvgPool1d": "AdaptiveAvgPool1D", "AdaptiveAvgPool2d": "AdaptiveAvgPool2D",
            "AdaptiveAvgPool3d": "AdaptiveAvgPool3D", "AdaptiveMaxPool1d": "AdaptiveMaxPool1D",
            "AdaptiveMaxPool2d": "AdaptiveMaxPool2D", "AdaptiveMaxPool3d": "AdaptiveMaxPool3D",
            "MaxUnpool1d": "MaxUnPool1D", "MaxUnpool2d": "MaxUnPool2D",
            "MaxUnpool3d": "MaxUnPool3D", "UpsamplingNearest2d": "UpsamplingNearest2D",
            "UpsamplingBilinear2d": "UpsamplingBilinear2D", "HuberLoss": "SmoothL1Loss"}
globals().update({alias: globals()[name] for alias, name in _ALIASES.items()})
__all__ += sorted(_ALIASES) + ["utils", "init"]

# Paddle 3.3.1's keyword aliases on some layers' forward (its param_one_alias and
# param_two_alias decorators): Conv2D(...)(input=t), SmoothL1Loss()(t, target=u)
from ..core.param_aliases import with_aliases as _with_aliases  # noqa: E402
_FORWARD_ALIASES = {
    **{_n: {"input": "x"} for _n in (
        "AdaptiveAvgPool2D AdaptiveAvgPool3D AdaptiveMaxPool2D AdaptiveMaxPool3D Conv1D Conv2D "
        "Conv3D Embedding GLU Hardshrink LPPool1D LPPool2D MaxUnPool1D MaxUnPool2D "
        "MaxUnPool3D Pad1D Pad2D Pad3D Softshrink UpsamplingBilinear2D UpsamplingNearest2D "
        "CircularPad1D CircularPad2D CircularPad3D ConstantPad1D ConstantPad2D ConstantPad3D "
        "ReflectionPad1D ReflectionPad2D ReflectionPad3D ReplicationPad1D ReplicationPad2D "
        "ReplicationPad3D ZeroPad1D ZeroPad2D ZeroPad3D").split()},
    "PairwiseDistance": {"x1": "x", "x2": "y"}, "SmoothL1Loss": {"target": "label"}}
for _n, _m in _FORWARD_ALIASES.items():
    globals()[_n].forward = _with_aliases(globals()[_n].forward, _m)

from ..core.namespace import module_getattr as _module_getattr  # noqa: E402
__getattr__ = _module_getattr('jitgrad.nn', 'nn')   # a missing name says what Paddle has
# beam search decoding (nn/decode.py; paddle.nn.decode.Decoder too)
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: E402
__all__ += ["BeamSearchDecoder", "dynamic_decode"]
