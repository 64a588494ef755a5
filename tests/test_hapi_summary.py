"""paddle.summary and paddle.flops (paddle.hapi): the printed tables and the returned values,
pinned to what Paddle 3.3.1 prints for the same models (measured by running this file's
models under paddlepaddle 3.3.1, in a `unique_name.guard()` so the layer numbers start at 0).

Paddle 3.3.1's flops() raises TypeError under NumPy >= 2.4 (int() of its [1]-shaped
counters); the flops tables here were measured with that int() patched to take the element.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn as nn
from jitgrad.utils import unique_name


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class CNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(3, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(8, 16, 3, padding=1, bias_attr=False), nn.BatchNorm2D(16), nn.ReLU(),
            nn.AdaptiveAvgPool2D(1))
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        return self.fc(self.flatten(self.features(x)))


class RNNNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 32, num_layers=2)
        self.fc = nn.Linear(32, 2)

    def forward(self, x):
        y, (h, c) = self.lstm(self.emb(x))
        return self.fc(y[:, -1])


class Two(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 4)
        self.b = nn.Linear(6, 4)

    def forward(self, x, y):
        return self.a(x) + self.b(y), self.a(x)


class Frozen(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 10)
        self.fc.weight.stop_gradient = True
        self.fc2 = nn.Linear(10, 3, weight_attr=paddle.ParamAttr(trainable=False))

    def forward(self, x):
        return self.fc2(self.fc(x))


CASES = {
    'mlp': lambda: paddle.summary(MLP(), (1, 784)),
    'cnn': lambda: paddle.summary(CNN(), (-1, 3, 32, 32)),
    'rnn': lambda: paddle.summary(RNNNet(), (4, 7), dtypes='int64'),
    'two': lambda: paddle.summary(Two(), [(None, 8), (1, 6)]),
    'frozen': lambda: paddle.summary(Frozen(), input=paddle.ones([2, 10])),
    'flops_cnn': lambda: paddle.flops(CNN(), [1, 3, 32, 32], print_detail=True),
    'flops_mlp': lambda: paddle.flops(MLP(), [1, 784]),
}
RETURNS = {
    'mlp': {'total_params': 203530, 'trainable_params': 203530},
    'cnn': {'total_params': 1642, 'trainable_params': 1594},
    'rnn': {'total_params': 16514, 'trainable_params': 16514},
    'two': {'total_params': 64, 'trainable_params': 64},
    'frozen': {'total_params': 143, 'trainable_params': 13},
    'flops_cnn': 553136,
    'flops_mlp': 203264,
}

EXPECTED = {
    'mlp': (
        '---------------------------------------------------------------------------\n'
        ' Layer (type)       Input Shape          Output Shape         Param #    \n'
        '===========================================================================\n'
        '   Linear-1          [[1, 784]]            [1, 256]           200,960    \n'
        '    ReLU-1           [[1, 256]]            [1, 256]              0       \n'
        '   Linear-2          [[1, 256]]            [1, 10]             2,570     \n'
        '===========================================================================\n'
        'Total params: 203,530\n'
        'Trainable params: 203,530\n'
        'Non-trainable params: 0\n'
        '---------------------------------------------------------------------------\n'
        'Input size (MB): 0.00\n'
        'Forward/backward pass size (MB): 0.00\n'
        'Params size (MB): 0.78\n'
        'Estimated Total Size (MB): 0.78\n'
        '---------------------------------------------------------------------------\n'
        '\n'
    ),
    'cnn': (
        '-------------------------------------------------------------------------------\n'
        '   Layer (type)         Input Shape          Output Shape         Param #    \n'
        '===============================================================================\n'
        '     Conv2D-1         [[1, 3, 32, 32]]      [1, 8, 32, 32]          224      \n'
        '   BatchNorm2D-1      [[1, 8, 32, 32]]      [1, 8, 32, 32]          32       \n'
        '      ReLU-1          [[1, 8, 32, 32]]      [1, 8, 32, 32]           0       \n'
        '    MaxPool2D-1       [[1, 8, 32, 32]]      [1, 8, 16, 16]           0       \n'
        '     Conv2D-2         [[1, 8, 16, 16]]     [1, 16, 16, 16]         1,152     \n'
        '   BatchNorm2D-2     [[1, 16, 16, 16]]     [1, 16, 16, 16]          64       \n'
        '      ReLU-2         [[1, 16, 16, 16]]     [1, 16, 16, 16]           0       \n'
        'AdaptiveAvgPool2D-1  [[1, 16, 16, 16]]      [1, 16, 1, 1]            0       \n'
        '     Flatten-1        [[1, 16, 1, 1]]          [1, 16]               0       \n'
        '     Linear-1            [[1, 16]]             [1, 10]              170      \n'
        '===============================================================================\n'
        'Total params: 1,642\n'
        'Trainable params: 1,594\n'
        'Non-trainable params: 48\n'
        '-------------------------------------------------------------------------------\n'
        'Input size (MB): 0.01\n'
        'Forward/backward pass size (MB): 0.30\n'
        'Params size (MB): 0.01\n'
        'Estimated Total Size (MB): 0.32\n'
        '-------------------------------------------------------------------------------\n'
        '\n'
    ),
    'rnn': (
        '--------------------------------------------------------------------------------'
        '-------------\n'
        ' Layer (type)       Input Shape                   Output Shape                  '
        'Param #    \n'
        '================================================================================'
        '=============\n'
        '  Embedding-1         [[4, 7]]                     [4, 7, 16]                   '
        ' 1,600     \n'
        '    LSTM-1          [[4, 7, 16]]     [[4, 7, 32], [[2, 4, 32], [2, 4, 32]]]     '
        '14,848     \n'
        '   Linear-1          [[4, 32]]                       [4, 2]                     '
        '  66       \n'
        '================================================================================'
        '=============\n'
        'Total params: 16,514\n'
        'Trainable params: 16,514\n'
        'Non-trainable params: 0\n'
        '--------------------------------------------------------------------------------'
        '-------------\n'
        'Input size (MB): 0.00\n'
        'Forward/backward pass size (MB): 0.01\n'
        'Params size (MB): 0.06\n'
        'Estimated Total Size (MB): 0.08\n'
        '--------------------------------------------------------------------------------'
        '-------------\n'
        '\n'
    ),
    'two': (
        '---------------------------------------------------------------------------\n'
        ' Layer (type)       Input Shape          Output Shape         Param #    \n'
        '===========================================================================\n'
        '   Linear-1           [[1, 8]]              [1, 4]              36       \n'
        '   Linear-2           [[1, 6]]              [1, 4]              28       \n'
        '===========================================================================\n'
        'Total params: 64\n'
        'Trainable params: 64\n'
        'Non-trainable params: 0\n'
        '---------------------------------------------------------------------------\n'
        'Input size (MB): 0.00\n'
        'Forward/backward pass size (MB): 0.00\n'
        'Params size (MB): 0.00\n'
        'Estimated Total Size (MB): 0.00\n'
        '---------------------------------------------------------------------------\n'
        '\n'
    ),
    'frozen': (
        '---------------------------------------------------------------------------\n'
        ' Layer (type)       Input Shape          Output Shape         Param #    \n'
        '===========================================================================\n'
        '   Linear-1          [[2, 10]]             [2, 10]              110      \n'
        '   Linear-2          [[2, 10]]              [2, 3]              33       \n'
        '===========================================================================\n'
        'Total params: 143\n'
        'Trainable params: 13\n'
        'Non-trainable params: 130\n'
        '---------------------------------------------------------------------------\n'
        'Input size (MB): 0.00\n'
        'Forward/backward pass size (MB): 0.00\n'
        'Params size (MB): 0.00\n'
        'Estimated Total Size (MB): 0.00\n'
        '---------------------------------------------------------------------------\n'
        '\n'
    ),
    'flops_cnn': (
        "<class 'paddle.nn.layer.conv.Conv2D'>'s flops has been counted\n"
        "<class 'paddle.nn.layer.norm.BatchNorm2D'>'s flops has been counted\n"
        "<class 'paddle.nn.layer.activation.ReLU'>'s flops has been counted\n"
        "Cannot find suitable count function for <class 'paddle.nn.layer.pooling.MaxPool2"
        "D'>. Treat it as zero FLOPs.\n"
        "<class 'paddle.nn.layer.pooling.AdaptiveAvgPool2D'>'s flops has been counted\n"
        "Cannot find suitable count function for <class 'paddle.nn.layer.common.Flatten'>"
        '. Treat it as zero FLOPs.\n'
        "<class 'paddle.nn.layer.common.Linear'>'s flops has been counted\n"
        '+-----------------------+-----------------+-----------------+--------+--------+\n'
        '|       Layer Name      |   Input Shape   |   Output Shape  | Params | Flops  |\n'
        '+-----------------------+-----------------+-----------------+--------+--------+\n'
        '|        conv2d_0       |  [1, 3, 32, 32] |  [1, 8, 32, 32] |  224   | 229376 |\n'
        '|     batch_norm2d_0    |  [1, 8, 32, 32] |  [1, 8, 32, 32] |   32   | 16384  |\n'
        '|        re_lu_0        |  [1, 8, 32, 32] |  [1, 8, 32, 32] |   0    |   0    |\n'
        '|      max_pool2d_0     |  [1, 8, 32, 32] |  [1, 8, 16, 16] |   0    |   0    |\n'
        '|        conv2d_1       |  [1, 8, 16, 16] | [1, 16, 16, 16] |  1152  | 294912 |\n'
        '|     batch_norm2d_1    | [1, 16, 16, 16] | [1, 16, 16, 16] |   64   |  8192  |\n'
        '|        re_lu_1        | [1, 16, 16, 16] | [1, 16, 16, 16] |   0    |   0    |\n'
        '| adaptive_avg_pool2d_0 | [1, 16, 16, 16] |  [1, 16, 1, 1]  |   0    |  4112  |\n'
        '|       flatten_0       |  [1, 16, 1, 1]  |     [1, 16]     |   0    |   0    |\n'
        '|        linear_0       |     [1, 16]     |     [1, 10]     |  170   |  160   |\n'
        '+-----------------------+-----------------+-----------------+--------+--------+\n'
        'Total Flops: 553136     Total Params: 1642\n'
    ),
    'flops_mlp': (
        "<class 'paddle.nn.layer.common.Linear'>'s flops has been counted\n"
        "<class 'paddle.nn.layer.activation.ReLU'>'s flops has been counted\n"
        'Total Flops: 203264     Total Params: 203530\n'
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_printed_table_and_result_are_paddles(case, capsys):
    with unique_name.guard():
        result = CASES[case]()
    assert capsys.readouterr().out == EXPECTED[case]
    assert result == RETURNS[case]
    if isinstance(result, dict):       # numpy int64 counts, as Paddle's
        assert all(type(v) is np.int64 for v in result.values())
    else:
        assert type(result) is int


def test_summary_keeps_the_training_mode_and_leaves_no_hooks(capsys):
    net = CNN()
    paddle.summary(net, (1, 3, 8, 8))
    assert net.training
    assert all(not layer._forward_hooks_any for layer in net.sublayers(include_self=True))
    net.eval()
    paddle.summary(net, (1, 3, 8, 8))
    assert not net.training


def test_flops_removes_its_counters_and_hooks(capsys):
    net = CNN()
    assert paddle.flops(net, [1, 3, 8, 8]) > 0
    assert net.training
    for layer in net.sublayers(include_self=True):
        assert not layer._forward_hooks_any
        assert not {"total_ops", "total_params", "input_shape", "output_shape"} & \
            set(layer._buffers)
        assert not hasattr(layer, "input_shape")
    assert "total_ops" not in net.state_dict()


def test_flops_custom_ops_and_messages(capsys):
    def count_ln(m, x, y):
        m.total_ops += int(x[0].numel()) * 5

    net = nn.Sequential(nn.Linear(6, 6), nn.LayerNorm(6), nn.LeakyReLU(), nn.Sigmoid())
    assert paddle.flops(net, [2, 6], custom_ops={nn.LayerNorm: count_ln}) == 72 + 60 + 12
    assert capsys.readouterr().out == (
        "<class 'paddle.nn.layer.common.Linear'>'s flops has been counted\n"
        "Customize Function has been applied to <class 'paddle.nn.layer.norm.LayerNorm'>\n"
        "<class 'paddle.nn.layer.activation.LeakyReLU'>'s flops has been counted\n"
        "Cannot find suitable count function for "
        "<class 'paddle.nn.layer.activation.Sigmoid'>. Treat it as zero FLOPs.\n"
        "Total Flops: 144     Total Params: 54\n")


class LinearLSTM(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.lstm = nn.LSTM(6, 8)

    def forward(self, x):
        return self.lstm(self.fc(x))[0]


def test_flops_of_a_fused_lstm_counts_only_the_layers_around_it(capsys):
    # Paddle runs the LSTM as one op: its cell is a leaf that never runs (no row, 0 FLOPs),
    # and keeps the total_ops/total_params buffers flops() gave it (as in Paddle)
    with unique_name.guard():
        net = LinearLSTM()
        assert paddle.flops(net, [1, 3, 6], print_detail=True) == 108
    assert capsys.readouterr().out == (
        "<class 'paddle.nn.layer.common.Linear'>'s flops has been counted\n"
        "Cannot find suitable count function for <class 'paddle.nn.layer.rnn.LSTMCell'>. "
        "Treat it as zero FLOPs.\n"
        "+------------+-------------+--------------+--------+-------+\n"
        "| Layer Name | Input Shape | Output Shape | Params | Flops |\n"
        "+------------+-------------+--------------+--------+-------+\n"
        "|  linear_0  |  [1, 3, 6]  |  [1, 3, 6]   |   42   |  108  |\n"
        "+------------+-------------+--------------+--------+-------+\n"
        "Total Flops: 108     Total Params: 42\n")
    assert sorted(net.lstm[0].cell._buffers) == ['total_ops', 'total_params']


def test_summary_argument_errors():
    with pytest.raises(ValueError, match="input_size and input cannot be None"):
        paddle.summary(nn.Linear(3, 3))
    with pytest.raises(ValueError, match="only the dim of batch_size can be None or -1"):
        paddle.summary(nn.Linear(3, 3), (-1, None, 3))
    with pytest.raises(ValueError, match="greater than zero, but got 0"):
        paddle.summary(nn.Linear(3, 3), (0, 3))


def test_exported_names():
    assert paddle.hapi.summary is paddle.summary
    assert paddle.hapi.flops is paddle.flops
