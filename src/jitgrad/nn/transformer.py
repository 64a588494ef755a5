"""nn.TransformerDecoderLayer, TransformerDecoder and Transformer, built from attention.py's
layers with Paddle 3.3.1's structure (attribute names, parameter attributes, caches), so a
Paddle state_dict loads into them."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor
from . import functional as F
from .attention import (MultiHeadAttention, TransformerEncoder, TransformerEncoderLayer,
                        _convert_attention_mask, _param_attrs, check_layer_args)
from .layer import Layer
from .layers import Dropout, LayerList, LayerNorm, Linear


class TransformerDecoderLayer(Layer):
    """Self-attention, cross-attention over the encoder's memory, then a feed-forward
    network, each with dropout, a residual and layer norm (after, or before with
    normalize_before)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: float | None = None,
                 act_dropout: float | None = None, normalize_before: bool = False,
                 weight_attr: Any = None, bias_attr: Any = None, layer_norm_eps: float = 1e-5
                 ) -> None:
        config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        self._config = config
        check_layer_args("TransformerDecoderLayer", d_model, nhead, dim_feedforward, activation)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        w, b = _param_attrs(weight_attr, 3), _param_attrs(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=w[0], bias_attr=b[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                             weight_attr=w[1], bias_attr=b[1])
        self.linear1 = Linear(d_model, dim_feedforward, w[2], bias_attr=b[2])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, w[2], bias_attr=b[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")
        self.activation = getattr(F, activation)

    def _block(self, x: Tensor, norm: LayerNorm, drop: Dropout, body: Any) -> Tensor:
        """x + dropout(body(x)), layer-normed after (or body's input before)."""
        y = body(norm(x) if self.normalize_before else x)
        out = x + drop(y)
        return out if self.normalize_before else norm(out)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, cache: Any = None) -> Any:
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, tgt.dtype)
        new_cache = [None, None]

        def self_attention(x: Tensor) -> Tensor:
            if cache is None:
                return self.self_attn(x, x, x, tgt_mask, None)
            out, new_cache[0] = self.self_attn(x, x, x, tgt_mask, cache[0])
            return out

        def cross_attention(x: Tensor) -> Tensor:
            if cache is None:
                return self.cross_attn(x, memory, memory, memory_mask, None)
            out, new_cache[1] = self.cross_attn(x, memory, memory, memory_mask, cache[1])
            return out

        tgt = self._block(tgt, self.norm1, self.dropout1, self_attention)
        tgt = self._block(tgt, self.norm2, self.dropout2, cross_attention)
        tgt = self._block(tgt, self.norm3, self.dropout3, lambda x: self.linear2(
            self.dropout(self.activation(self.linear1(x)))))
        return tgt if cache is None else (tgt, tuple(new_cache))

    def gen_cache(self, memory: Tensor) -> tuple:
        """(an empty incremental cache for self-attention, the cross-attention's static
        cache of memory's keys and values)."""
        incremental = self.self_attn.gen_cache(memory, type=MultiHeadAttention.Cache)
        static = self.cross_attn.gen_cache(memory, memory, type=MultiHeadAttention.StaticCache)
        return incremental, static


class TransformerDecoder(Layer):
    """`num_layers` decoder layers: the given one first, then new ones built from its
    constructor arguments (fresh weights, as Paddle's), and an optional final norm."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int,
                 norm: LayerNorm | None = None) -> None:
        super().__init__()
        self.layers = LayerList([decoder_layer if i == 0 else
                                 type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, cache: Sequence[Any] | None = None) -> Any:
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, tgt.dtype)
        out, new_caches = tgt, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)
            else:
                out, c = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                               cache=cache[i])
                new_caches.append(c)
        if self.norm is not None:
            out = self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, memory: Tensor, do_zip: bool = False) -> list:
        caches = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*caches)) if do_zip else caches


def _split_attrs(attr: Any) -> tuple[Any, Any]:
    """Paddle's split of Transformer's weight_attr / bias_attr into the encoder's (2) and
    the decoder's (3): a list of 1, 2 or 3 is spread, anything else shared."""
    if isinstance(attr, (list, tuple)):
        if len(attr) == 1:
            return [attr[0]], [attr[0]]
        if len(attr) == 2:
            return list(attr), [attr[0], attr[0], attr[-1]]
        if len(attr) == 3:
            return [attr[0], attr[-1]], list(attr)
        raise ValueError("length of weight_attr / bias_attr should be 1, 2 or 3 when it is a "
                         "list/tuple")
    return attr, attr


class Transformer(Layer):
    """An encoder (num_encoder_layers, a final LayerNorm) and a decoder (num_decoder_layers,
    a final LayerNorm), or custom ones."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: float | None = None,
                 act_dropout: float | None = None, normalize_before: bool = False,
                 weight_attr: Any = None, bias_attr: Any = None, custom_encoder: Any = None,
                 custom_decoder: Any = None) -> None:
        super().__init__()
        enc_w, dec_w = _split_attrs(weight_attr)
        enc_b, dec_b = _split_attrs(bias_attr)
        common = dict(dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                      act_dropout=act_dropout, normalize_before=normalize_before)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        elif num_encoder_layers > 0:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(
                d_model, nhead, dim_feedforward, weight_attr=enc_w, bias_attr=enc_b, **common),
                num_encoder_layers, LayerNorm(d_model))
        else:
            self.encoder = None
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(
                d_model, nhead, dim_feedforward, weight_attr=dec_w, bias_attr=dec_b, **common),
                num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None) -> Tensor:
        memory = src if self.encoder is None else \
            self.encoder(src, src_mask=_convert_attention_mask(src_mask, src.dtype))
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    @staticmethod
    def generate_square_subsequent_mask(length: int) -> Tensor:
        """[length, length] float32: 0 on and below the diagonal, -inf above (causal)."""
        return Tensor._make(np.triu(np.full((length, length), -np.inf, np.float32), 1))
