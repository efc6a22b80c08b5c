"""Decompositions of PyTorch's fused inference fast-path ops into ordinary ATen
ops, for graphs TorchDynamo captures.

`nn.TransformerEncoderLayer` and `nn.MultiheadAttention` in eval mode (with
no gradients) call one fused op each, which has a CPU kernel but neither a
composite kernel nor a decomposition in torch, so nothing lowers it.
`torch.export` never meets them (its traced tensors turn the fast path off);
Dynamo keeps them in its graphs. Each function here computes what the op
computes, from the modules' documented semantics, with ops lighthouse lowers.
"""

import math

import torch
import torch.nn.functional as F

aten = torch.ops.aten

# The ops' `mask_type`: which of the three mask layouts `mask` has.
_ATTENTION_MASK, _KEY_PADDING_MASK, _GENERIC_MASK = 0, 1, 2


def _masked_out(mask, mask_type, batch, length):
    """The positions a fast-path mask excludes, broadcastable to (batch, heads,
    queries, keys). The fused kernels read any mask as boolean: an element
    other than zero (`True`, or the `-inf` of a mask made additive by
    `F._canonical_mask`) excludes its position, whatever its value."""
    excluded = mask if mask.dtype == torch.bool else mask != 0
    if mask_type == _ATTENTION_MASK:  # (queries, keys)
        return excluded.view(1, 1, length, length)
    if mask_type == _KEY_PADDING_MASK:  # (batch, keys)
        return excluded.view(batch, 1, 1, length)
    if mask_type == _GENERIC_MASK:  # (batch, heads, queries, keys)
        return excluded
    raise ValueError(f"a fast-path attention mask needs a mask_type of 0, 1 or 2, not {mask_type}")


def native_multi_head_attention(
    query,
    key,
    value,
    embed_dim,
    num_heads,
    qkv_weight,
    qkv_bias,
    proj_weight,
    proj_bias,
    mask=None,
    need_weights=True,
    average_attn_weights=True,
    mask_type=None,
):
    """`aten._native_multi_head_attention`: `nn.MultiheadAttention`'s batch-first
    forward (no dropout) from its packed input projection."""
    batch, length, _ = query.shape
    head_dim = embed_dim // num_heads
    q_weight, k_weight, v_weight = qkv_weight.chunk(3)
    q_bias, k_bias, v_bias = qkv_bias.chunk(3)

    def heads(x, weight, bias):
        # (batch, length, embed) -> (batch, heads, length, head_dim)
        projected = F.linear(x, weight, bias)
        return projected.view(batch, -1, num_heads, head_dim).transpose(1, 2)

    q = heads(query, q_weight, q_bias)
    k = heads(key, k_weight, k_bias)
    v = heads(value, v_weight, v_bias)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(head_dim)
    if mask is not None:
        excluded = _masked_out(mask, mask_type, batch, k.shape[2])
        scores = scores.masked_fill(excluded, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    attended = torch.matmul(weights, v).transpose(1, 2).reshape(batch, length, embed_dim)
    output = F.linear(attended, proj_weight, proj_bias)
    if not need_weights:
        return output, None
    return output, weights.mean(dim=1) if average_attn_weights else weights


def transformer_encoder_layer_fwd(
    src,
    embed_dim,
    num_heads,
    qkv_weight,
    qkv_bias,
    proj_weight,
    proj_bias,
    use_gelu,
    norm_first,
    eps,
    norm_weight_1,
    norm_bias_1,
    norm_weight_2,
    norm_bias_2,
    ffn_weight_1,
    ffn_bias_1,
    ffn_weight_2,
    ffn_bias_2,
    mask=None,
    mask_type=None,
):
    """`aten._transformer_encoder_layer_fwd`: `nn.TransformerEncoderLayer`'s
    batch-first forward (no dropout), pre- or post-norm."""

    def attention(x):
        output, _ = native_multi_head_attention(
            x,
            x,
            x,
            embed_dim,
            num_heads,
            qkv_weight,
            qkv_bias,
            proj_weight,
            proj_bias,
            mask,
            need_weights=False,
            mask_type=mask_type,
        )
        return output

    def feed_forward(x):
        hidden = F.linear(x, ffn_weight_1, ffn_bias_1)
        hidden = F.gelu(hidden) if use_gelu else F.relu(hidden)
        return F.linear(hidden, ffn_weight_2, ffn_bias_2)

    def norm_1(x):
        return F.layer_norm(x, (embed_dim,), norm_weight_1, norm_bias_1, eps)

    def norm_2(x):
        return F.layer_norm(x, (embed_dim,), norm_weight_2, norm_bias_2, eps)

    if norm_first:
        x = src + attention(norm_1(src))
        return x + feed_forward(norm_2(x))
    x = norm_1(src + attention(src))
    return norm_2(x + feed_forward(x))


#: The decompositions by op, for a decomposition table.
DECOMPOSITIONS = {
    aten._native_multi_head_attention.default: native_multi_head_attention,
    aten._transformer_encoder_layer_fwd.default: transformer_encoder_layer_fwd,
}
