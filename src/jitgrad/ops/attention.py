"""scaled_dot_product_attention (paddle.nn.functional), a composite of jitgrad ops; the
attention layers that use it are in nn/attention.py."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core.tensor import Tensor
from .core import FLOAT16, call_in_float32, const
from .linear_embedding import dropout
from .nn import softmax


def _repeat_heads(x: Tensor, repeats: int) -> Tensor:
    """[B, S, h, D] -> [B, S, h * repeats, D], each head repeated in place (GQA)."""
    if repeats == 1:
        return x
    B, S, h, D = x.shape
    return ops.reshape(ops.expand(ops.unsqueeze(x, 3), [B, S, h, repeats, D]),
                       [B, S, h * repeats, D])


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, training: bool = True,
                                 backend: str | None = None, scale: float | None = None,
                                 enable_gqa: bool = True, name: str | None = None) -> Tensor:
    """softmax(q k^T * scale + mask) v over [B, L, heads, D] inputs (3-D: no batch axis).
    The causal mask is -inf above the diagonal (top-left aligned; Paddle 3.3.1 adds -1e4,
    which lets scores 1e4 apart leak through)."""
    if isinstance(query, Tensor) and query._data.dtype is FLOAT16:
        return call_in_float32(scaled_dot_product_attention, locals())
    batched = query.ndim == 4
    if query.ndim not in (3, 4) or key.ndim != query.ndim or value.ndim != query.ndim:
        raise ValueError("scaled_dot_product_attention: query, key and value must all be 4-D "
                         "[batch, seq_len, num_heads, head_dim] or all 3-D, got shapes "
                         f"{query.shape}, {key.shape}, {value.shape}")
    if not batched:
        query, key, value = (ops.unsqueeze(t, 0) for t in (query, key, value))
    qh, kh, vh = query.shape[2], key.shape[2], value.shape[2]
    if kh != vh or (qh != kh and not (enable_gqa and kh and qh % kh == 0)):
        raise ValueError(f"scaled_dot_product_attention: {qh} query heads and {kh} key / {vh} "
                         "value heads: key and value need equal heads, and query the same "
                         "number (or, with enable_gqa, a multiple of it)")
    if attn_mask is not None and attn_mask._data.dtype.kind in "iu":
        raise TypeError("scaled_dot_product_attention: attn_mask must be bool (True: attend) "
                        f"or float (added to the scores), got {attn_mask.dtype.name}")
    if qh != kh and kh:
        key, value = _repeat_heads(key, qh // kh), _repeat_heads(value, qh // kh)
    q, k, v = (ops.transpose(t, [0, 2, 1, 3]) for t in (query, key, value))
    D = q.shape[-1]
    scale = scale or (D ** -0.5 if D else 1.0)
    product = ops.matmul(q * scale, k, transpose_y=True)
    dt = product._data.dtype
    if is_causal:
        L, S = product.shape[-2:]
        product = product + const(np.triu(np.full((L, S), -np.inf), 1), dt)
    elif attn_mask is not None:
        if attn_mask._data.dtype == np.bool_:
            attn_mask = const(np.where(attn_mask._data, 0.0, -np.inf), dt)
        product = product + attn_mask
    weights = softmax(product)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=training, mode="upscale_in_train")
    out = ops.transpose(ops.matmul(weights, v), [0, 2, 1, 3])
    return out if batched else ops.squeeze(out, 0)
