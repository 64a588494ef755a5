"""Attention layers: nn.MultiHeadAttention, TransformerEncoderLayer and TransformerEncoder
(F.scaled_dot_product_attention is ops/attention.py), as composites of registry ops (matmul, softmax, layer_norm ...).

Measured on Paddle 3.3.1 (CPU), which these follow: MultiHeadAttention turns a bool or int
mask into (mask - 1) * 1e9 (0/False: masked) and adds a float mask as it is; it scales q by
head_dim ** -0.5 before the product; need_weights appends the softmax weights [B, heads, L,
S], a cache the updated cache. scaled_dot_product_attention takes [B, L, heads, D] (or
[L, heads, D]), a bool mask as where(mask, 0, -inf), a float mask added as it is, ignores
the mask when is_causal, repeats key/value heads for grouped queries (enable_gqa), and gives
NaN for a row with every position masked.
"""

from __future__ import annotations

import collections
import copy
from typing import Any, Sequence


from .. import ops
from ..core.tensor import Tensor
from . import functional as F
from .initializer import ParamAttr
from .layer import Layer
from .layers import Dropout, LayerList, LayerNorm, Linear


def _convert_attention_mask(attn_mask: Tensor | None, dtype: Any) -> Tensor | None:
    """A bool or int mask (0 / False: masked) as an additive float mask, (m - 1) * 1e9;
    a float mask cast to dtype (Paddle's _convert_attention_mask)."""
    if attn_mask is None or attn_mask.dtype == dtype:
        return attn_mask
    if attn_mask._data.dtype.kind in "biu":
        return (attn_mask.astype(dtype) - 1.0) * 1e9
    return attn_mask.astype(dtype)


def _param_attrs(attr: Any, n: int) -> list:
    """One attr per sub-layer: a list as given (True: default), else repeated, a named
    ParamAttr getting suffixes _0, _1 ... (Paddle's _convert_param_attr_to_list)."""
    if isinstance(attr, (list, tuple)):
        if len(attr) != n:
            raise ValueError(f"length of param_attr should be {n} when it is a list/tuple")
        return [None if a is True else a for a in attr]
    if isinstance(attr, bool):
        return [None if attr else False] * n
    out = []
    for i in range(n):
        a = copy.deepcopy(attr)
        if isinstance(a, ParamAttr) and a.name:
            a.name = f"{a.name}_{i}"
        out.append(a)
    return out


class MultiHeadAttention(Layer):
    """Attention over `num_heads` projections of embed_dim // num_heads each: q_proj,
    k_proj (kdim inputs), v_proj (vdim inputs) and out_proj, Linear layers."""

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0,
                 kdim: int | None = None, vdim: int | None = None, need_weights: bool = False,
                 weight_attr: Any = None, bias_attr: Any = None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim ({embed_dim}) and num_heads ({num_heads}) must be "
                             "greater than 0")
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim must be divisible by num_heads, got {embed_dim} and "
                             f"{num_heads}")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self.need_weights, self.head_dim = need_weights, embed_dim // num_heads
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x: Tensor) -> Tensor:
        """[B, L, embed] -> [B, heads, L, head_dim]."""
        return ops.transpose(ops.reshape(x, [0, 0, self.num_heads, self.head_dim]),
                             [0, 2, 1, 3])

    def compute_kv(self, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """The projected keys and values, split into heads [B, heads, S, head_dim]."""
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key: Tensor, value: Tensor | None = None, type: Any = Cache) -> Any:
        """A StaticCache of compute_kv(key, value); or a Cache: empty ([B, heads, 0,
        head_dim]) when value is None, else (key, value) as given."""
        if type is MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if value is None:
            shape = [key.shape[0], self.num_heads, 0, self.head_dim]
            return self.Cache(ops.zeros(shape, key.dtype), ops.zeros(shape, key.dtype))
        return self.Cache(key, value)

    def forward(self, query: Tensor, key: Tensor | None = None, value: Tensor | None = None,
                attn_mask: Tensor | None = None, cache: Any = None) -> Any:
        key = query if key is None else key
        value = query if value is None else value
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k, v = ops.concat([cache.k, k], axis=2), ops.concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        product = ops.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            product = product + _convert_attention_mask(attn_mask, product.dtype)
        weights = F.softmax(product)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training,
                                mode="upscale_in_train")
        out = ops.transpose(ops.matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(ops.reshape(out, [0, 0, out.shape[2] * out.shape[3]]))
        outs = [out] + ([weights] if self.need_weights else []) + \
            ([cache] if cache is not None else [])
        return out if len(outs) == 1 else tuple(outs)


def check_layer_args(layer: str, d_model: int, nhead: int, dim_feedforward: int,
                     activation: str) -> None:
    """The sizes a transformer layer needs positive, and an activation F has (Paddle's
    messages)."""
    for what, v in (("d_model", d_model), ("nhead", nhead),
                    ("dim_feedforward", dim_feedforward)):
        if v <= 0:
            raise ValueError(f"Expected {what} to be greater than 0, but received {v}")
    if not hasattr(F, activation):
        raise ValueError(f"{layer}: unknown activation {activation!r}")


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward network, each with dropout, a residual and
    layer norm (after, or before with normalize_before)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: float | None = None,
                 act_dropout: float | None = None, normalize_before: bool = False,
                 weight_attr: Any = None, bias_attr: Any = None, layer_norm_eps: float = 1e-5
                 ) -> None:
        config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        self._config = config           # TransformerEncoder builds its other layers from it
        check_layer_args("TransformerEncoderLayer", d_model, nhead, dim_feedforward, activation)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        w, b = _param_attrs(weight_attr, 2), _param_attrs(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=w[0], bias_attr=b[0])
        self.linear1 = Linear(d_model, dim_feedforward, w[1], bias_attr=b[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, w[1], bias_attr=b[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = getattr(F, activation)

    def forward(self, src: Tensor, src_mask: Tensor | None = None, cache: Any = None) -> Any:
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, cache)

    def gen_cache(self, src: Tensor) -> Any:
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """`num_layers` encoder layers: the given one first, then new ones built from its
    constructor arguments (fresh weights, as Paddle's), and an optional final norm."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int,
                 norm: LayerNorm | None = None) -> None:
        super().__init__()
        self.layers = LayerList([encoder_layer if i == 0 else
                                 type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                cache: Sequence[Any] | None = None) -> Any:
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        out, new_caches = src, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, src_mask=src_mask)
            else:
                out, c = layer(out, src_mask=src_mask, cache=cache[i])
                new_caches.append(c)
        if self.norm is not None:
            out = self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, src: Tensor) -> list:
        return [layer.gen_cache(src) for layer in self.layers]
