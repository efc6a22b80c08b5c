"""Work on a frozen program's constants done once, at import, not on every
call.

A model's state is constant once frozen (`program.frozen`), and so is what
is computed from it alone: torch's decomposition of an inference batch norm
computes `1 / sqrt(var + eps)` and reshapes its four vectors on every call.
`fold_constants` computes such nodes here, with torch.

A convolution followed by a multiplication or an addition by a constant of
one value per output channel (an inference batch norm, once its constants
are folded: `(y - mean) * scale * weight + bias`) is another convolution,
with its filters scaled and its bias shifted. `fold_into_convolutions` folds
them: MobileNet-V2's 52 batch norms went from passes over every activation
to nothing, and the activation after each (ReLU6) became the convolution's
consumer.
"""

from ..torch_mlir import require

torch = require("torch", "torch")
pytree = require("torch.utils._pytree", "torch")
aten = torch.ops.aten

__all__ = ["fold_constants", "fold_into_convolutions"]

#: Ops a constant of one value per output channel folds into a convolution
#: through, and whether the convolution must be their first operand.
_CHANNEL_AFFINE = {
    aten.mul.Tensor: False,
    aten.add.Tensor: False,
    aten.sub.Tensor: True,
    aten.div.Tensor: True,
}


@torch.no_grad()
def fold_constants(graph: "torch.fx.Graph") -> None:
    """Replaces each ATen node of `graph` whose tensor operands are all
    constants (tensors in its arguments, not nodes) by its value, computed
    now. Nodes that draw random numbers or write their operands stay, and so
    do those whose value has more bytes than their largest operand (an
    `expand` of a bias to a whole activation would only make the constants
    larger), and those that fail on the values (left to fail, or not, as
    compiled)."""
    for node in list(graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        if torch.Tag.nondeterministic_seeded in node.target.tags or node.target._schema.is_mutable:
            continue
        operands, _ = pytree.tree_flatten((node.args, node.kwargs))
        if any(isinstance(operand, torch.fx.Node) for operand in operands):
            continue
        tensors = [operand for operand in operands if isinstance(operand, torch.Tensor)]
        if not tensors:
            continue
        try:
            value = node.target(*node.args, **node.kwargs)
        except Exception:  # noqa: BLE001 - left for the compiled code to compute, as before
            continue
        if not isinstance(value, torch.Tensor) or _bytes(value) > max(map(_bytes, tensors)):
            continue
        _replace_by_value(node, value.contiguous())


def _bytes(tensor) -> int:
    return tensor.numel() * tensor.element_size()


def _replace_by_value(node: "torch.fx.Node", value) -> None:
    """Puts `value` in place of `node` in its users' arguments, and erases it."""
    for user in list(node.users):
        user.args, user.kwargs = pytree.tree_map_only(
            torch.fx.Node,
            lambda argument: value if argument is node else argument,
            (user.args, user.kwargs),
        )
    node.graph.erase_node(node)


@torch.no_grad()
def fold_into_convolutions(graph: "torch.fx.Graph") -> None:
    """Folds into each convolution of constant filters the multiplications,
    divisions, additions and subtractions by constants of one value per
    output channel that its result alone goes through, `y * scale + shift`
    in all: the filters and the bias are scaled, the bias shifted. A
    convolution without a bias is followed by one addition of the shift
    instead: it keeps accumulating from zeros, and the addition joins the
    elementwise ops after it (MobileNet-V2 with the shift as a bias, which
    torch-mlir adds by broadcasting it into the result before the
    convolution, ran 3-5% slower: a pass of its own per convolution)."""
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not aten.convolution.default:
            continue
        image, filters, bias, *settings = node.args
        transposed = settings[3]
        if (
            transposed
            or not isinstance(filters, torch.Tensor)
            or not filters.is_floating_point()
            or not (bias is None or isinstance(bias, torch.Tensor))
        ):
            continue
        scale = torch.ones(filters.shape[0], dtype=filters.dtype)
        shift = torch.zeros_like(scale)
        folded = []
        while len(node.users) == 1:
            user = next(iter(node.users))
            per_channel = _per_channel_operand(node, user, filters)
            # A scale of 0 or an infinite one is not the filters' to take:
            # 0 * inf is NaN where the convolution's inf * 0 was not computed.
            if per_channel is None or not torch.isfinite(per_channel).all():
                break
            if user.target in (aten.mul.Tensor, aten.div.Tensor) and not per_channel.all():
                break
            if user.target is aten.mul.Tensor:
                scale, shift = scale * per_channel, shift * per_channel
            elif user.target is aten.div.Tensor:
                scale, shift = scale / per_channel, shift / per_channel
            elif user.target is aten.add.Tensor:
                shift = shift + per_channel
            else:
                shift = shift - per_channel
            user.replace_all_uses_with(node)
            graph.erase_node(user)
            folded.append(user.target)
        if not folded:
            continue
        filters = filters * scale.view(-1, *[1] * (filters.dim() - 1))
        if bias is not None:
            bias = (bias * scale + shift).contiguous()
        node.args = (image, filters.contiguous(), bias, *settings)
        if bias is None and any(target in (aten.add.Tensor, aten.sub.Tensor) for target in folded):
            with graph.inserting_after(node):
                shifted = graph.call_function(
                    aten.add.Tensor, (node, shift.view(-1, *[1] * (filters.dim() - 2)))
                )
            shifted.meta = dict(node.meta)
            node.replace_all_uses_with(shifted, delete_user_cb=lambda user: user is not shifted)


def _per_channel_operand(convolution, user, filters):
    """The constant `user` applies to `convolution`'s result, as one value per
    output channel, if `user` is one of `_CHANNEL_AFFINE`'s ops with the
    result as its (first, where that matters) operand and the other operand
    a number or a tensor of the filters' type that varies along the channels
    only; else None."""
    if user.target not in _CHANNEL_AFFINE or user.kwargs or len(user.args) != 2:
        return None
    first, second = user.args
    if _CHANNEL_AFFINE[user.target] and first is not convolution:
        return None
    other = second if first is convolution else first
    if isinstance(other, torch.fx.Node) or other is convolution:
        return None
    channels, rank = filters.shape[0], filters.dim()
    if isinstance(other, (int, float)) and not isinstance(other, bool):
        return torch.full((channels,), other, dtype=filters.dtype)
    if not isinstance(other, torch.Tensor) or other.dtype != filters.dtype or other.dim() > rank:
        return None
    # Sizes as broadcast against the result's (batch, channels, spatial...).
    sizes = [1] * (rank - other.dim()) + list(other.shape)
    if any(size != 1 for index, size in enumerate(sizes) if index != 1):
        return None
    if sizes[1] not in (1, channels):
        return None
    return other.reshape(-1).expand(channels)
