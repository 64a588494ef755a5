"""repr(layer) / print(model) as Paddle 3.3.1 prints them (each layer's extra_repr, nested by
Layer.__repr__). Every expected string was measured on paddlepaddle 3.3.1 (CPU)."""

import pytest

import jitgrad as paddle
from jitgrad import nn

# (constructor, repr on Paddle 3.3.1)
CASES = [
    (lambda: nn.Linear(3, 4),
     "Linear(in_features=3, out_features=4, dtype=float32)"),
    (lambda: nn.Linear(3, 4, bias_attr=False),
     "Linear(in_features=3, out_features=4, dtype=float32)"),
    (lambda: nn.Linear(3, 4, name="fc"),
     "Linear(in_features=3, out_features=4, dtype=float32, name=fc)"),
    (lambda: nn.Bilinear(3, 4, 5),
     "Bilinear(in1_features=3, in2_features=4, out_features=5, dtype=float32)"),
    (lambda: nn.Conv1D(2, 4, 3),
     "Conv1D(2, 4, kernel_size=[3], data_format=NCL)"),
    (lambda: nn.Conv1D(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias_attr=False,
                       data_format="NLC"),
     "Conv1D(2, 4, kernel_size=[3], stride=[2], padding=1, dilation=[2], groups=2, "
     "data_format=NLC)"),
    (lambda: nn.Conv1D(2, 4, 3, padding=1, padding_mode="reflect"),
     "Conv1D(2, 4, kernel_size=[3], padding=1, padding_mode=reflect, data_format=NCL)"),
    (lambda: nn.Conv2D(3, 8, 3),
     "Conv2D(3, 8, kernel_size=[3, 3], data_format=NCHW)"),
    (lambda: nn.Conv2D(4, 8, (3, 5), stride=(2, 1), padding=[1, 2], dilation=2, groups=4,
                       bias_attr=False),
     "Conv2D(4, 8, kernel_size=[3, 5], stride=[2, 1], padding=[1, 2], dilation=[2, 2], groups=4, "
     "data_format=NCHW)"),
    (lambda: nn.Conv2D(3, 8, 3, padding="SAME", data_format="NHWC"),
     "Conv2D(3, 8, kernel_size=[3, 3], padding=SAME, data_format=NHWC)"),
    (lambda: nn.Conv2D(3, 8, 3, padding=1, padding_mode="circular"),
     "Conv2D(3, 8, kernel_size=[3, 3], padding=1, padding_mode=circular, data_format=NCHW)"),
    (lambda: nn.Conv2D(3, 8, 3, stride=1, padding=0),
     "Conv2D(3, 8, kernel_size=[3, 3], data_format=NCHW)"),
    (lambda: nn.Conv3D(2, 4, 3),
     "Conv3D(2, 4, kernel_size=[3, 3, 3], data_format=NCDHW)"),
    (lambda: nn.Conv3D(2, 4, 3, stride=2, padding=1, data_format="NDHWC"),
     "Conv3D(2, 4, kernel_size=[3, 3, 3], stride=[2, 2, 2], padding=1, data_format=NDHWC)"),
    (lambda: nn.Conv1DTranspose(2, 4, 3),
     "Conv1DTranspose(2, 4, kernel_size=[3], data_format=NCL)"),
    (lambda: nn.Conv1DTranspose(2, 4, 3, stride=2, padding=1, output_padding=1, groups=2),
     "Conv1DTranspose(2, 4, kernel_size=[3], stride=[2], padding=1, output_padding=1, groups=2, "
     "data_format=NCL)"),
    (lambda: nn.Conv2DTranspose(3, 6, 3),
     "Conv2DTranspose(3, 6, kernel_size=[3, 3], data_format=NCHW)"),
    (lambda: nn.Conv2DTranspose(4, 8, 3, stride=2, padding=1, output_padding=1, dilation=1,
                                groups=2, bias_attr=False),
     "Conv2DTranspose(4, 8, kernel_size=[3, 3], stride=[2, 2], padding=1, output_padding=1, "
     "groups=2, data_format=NCHW)"),
    (lambda: nn.Conv3DTranspose(2, 4, 3, stride=2),
     "Conv3DTranspose(2, 4, kernel_size=[3, 3, 3], stride=[2, 2, 2], data_format=NCDHW)"),
    (lambda: nn.MaxPool1D(2),
     "MaxPool1D(kernel_size=2, stride=None, padding=0)"),
    (lambda: nn.MaxPool1D(3, stride=2, padding=1, return_mask=True, ceil_mode=True),
     "MaxPool1D(kernel_size=3, stride=2, padding=1)"),
    (lambda: nn.MaxPool2D(2),
     "MaxPool2D(kernel_size=2, stride=None, padding=0)"),
    (lambda: nn.MaxPool2D(3, 2, 1, ceil_mode=True),
     "MaxPool2D(kernel_size=3, stride=2, padding=1)"),
    (lambda: nn.MaxPool2D((2, 3), stride=[1, 2], return_mask=True),
     "MaxPool2D(kernel_size=(2, 3), stride=[1, 2], padding=0)"),
    (lambda: nn.MaxPool3D(2, stride=1),
     "MaxPool3D(kernel_size=2, stride=1, padding=0)"),
    (lambda: nn.AvgPool1D(2),
     "AvgPool1D(kernel_size=2, stride=None, padding=0)"),
    (lambda: nn.AvgPool1D(3, 2, 1, exclusive=False),
     "AvgPool1D(kernel_size=3, stride=2, padding=1)"),
    (lambda: nn.AvgPool2D(2),
     "AvgPool2D(kernel_size=2, stride=None, padding=0)"),
    (lambda: nn.AvgPool2D(3, stride=2, padding=1, ceil_mode=True),
     "AvgPool2D(kernel_size=3, stride=2, padding=1)"),
    (lambda: nn.AvgPool3D(2, padding=1),
     "AvgPool3D(kernel_size=2, stride=None, padding=1)"),
    (lambda: nn.AdaptiveAvgPool1D(4),
     "AdaptiveAvgPool1D(output_size=4)"),
    (lambda: nn.AdaptiveAvgPool2D(1),
     "AdaptiveAvgPool2D(output_size=1)"),
    (lambda: nn.AdaptiveAvgPool2D((2, 3)),
     "AdaptiveAvgPool2D(output_size=(2, 3))"),
    (lambda: nn.AdaptiveAvgPool3D(2),
     "AdaptiveAvgPool3D(output_size=2)"),
    (lambda: nn.AdaptiveMaxPool1D(4),
     "AdaptiveMaxPool1D(output_size=4, return_mask=False)"),
    (lambda: nn.AdaptiveMaxPool2D(2, return_mask=True),
     "AdaptiveMaxPool2D(output_size=2, return_mask=True)"),
    (lambda: nn.AdaptiveMaxPool3D([1, 2, 2]),
     "AdaptiveMaxPool3D(output_size=[1, 2, 2], return_mask=False)"),
    (lambda: nn.LPPool1D(2, 3),
     "LPPool1D(norm_type=2.0, kernel_size=3, stride=None, padding=0)"),
    (lambda: nn.LPPool2D(2, 3),
     "LPPool2D(norm_type=2.0, kernel_size=3, stride=3, padding=0)"),
    (lambda: nn.LPPool2D(1.5, 2, stride=1, padding=0),
     "LPPool2D(norm_type=1.5, kernel_size=2, stride=1, padding=0)"),
    (lambda: nn.MaxUnPool1D(2),
     "MaxUnPool1D(output_size=None)"),
    (lambda: nn.MaxUnPool2D(2, output_size=[4, 4]),
     "MaxUnPool2D(output_size=[4, 4])"),
    (lambda: nn.MaxUnPool3D(2),
     "MaxUnPool3D(output_size=None)"),
    (lambda: nn.BatchNorm(4),
     "BatchNorm()"),
    (lambda: nn.BatchNorm1D(4),
     "BatchNorm1D(num_features=4, momentum=0.9, epsilon=1e-05, data_format=NCL)"),
    (lambda: nn.BatchNorm1D(4, momentum=0.1, epsilon=1e-3, data_format="NLC"),
     "BatchNorm1D(num_features=4, momentum=0.1, epsilon=0.001, data_format=NLC)"),
    (lambda: nn.BatchNorm2D(8),
     "BatchNorm2D(num_features=8, momentum=0.9, epsilon=1e-05)"),
    (lambda: nn.BatchNorm2D(8, weight_attr=False, bias_attr=False, data_format="NHWC"),
     "BatchNorm2D(num_features=8, momentum=0.9, epsilon=1e-05, data_format=NHWC)"),
    (lambda: nn.BatchNorm3D(2),
     "BatchNorm3D(num_features=2, momentum=0.9, epsilon=1e-05, data_format=NCDHW)"),
    (lambda: nn.SyncBatchNorm(2),
     "SyncBatchNorm(num_features=2, momentum=0.9, epsilon=1e-05)"),
    (lambda: nn.InstanceNorm1D(4),
     "InstanceNorm1D(num_features=4, epsilon=1e-05)"),
    (lambda: nn.InstanceNorm2D(4, epsilon=1e-3),
     "InstanceNorm2D(num_features=4, epsilon=0.001)"),
    (lambda: nn.InstanceNorm3D(4),
     "InstanceNorm3D(num_features=4, epsilon=1e-05)"),
    (lambda: nn.LayerNorm(8),
     "LayerNorm(normalized_shape=[8], epsilon=1e-05)"),
    (lambda: nn.LayerNorm([4, 8], epsilon=1e-6),
     "LayerNorm(normalized_shape=[4, 8], epsilon=1e-06)"),
    (lambda: nn.GroupNorm(2, 8),
     "GroupNorm(num_groups=2, num_channels=8, epsilon=1e-05)"),
    (lambda: nn.LocalResponseNorm(5),
     "LocalResponseNorm(size=5, alpha=0.0001, beta=0.75, k=1.0)"),
    (lambda: nn.LocalResponseNorm(3, alpha=1e-3, data_format="NHWC"),
     "LocalResponseNorm(size=3, alpha=0.001, beta=0.75, k=1.0, data_format=NHWC)"),
    (lambda: nn.Embedding(10, 4),
     "Embedding(10, 4, sparse=False, scale_grad_by_freq=False)"),
    (lambda: nn.Embedding(10, 4, padding_idx=0, sparse=True),
     "Embedding(10, 4, padding_idx=0, sparse=True, scale_grad_by_freq=False)"),
    (lambda: nn.Embedding(10, 4, max_norm=1.0, scale_grad_by_freq=True),
     "Embedding(10, 4, sparse=False, scale_grad_by_freq=True)"),
    (lambda: nn.Dropout(),
     "Dropout(p=0.5, axis=None, mode=upscale_in_train, inplace=False)"),
    (lambda: nn.Dropout(0.2, axis=1, mode="downscale_in_infer"),
     "Dropout(p=0.2, axis=1, mode=downscale_in_infer, inplace=False)"),
    (lambda: nn.Dropout2D(),
     "Dropout2D(p=0.5, data_format=NCHW)"),
    (lambda: nn.Dropout2D(0.3, data_format="NHWC"),
     "Dropout2D(p=0.3, data_format=NHWC)"),
    (lambda: nn.Dropout3D(0.1),
     "Dropout3D(p=0.1, data_format=NCDHW)"),
    (lambda: nn.AlphaDropout(0.2),
     "AlphaDropout(p=0.2)"),
    (lambda: nn.FeatureAlphaDropout(0.2),
     "FeatureAlphaDropout(p=0.2)"),
    (lambda: nn.ReLU(),
     "ReLU()"),
    (lambda: nn.ReLU6(),
     "ReLU6()"),
    (lambda: nn.LeakyReLU(),
     "LeakyReLU(negative_slope=0.01)"),
    (lambda: nn.LeakyReLU(0.2),
     "LeakyReLU(negative_slope=0.2)"),
    (lambda: nn.ELU(),
     "ELU(alpha=1.0)"),
    (lambda: nn.ELU(0.5),
     "ELU(alpha=0.5)"),
    (lambda: nn.CELU(2.0),
     "CELU(alpha=2.0)"),
    (lambda: nn.SELU(),
     "SELU(scale=1.0507009873554805, alpha=1.6732632423543772)"),
    (lambda: nn.SELU(1.5, 2.0),
     "SELU(scale=1.5000000000000000, alpha=2.0000000000000000)"),
    (lambda: nn.GELU(),
     "GELU(approximate=False)"),
    (lambda: nn.GELU(approximate=True),
     "GELU(approximate=True)"),
    (lambda: nn.Silu(),
     "Silu(inplace=False)"),
    (lambda: nn.SiLU(),
     "Silu(inplace=False)"),
    (lambda: nn.Swish(),
     "Swish()"),
    (lambda: nn.Sigmoid(),
     "Sigmoid()"),
    (lambda: nn.Tanh(),
     "Tanh()"),
    (lambda: nn.Softplus(),
     "Softplus(beta=1, threshold=20)"),
    (lambda: nn.Softplus(2, 10),
     "Softplus(beta=2, threshold=10)"),
    (lambda: nn.Softsign(),
     "Softsign()"),
    (lambda: nn.Softshrink(),
     "Softshrink(threshold=0.5)"),
    (lambda: nn.Hardshrink(0.3),
     "Hardshrink(threshold=0.3)"),
    (lambda: nn.Hardtanh(),
     "Hardtanh(min=-1.0, max=1.0)"),
    (lambda: nn.Hardtanh(-2.0, 2.0),
     "Hardtanh(min=-2.0, max=2.0)"),
    (lambda: nn.Hardsigmoid(),
     "Hardsigmoid()"),
    (lambda: nn.Hardswish(),
     "Hardswish()"),
    (lambda: nn.Mish(),
     "Mish()"),
    (lambda: nn.Softmax(),
     "Softmax(axis=-1)"),
    (lambda: nn.Softmax(axis=1),
     "Softmax(axis=1)"),
    (lambda: nn.LogSoftmax(),
     "LogSoftmax(axis=-1)"),
    (lambda: nn.LogSoftmax(0),
     "LogSoftmax(axis=0)"),
    (lambda: nn.LogSigmoid(),
     "LogSigmoid()"),
    (lambda: nn.Tanhshrink(),
     "Tanhshrink()"),
    (lambda: nn.ThresholdedReLU(),
     "ThresholdedReLU(threshold=1.0, value=0.0)"),
    (lambda: nn.ThresholdedReLU(0.5, 1.0),
     "ThresholdedReLU(threshold=0.5, value=1.0)"),
    (lambda: nn.GLU(),
     "GLU(axis=-1)"),
    (lambda: nn.Maxout(2),
     "Maxout(groups=2, axis=1)"),
    (lambda: nn.PReLU(),
     "PReLU(num_parameters=1, data_format=NCHW, init=0.25, dtype=float32)"),
    (lambda: nn.PReLU(4, 0.1, data_format="NHWC"),
     "PReLU(num_parameters=4, data_format=NHWC, init=0.1, dtype=float32)"),
    (lambda: nn.RReLU(),
     "RReLU(lower=0.125, upper=0.3333333333333333, training=True, dtype=float32)"),
    (lambda: nn.RReLU(0.1, 0.3),
     "RReLU(lower=0.1, upper=0.3, training=True, dtype=float32)"),
    (lambda: nn.Identity(),
     "Identity()"),
    (lambda: nn.Flatten(),
     "Flatten()"),
    (lambda: nn.Flatten(0, 2),
     "Flatten()"),
    (lambda: nn.Unflatten(1, [2, 3]),
     "Unflatten(axis=1, shape=[2, 3])"),
    (lambda: nn.Fold([4, 4], 2),
     "Fold(kernel_size=2, dilation=1, padding=0, stride=1)"),
    (lambda: nn.Unfold(2, strides=2),
     "Unfold(kernel_size=2, dilation=1, padding=0, stride=2)"),
    (lambda: nn.PixelShuffle(2),
     "PixelShuffle(upscale_factor=2)"),
    (lambda: nn.PixelShuffle(2, "NHWC"),
     "PixelShuffle(upscale_factor=2, data_format=NHWC)"),
    (lambda: nn.PixelUnshuffle(2),
     "PixelUnshuffle(downscale_factor=2)"),
    (lambda: nn.ChannelShuffle(2),
     "ChannelShuffle(groups=2)"),
    (lambda: nn.ChannelShuffle(2, "NHWC"),
     "ChannelShuffle(groups=2, data_format=NHWC)"),
    (lambda: nn.Upsample(scale_factor=2),
     "Upsample(scale_factor=2, mode=nearest, align_corners=False, align_mode=0, data_format=None)"),
    (lambda: nn.Upsample(size=[4, 4], mode="bilinear", align_corners=True),
     "Upsample(size=[4, 4], mode=bilinear, align_corners=True, align_mode=0, data_format=None)"),
    (lambda: nn.Upsample(scale_factor=2.0, mode="NEAREST", data_format="NCHW"),
     "Upsample(scale_factor=2.0, mode=nearest, align_corners=False, align_mode=0, "
     "data_format=NCHW)"),
    (lambda: nn.UpsamplingNearest2D(scale_factor=2),
     "UpsamplingNearest2D(scale_factor=2, data_format=NCHW)"),
    (lambda: nn.UpsamplingNearest2D(size=4),
     "UpsamplingNearest2D(size=[4, 4], data_format=NCHW)"),
    (lambda: nn.UpsamplingBilinear2D(size=[4, 6]),
     "UpsamplingBilinear2D(size=[4, 6], data_format=NCHW)"),
    (lambda: nn.Pad1D(1),
     "Pad1D(padding=[1, 1], mode=constant, value=0.0, data_format=NCL)"),
    (lambda: nn.Pad2D([1, 0, 1, 2], mode="reflect"),
     "Pad2D(padding=[1, 0, 1, 2], mode=reflect, value=0.0, data_format=NCHW)"),
    (lambda: nn.Pad3D(1, value=1.0),
     "Pad3D(padding=[1, 1, 1, 1, 1, 1], mode=constant, value=1.0, data_format=NCDHW)"),
    (lambda: nn.ZeroPad2D(2),
     "ZeroPad2D(padding=[2, 2, 2, 2], mode=constant, value=0.0, data_format=NCHW)"),
    (lambda: nn.ConstantPad1D([1, 2], 3.5),
     "ConstantPad1D(padding=[1, 2], mode=constant, value=3.5, data_format=NCL)"),
    (lambda: nn.ReflectionPad2D([1, 1, 2, 2]),
     "ReflectionPad2D(padding=[1, 1, 2, 2], mode=reflect, value=0.0, data_format=NCHW)"),
    (lambda: nn.ReplicationPad3D(1),
     "ReplicationPad3D(padding=[1, 1, 1, 1, 1, 1], mode=replicate, value=0.0, data_format=NCDHW)"),
    (lambda: nn.CircularPad1D(1),
     "CircularPad1D(padding=[1, 1], mode=circular, value=0.0, data_format=NCL)"),
    (lambda: nn.CosineSimilarity(),
     "CosineSimilarity(axis=1, eps=1e-08)"),
    (lambda: nn.CosineSimilarity(axis=0, eps=1e-6),
     "CosineSimilarity(axis=0, eps=1e-06)"),
    (lambda: nn.PairwiseDistance(),
     "PairwiseDistance(p=2.0)"),
    (lambda: nn.PairwiseDistance(1.0, 1e-5, True),
     "PairwiseDistance(p=1.0, epsilon=1e-05, keepdim=True)"),
    (lambda: nn.MSELoss(),
     "MSELoss()"),
    (lambda: nn.L1Loss(reduction="sum"),
     "L1Loss()"),
    (lambda: nn.SmoothL1Loss(),
     "SmoothL1Loss()"),
    (lambda: nn.CrossEntropyLoss(),
     "CrossEntropyLoss()"),
    (lambda: nn.NLLLoss(),
     "NLLLoss()"),
    (lambda: nn.BCELoss(),
     "BCELoss()"),
    (lambda: nn.BCEWithLogitsLoss(),
     "BCEWithLogitsLoss()"),
    (lambda: nn.KLDivLoss(),
     "KLDivLoss()"),
    (lambda: nn.MarginRankingLoss(),
     "MarginRankingLoss()"),
    (lambda: nn.HingeEmbeddingLoss(),
     "HingeEmbeddingLoss()"),
    (lambda: nn.SoftMarginLoss(),
     "SoftMarginLoss()"),
    (lambda: nn.PoissonNLLLoss(),
     "PoissonNLLLoss()"),
    (lambda: nn.GaussianNLLLoss(),
     "GaussianNLLLoss()"),
    (lambda: nn.CosineEmbeddingLoss(),
     "CosineEmbeddingLoss()"),
    (lambda: nn.TripletMarginLoss(),
     "TripletMarginLoss()"),
    (lambda: nn.TripletMarginWithDistanceLoss(),
     "TripletMarginWithDistanceLoss()"),
    (lambda: nn.MultiLabelSoftMarginLoss(),
     "MultiLabelSoftMarginLoss()"),
    (lambda: nn.MultiMarginLoss(),
     "MultiMarginLoss()"),
    (lambda: nn.SimpleRNNCell(3, 4),
     "SimpleRNNCell(3, 4)"),
    (lambda: nn.SimpleRNNCell(3, 4, activation="relu"),
     "SimpleRNNCell(3, 4, activation=relu)"),
    (lambda: nn.LSTMCell(3, 4),
     "LSTMCell(3, 4)"),
    (lambda: nn.GRUCell(3, 4),
     "GRUCell(3, 4)"),
    (lambda: nn.MaxPool2D(3, 2, 1, True, True),
     "MaxPool2D(kernel_size=3, stride=2, padding=1)"),
    (lambda: nn.AvgPool2D(2, divisor_override=3),
     "AvgPool2D(kernel_size=2, stride=None, padding=0)"),
    (lambda: nn.ConstantPad2D(1, 3),
     "ConstantPad2D(padding=[1, 1, 1, 1], mode=constant, value=3, data_format=NCHW)"),
    (lambda: nn.ZeroPad1D([1, 2]),
     "ZeroPad1D(padding=[1, 2], mode=constant, value=0.0, data_format=NCL)"),
    (lambda: nn.ReflectionPad1D(2, name="rp"),
     "ReflectionPad1D(padding=[2, 2], mode=reflect, value=0.0, data_format=NCL, name=rp)"),
    (lambda: nn.CircularPad3D([1, 1, 1, 1, 1, 1]),
     "CircularPad3D(padding=[1, 1, 1, 1, 1, 1], mode=circular, value=0.0, data_format=NCDHW)"),
    (lambda: nn.Upsample(size=4, name="up"),
     "Upsample(size=4, mode=nearest, align_corners=False, align_mode=0, data_format=None, "
     "name=up)"),
    (lambda: nn.UpsamplingBilinear2D(size=3),
     "UpsamplingBilinear2D(size=[3, 3], data_format=NCHW)"),
    (lambda: nn.ReLU(name="r"),
     "ReLU(name=r)"),
    (lambda: nn.Sigmoid(name="s"),
     "Sigmoid(name=s)"),
    (lambda: nn.LeakyReLU(0.1, name="l"),
     "LeakyReLU(negative_slope=0.1, name=l)"),
    (lambda: nn.SELU(name="x"),
     "SELU(scale=1.0507009873554805, alpha=1.6732632423543772, name=x)"),
    (lambda: nn.Silu(True, name="q"),
     "Silu(inplace=True, name=q)"),
    (lambda: nn.Swish(name="w"),
     "Swish(name=w)"),
    (lambda: nn.GELU("tanh"),
     "GELU(approximate=tanh)"),
    (lambda: nn.Hardshrink(name="h"),
     "Hardshrink(threshold=0.5, name=h)"),
    (lambda: nn.BatchNorm2D(3, name="bn"),
     "BatchNorm2D(num_features=3, momentum=0.9, epsilon=1e-05, name=bn)"),
    (lambda: nn.BatchNorm1D(3, name="bn1"),
     "BatchNorm1D(num_features=3, momentum=0.9, epsilon=1e-05, data_format=NCL, name=bn1)"),
    (lambda: nn.Embedding(5, 2, padding_idx=-1, name="emb"),
     "Embedding(5, 2, padding_idx=-1, sparse=False, scale_grad_by_freq=False, name=emb)"),
    (lambda: nn.Dropout(0.3, name="d"),
     "Dropout(p=0.3, axis=None, mode=upscale_in_train, name=d, inplace=False)"),
    (lambda: nn.Dropout2D(0.3, name="d"),
     "Dropout2D(p=0.3, data_format=NCHW, name=d)"),
    (lambda: nn.AlphaDropout(name="d"),
     "AlphaDropout(p=0.5, name=d)"),
    (lambda: nn.PixelShuffle(3, name="ps"),
     "PixelShuffle(upscale_factor=3, name=ps)"),
    (lambda: nn.ChannelShuffle(3, name="cs"),
     "ChannelShuffle(groups=3, name=cs)"),
    (lambda: nn.PixelUnshuffle(2, "NHWC", name="pu"),
     "PixelUnshuffle(downscale_factor=2, data_format=NHWC, name=pu)"),
    (lambda: nn.LocalResponseNorm(3, name="lrn"),
     "LocalResponseNorm(size=3, alpha=0.0001, beta=0.75, k=1.0, name=lrn)"),
    (lambda: nn.PairwiseDistance(name="pd"),
     "PairwiseDistance(p=2.0, name=pd)"),
    (lambda: nn.PReLU(name="pr"),
     "PReLU(num_parameters=1, data_format=NCHW, init=0.25, dtype=float32, name=pr)"),
    (lambda: nn.RReLU(name="rr"),
     "RReLU(lower=0.125, upper=0.3333333333333333, training=True, dtype=float32, name=rr)"),
    (lambda: nn.Maxout(2, -1, name="mo"),
     "Maxout(groups=2, axis=-1, name=mo)"),
    (lambda: nn.Unflatten(0, (2, 2), name="uf"),
     "Unflatten(axis=0, shape=(2, 2), name=uf)"),
    (lambda: nn.Fold([4, 5], [2, 2], 1, [0, 0], 1, name="f"),
     "Fold(kernel_size=[2, 2], dilation=1, padding=[0, 0], stride=1, name=f)"),
    (lambda: nn.Unfold([2, 2], 1, 0, 1, name="uf"),
     "Unfold(kernel_size=[2, 2], dilation=1, padding=0, stride=1, name=uf)"),
    (lambda: nn.Bilinear(2, 2, 2, name="bl"),
     "Bilinear(in1_features=2, in2_features=2, out_features=2, dtype=float32, name=bl)"),
    (lambda: nn.Conv2D(2, 2, [3, 1], stride=(1, 1), padding=(0, 1), dilation=(1, 2)),
     "Conv2D(2, 2, kernel_size=[3, 1], padding=(0, 1), dilation=[1, 2], data_format=NCHW)"),
    (lambda: nn.Conv2D(2, 2, 3, padding=[1, 1, 2, 2]),
     "Conv2D(2, 2, kernel_size=[3, 3], padding=[1, 1, 2, 2], data_format=NCHW)"),
    (lambda: nn.Conv2DTranspose(2, 2, 3, stride=2, output_padding=[1, 0]),
     "Conv2DTranspose(2, 2, kernel_size=[3, 3], stride=[2, 2], output_padding=[1, 0], "
     "data_format=NCHW)"),
    (lambda: nn.GroupNorm(4, 8, epsilon=1e-3, data_format="NHWC"),
     "GroupNorm(num_groups=4, num_channels=8, epsilon=0.001)"),
    (lambda: nn.LayerNorm((2, 3)),
     "LayerNorm(normalized_shape=[2, 3], epsilon=1e-05)"),
    (lambda: nn.Softplus(1.5, 10.0),
     "Softplus(beta=1.5, threshold=10.0)"),
    (lambda: nn.Hardtanh(-1, 1),
     "Hardtanh(min=-1, max=1)"),
    (lambda: nn.ELU(1),
     "ELU(alpha=1)"),
    (lambda: nn.GLU(1),
     "GLU(axis=1)"),
    (lambda: nn.AdaptiveMaxPool1D(3, True),
     "AdaptiveMaxPool1D(output_size=3, return_mask=True)"),
    (lambda: nn.MaxPool1D(2, None, 0, True),
     "MaxPool1D(kernel_size=2, stride=None, padding=0)"),
    (lambda: nn.BatchNorm(4, momentum=0.5),
     "BatchNorm()"),
    (lambda: nn.Sequential(),
     "Sequential()"),
    (lambda: nn.Layer(),
     "Layer()"),
]


@pytest.mark.parametrize("make, expected", CASES, ids=[e.split("(")[0] + f"-{i}"
                                                       for i, (_, e) in enumerate(CASES)])
def test_layer_repr(make, expected):
    assert repr(make()) == expected


def test_silu_is_paddles_silu_class():
    assert nn.SiLU is nn.Silu and nn.Silu.__name__ == "Silu"
    assert repr(nn.Silu(True)) == "Silu(inplace=True)"
    assert repr(nn.Swish()) == "Swish()"


def test_rrelu_repr_follows_training_mode():
    layer = nn.RReLU()
    layer.eval()
    assert repr(layer) == "RReLU(lower=0.125, upper=0.3333333333333333, training=False, " \
                          "dtype=float32)"


def test_nested_model():
    model = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(),
                          nn.MaxPool2D(2, 2), nn.Flatten(), nn.Linear(4 * 4 * 4, 10))
    assert repr(model) == """Sequential(
  (0): Conv2D(1, 4, kernel_size=[3, 3], padding=1, data_format=NCHW)
  (1): BatchNorm2D(num_features=4, momentum=0.9, epsilon=1e-05)
  (2): ReLU()
  (3): MaxPool2D(kernel_size=2, stride=2, padding=0)
  (4): Flatten()
  (5): Linear(in_features=64, out_features=10, dtype=float32)
)"""
    assert str(model) == repr(model)


def test_nested_containers():
    model = nn.Sequential(nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.1)),
                          nn.LayerList([nn.Sequential(nn.Conv2D(2, 2, 1))]))
    assert repr(model) == """Sequential(
  (0): Sequential(
    (0): Linear(in_features=2, out_features=2, dtype=float32)
    (1): Dropout(p=0.1, axis=None, mode=upscale_in_train, inplace=False)
  )
  (1): LayerList(
    (0): Sequential(
      (0): Conv2D(2, 2, kernel_size=[1, 1], data_format=NCHW)
    )
  )
)"""
    named = nn.Sequential(("fc", nn.Linear(2, 3)), ("act", nn.Tanh()))
    assert repr(named) == """Sequential(
  (fc): Linear(in_features=2, out_features=3, dtype=float32)
  (act): Tanh()
)"""
    assert repr(nn.LayerDict({"a": nn.Linear(2, 2), "b": nn.Sigmoid()})) == """LayerDict(
  (a): Linear(in_features=2, out_features=2, dtype=float32)
  (b): Sigmoid()
)"""
    assert repr(nn.Sequential()) == "Sequential()"


def test_recurrent_layers():
    assert repr(nn.GRU(3, 4, num_layers=2, direction="bidirectional")) == """GRU(3, 4, num_layers=2
  (0): BiRNN(
    (cell_fw): GRUCell(3, 4)
    (cell_bw): GRUCell(3, 4)
  )
  (1): BiRNN(
    (cell_fw): GRUCell(8, 4)
    (cell_bw): GRUCell(8, 4)
  )
)"""
    rnn = nn.SimpleRNN(3, 4, num_layers=2, activation="relu", time_major=True)
    assert repr(rnn) == """SimpleRNN(3, 4, num_layers=2, time_major=True
  (0): RNN(
    (cell): SimpleRNNCell(3, 4, activation=relu)
  )
  (1): RNN(
    (cell): SimpleRNNCell(4, 4, activation=relu)
  )
)"""


def test_transformer_encoder_layer():
    assert repr(nn.TransformerEncoderLayer(8, 2, 16)) == """TransformerEncoderLayer(
  (self_attn): MultiHeadAttention(
    (q_proj): Linear(in_features=8, out_features=8, dtype=float32)
    (k_proj): Linear(in_features=8, out_features=8, dtype=float32)
    (v_proj): Linear(in_features=8, out_features=8, dtype=float32)
    (out_proj): Linear(in_features=8, out_features=8, dtype=float32)
  )
  (linear1): Linear(in_features=8, out_features=16, dtype=float32)
  (dropout): Dropout(p=0.1, axis=None, mode=upscale_in_train, inplace=False)
  (linear2): Linear(in_features=16, out_features=8, dtype=float32)
  (norm1): LayerNorm(normalized_shape=[8], epsilon=1e-05)
  (norm2): LayerNorm(normalized_shape=[8], epsilon=1e-05)
  (dropout1): Dropout(p=0.1, axis=None, mode=upscale_in_train, inplace=False)
  (dropout2): Dropout(p=0.1, axis=None, mode=upscale_in_train, inplace=False)
)"""


class _Custom(nn.Layer):
    """A user layer with a two-line extra_repr and sublayers."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.c = nn.LSTM(2, 3)

    def extra_repr(self):
        return "x=1\ny=2"


def test_multiline_extra_repr_as_paddle():
    # Paddle puts a multi-line extra_repr on indented lines, then a blank indented line
    # before the sublayers
    assert repr(nn.Sequential(_Custom())) == """Sequential(
  (0): _Custom(
    x=1
    y=2
  
    (a): Linear(in_features=2, out_features=2, dtype=float32)
    (c): LSTM(2, 3
      (0): RNN(
        (cell): LSTMCell(2, 3)
      )
    )
  )
)"""


def test_pool_arguments_in_paddles_order():
    # MaxPool2D(kernel_size, stride, padding, return_mask, ceil_mode): return_mask gives
    # (out, indices), as Paddle's
    x = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    out, mask = nn.MaxPool2D(2, 2, 0, True)(x)
    assert out.shape == [1, 1, 2, 2] and mask.shape == [1, 1, 2, 2]
    assert out.numpy().ravel().tolist() == [5.0, 7.0, 13.0, 15.0]
    avg = nn.AvgPool2D(2, divisor_override=2)(x)
    assert avg.numpy().ravel().tolist() == [5.0, 9.0, 21.0, 25.0]
