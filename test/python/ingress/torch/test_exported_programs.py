"""Exported programs as lighthouse imports them (lighthouse.ingress.torch.program):
the model's state of every kind as constants, and the failures of
torch.export and torch-mlir's importer as lighthouse errors naming the
stage and the place."""

import collections

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[torch])")

import lighthouse  # noqa: E402
from lighthouse.ingress import ExportError, ImporterError, IngressError  # noqa: E402
from lighthouse.ingress import torch as torch_ingress  # noqa: E402


class NonPersistentBuffers(torch.nn.Module):
    """Buffers left out of the state dict, as transformers' `position_ids`
    and rotary `inv_freq`: torch.export puts them in the program's constants."""

    def __init__(self):
        super().__init__()
        self.register_buffer("positions", torch.arange(8).unsqueeze(0), persistent=False)
        self.register_buffer("scale", torch.linspace(0.5, 2.0, 16), persistent=False)
        self.embedding = torch.nn.Embedding(8, 16)

    def forward(self, x):
        return x * self.scale + self.embedding(self.positions)


class BuffersInLists(torch.nn.Module):
    """A buffer among `aten.index`'s indices (swin's relative position index)
    and one among `aten.cat`'s tensors, each used once more outside a list."""

    def __init__(self):
        super().__init__()
        self.register_buffer("index", torch.tensor([[3, 0], [1, 2], [2, 2]]))
        self.register_buffer("row", torch.full((1, 4), 0.25))

    def forward(self, table, x):
        picked = table[self.index]  # aten.index.Tensor(table, [index])
        rows = torch.cat([x, self.row, self.row])  # the same buffer twice in a list
        return picked.sum() + self.index.sum(), rows * self.row


class ReturnsItsBuffer(torch.nn.Module):
    """A buffer that is itself one of the model's results."""

    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.arange(6.0).reshape(2, 3), persistent=False)

    def forward(self, x):
        return x + 1, self.table


class LiftedConstant(torch.nn.Module):
    """A tensor made in `forward`: torch.export lifts it into a constant."""

    def forward(self, x):
        return x * torch.tensor([1.0, -2.0, 3.0])


@pytest.mark.parametrize(
    "model, inputs",
    [
        (NonPersistentBuffers(), [torch.randn(8, 16)]),
        (BuffersInLists(), [torch.randn(4, 5), torch.randn(2, 4)]),
        (LiftedConstant(), [torch.randn(2, 3)]),
        (ReturnsItsBuffer(), [torch.randn(2, 3)]),
    ],
    ids=["non-persistent-buffers", "buffers-in-lists", "lifted-constant", "buffer-as-result"],
)
def test_state_of_every_kind_compiles_and_matches_eager(model, inputs):
    model.eval()
    compiled = lighthouse.compile(model, tuple(inputs))
    expected = model(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    actual = compiled(*inputs)
    actual = actual if isinstance(actual, tuple) else (actual,)
    for got, want in zip(actual, expected):
        np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


class StateOfEveryDtype(torch.nn.Module):
    """State of the dtypes the importer reads from the tensors' storage, one
    tensor not laid out row-major and one used twice, and a boolean and a
    one-element tensor, which torch-mlir's importer makes itself."""

    def __init__(self):
        super().__init__()
        generator = torch.Generator().manual_seed(0)

        def normal(*shape):
            return torch.randn(*shape, generator=generator)

        self.register_buffer("f64", normal(3, 4).double())
        self.register_buffer("f16", normal(3, 4).half())
        self.register_buffer("bf16", normal(3, 4).bfloat16())
        self.register_buffer("i64", torch.arange(-6, 6).reshape(3, 4) * 2**40)
        self.register_buffer("i8", torch.arange(-6, 6, dtype=torch.int8).reshape(3, 4))
        self.register_buffer("u8", torch.arange(244, 256, dtype=torch.uint8).reshape(3, 4))
        self.register_buffer("transposed", normal(4, 3).t())
        self.register_buffer("mask", torch.tensor([True, False, True, False]))
        self.register_buffer("one", torch.tensor([2.5]))

    def forward(self, x):
        # Each buffer meets the input: what is computed from buffers alone
        # is folded at import (folding.py), and would import its result.
        n = (x.abs() * 4).floor()
        return (
            x + (self.f64 * x.double()).float() + self.transposed * x,
            self.f16 * x.half(),
            self.bf16 + x.bfloat16(),
            self.i64 + n.long(),
            self.i8 * n.to(torch.int8),
            self.u8 + n.to(torch.uint8),
            x * self.mask + self.one,
        )


def test_state_is_imported_from_the_tensors_storage_of_every_dtype():
    model, x = StateOfEveryDtype().eval(), torch.randn(3, 4)
    text = str(torch_ingress.import_model(model, (x,)))
    resources = {
        line.split(":")[0].strip() for line in text.split("dialect_resources")[1].splitlines()
    }
    for name in ("float64", "float16", "bfloat16", "int64", "int8", "uint8", "float32"):
        assert f"torch_tensor_3_4_torch.{name}" in resources
    # The importer's own: the mask as a uint8 copy, the one element as a splat.
    assert "torch_tensor_4_torch.uint8" in resources and "dense<2.500000e+00>" in text
    compiled = lighthouse.compile(model, (x,))
    for got, want in zip(compiled(x), model(x)):
        assert got.dtype == want.dtype
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)


def test_import_leaves_the_program_as_it_is():
    program = torch_ingress.export(NonPersistentBuffers(), (torch.randn(8, 16),))
    before = [node.format_node() for node in program.graph.nodes]
    torch_ingress.import_model(program, decompositions={})
    assert [node.format_node() for node in program.graph.nodes] == before


def test_buffers_written_in_place_are_refused_naming_them():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.BatchNorm1d(4)).train()
    with pytest.raises(ImporterError, match=r"writes its buffer.*1\.running_mean.*\.eval\(\)"):
        lighthouse.compile(model, (torch.randn(3, 4),))


class DataDependentBranch(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


def test_export_failures_are_export_errors_naming_the_model():
    with pytest.raises(ExportError) as caught:
        lighthouse.compile(DataDependentBranch(), (torch.randn(3),))
    error = caught.value
    assert isinstance(error, IngressError) and error.stage == "export"
    assert "torch.export could not export" in str(error)
    assert "test_exported_programs.DataDependentBranch" in str(error)
    assert error.__cause__ is not None  # torch.export's own error, for its traceback


class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        # complex32 has no literal form in torch-mlir's importer.
        self.register_buffer("half_complex", torch.zeros(4, dtype=torch.complex32))

    def forward(self, x):
        # The buffer meets the input: alone, it would be folded at import.
        return (x.to(torch.complex32) + self.half_complex).real.float()


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = torch.nn.Sequential(torch.nn.Identity(), Inner())

    def forward(self, x):
        return self.block(x)


def test_importer_failures_name_the_node_module_and_source_line():
    with pytest.raises(ImporterError) as caught:
        lighthouse.compile(Outer(), (torch.randn(4),))
    error = caught.value
    message = str(error)
    assert error.stage == "import" and error.node
    assert message.startswith("torch-mlir's FX importer failed at node")
    assert "in module 'block.1' (" in message and "Inner)" in message
    assert "test_exported_programs.py:" in message and "self.half_complex" in message
    assert "complex32" in message  # The importer's own message.
    assert isinstance(error.__cause__, AssertionError)


class PooledTokens(torch.nn.Module):
    """A pooling to one pixel (swin's pooler; torchvision classifiers' heads
    are the same in 2-D): its decomposition ends in a row-major as_strided."""

    def __init__(self):
        super().__init__()
        self.pool = torch.nn.AdaptiveAvgPool1d(1)

    def forward(self, x):
        return self.pool(x.transpose(1, 2)).flatten(1)


def test_row_major_as_strided_is_a_view_at_dynamic_sizes():
    model = PooledTokens().eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    compiled = lighthouse.compile(model, (torch.randn(2, 49, 32),), dynamic_shapes=({0: batch},))
    for size in (1, 5):
        x = torch.randn(size, 49, 32)
        np.testing.assert_allclose(compiled(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6)
    # At static sizes too: a view, not a gather of every element.
    static = lighthouse.compile(model, (torch.randn(2, 49, 32),), dump_ir=True)
    assert "torch.aten.view" in static.ir["torch"]
    assert "torch.aten.as_strided" not in static.ir["torch"]
    assert "torch.aten.index.Tensor" not in static.ir["torch"]


class NoInputs(torch.nn.Module):
    """A model computing from its own state alone (PyTorch's broadcast_shapes
    samples are such)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.arange(3.0), persistent=False)

    def forward(self):
        return self.table * 2


def test_a_model_of_no_inputs_exports_without_example_inputs():
    compiled = lighthouse.compile(NoInputs(), ())
    # Without inputs to take the kind of, the result is a numpy array.
    np.testing.assert_array_equal(compiled(), [0.0, 2.0, 4.0])


class StridedOverATranspose(torch.nn.Module):
    """as_strided reads its input's storage: over a transpose, row-major
    strides read the elements in another order than the transpose's."""

    def forward(self, x):
        return torch.as_strided(x.t(), (4, 3), (3, 1)) * 1.0


def test_as_strided_over_a_transpose_is_not_taken_for_a_view():
    model = StridedOverATranspose()
    x = torch.randn(3, 4)
    compiled = lighthouse.compile(model, (x,))
    np.testing.assert_array_equal(compiled(x).numpy(), model(x).numpy())


class TokensThroughALinearMap(torch.nn.Module):
    """Hidden states flattened over batch and sequence for a matrix product,
    then unflattened: what every transformers model does with its hidden
    states. Both sizes dynamic, `[b, n, d] -> [b*n, d]` pairs no size of the
    input with one of the result."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(16)
        self.weight = torch.nn.Parameter(torch.randn(16, 8))

    def forward(self, x):
        b, n, d = x.shape
        h = self.norm(x).view(b * n, d) @ self.weight
        return h.view(b, n, 8).reshape(b, n * 4, 2)


@pytest.mark.parametrize("pipeline", ["default", "loops"])
def test_views_over_several_dynamic_sizes_match_eager_at_every_size(pipeline):
    model = TokensThroughALinearMap().eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    length = torch.export.Dim("length", min=2, max=64)
    compiled = lighthouse.compile(
        model,
        (torch.randn(2, 5, 16),),
        dynamic_shapes=({0: batch, 1: length},),
        pipeline=pipeline,
        dump_ir=True,
    )
    for b, n in ((2, 5), (3, 7), (1, 64), (8, 2)):
        x = torch.randn(b, n, 16)
        np.testing.assert_allclose(
            compiled(x).numpy(), model(x).detach().numpy(), rtol=1e-5, atol=1e-5
        )
    # The views are collapses and expansions of the runs of sizes they join.
    torch_ir = compiled.ir["torch"]
    assert "torch.aten.flatten.using_ints" in torch_ir
    assert "torch.aten.unflatten.int" in torch_ir


def test_views_at_one_dynamic_size_stay_views():
    model = TokensThroughALinearMap().eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    compiled = lighthouse.compile(
        model, (torch.randn(2, 5, 16),), dynamic_shapes=({0: batch},), dump_ir=True
    )
    assert "torch.aten.flatten" not in compiled.ir["torch"]
    x = torch.randn(3, 5, 16)
    np.testing.assert_allclose(compiled(x).numpy(), model(x).detach().numpy(), rtol=1e-5, atol=1e-5)


class TokenIdsViewed(torch.nn.Module):
    """Token ids viewed with their batch inferred, as OPT does before its
    embeddings: `[b, n] -> [-1, n]` regroups no size."""

    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(50, 8)

    def forward(self, ids):
        return self.embedding(ids.view(-1, ids.shape[-1]))


def test_a_view_that_infers_a_dynamic_size_it_does_not_regroup_matches_eager():
    model = TokenIdsViewed().eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    length = torch.export.Dim("length", min=2, max=64)
    ids = torch.randint(0, 50, (2, 5))
    compiled = lighthouse.compile(model, (ids,), dynamic_shapes=({0: batch, 1: length},))
    for b, n in ((2, 5), (3, 7), (1, 64)):
        ids = torch.randint(0, 50, (b, n))
        np.testing.assert_allclose(compiled(ids).numpy(), model(ids).detach().numpy())


class SlidingWindow(torch.nn.Module):
    """Positions from the extrema of a dynamic length, as Mistral's
    sliding-window mask computes them over a cache of any length."""

    def forward(self, x, y):
        n = x.shape[1]
        near = torch.sym_min(n, 4)
        return x + (torch.arange(n) - torch.sym_max(n - 4, 0) + near), y * near


def test_extrema_of_dynamic_sizes_match_eager_at_every_size():
    model, y = SlidingWindow(), torch.randn(3)
    length = torch.export.Dim("length", min=1, max=64)
    compiled = lighthouse.compile(
        model, (torch.randn(2, 6), y), dynamic_shapes=({1: length}, None), dump_ir=True
    )
    assert "torch.prim.max.int" in compiled.ir["torch"]
    assert "torch.prim.min.int" in compiled.ir["torch"]
    for n in (6, 1, 3, 40):
        x = torch.randn(2, n)
        for got, want in zip(compiled(x, y), model(x, y)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


class AttentionRowsViewed(torch.nn.Module):
    """Attention's output viewed as rows for a matrix product, as GPT-2's
    projections do; the decomposition of the attention lays its output out
    sequence-major."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(16, 16))

    def forward(self, x):
        b, n, _ = x.shape
        q = x.view(b, n, 2, 8).transpose(1, 2)
        a = torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
        a = a.transpose(1, 2).reshape(b, n, 16)
        return (a.view(-1, 16) @ self.weight).view(b, n, 16)


def test_views_of_a_layout_the_decompositions_change_match_eager_at_every_size():
    model = AttentionRowsViewed().eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    length = torch.export.Dim("length", min=2, max=64)
    compiled = lighthouse.compile(
        model, (torch.randn(2, 5, 16),), dynamic_shapes=({0: batch, 1: length},)
    )
    for b, n in ((2, 5), (3, 7), (1, 64)):
        x = torch.randn(b, n, 16)
        np.testing.assert_allclose(
            compiled(x).numpy(), model(x).detach().numpy(), rtol=1e-5, atol=1e-5
        )


class EncoderRows(torch.nn.Module):
    """Attention, GELU and a norm: ops the decompositions rewrite."""

    def __init__(self):
        super().__init__()
        self.attention = AttentionRowsViewed()
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, x):
        return self.norm(torch.nn.functional.gelu(self.attention(x)))


def _operators(program):
    """How many times `program` calls each tensor op (not the arithmetic of
    sizes, which the two traces order differently), but the shape assertions
    the training IR carries and inference IR drops (they compute nothing)."""
    calls = collections.Counter(
        str(node.target)
        for node in program.graph.nodes
        if isinstance(node.target, torch._ops.OpOverload)
    )
    calls.pop("aten._assert_tensor_metadata.default", None)
    return calls


@pytest.mark.parametrize("dynamic", [False, True])
def test_one_trace_to_inference_ir_computes_what_the_public_path_does(dynamic):
    model = EncoderRows().eval()
    x = torch.randn(2, 5, 16)
    shapes = ({0: torch.export.Dim("batch", max=8)},) if dynamic else None
    table = torch_ingress.default_decompositions()
    one = torch_ingress._traced_to_inference_ir(model, (x,), None, shapes, False, table)
    assert one is not None
    # The public path: training IR, its views made reshapes, then retraced.
    public = torch.export.export(model, (x,), dynamic_shapes=shapes)
    torch_ingress._views_as_reshapes(public.graph_module)
    public = torch_ingress.export(public, decompositions=table)
    assert _operators(one) == _operators(public)
    assert "aten.scaled_dot_product_attention.default" not in _operators(one)
    compiled = lighthouse.compile(model, (x,), dynamic_shapes=shapes)
    for b in (2, 3) if dynamic else (2,):
        y = torch.randn(b, 5, 16)
        np.testing.assert_allclose(
            compiled(y).numpy(), model(y).detach().numpy(), rtol=1e-5, atol=1e-5
        )


class StatesAtTokens(torch.nn.Module):
    """Each sequence's state at a token, as CLIP's text tower pools at its
    end token: indexing by two tensors of dynamic size."""

    def forward(self, hidden, rows, tokens):
        return hidden[rows, tokens]


def test_indexing_by_several_tensors_of_dynamic_size_matches_eager_and_checks_bounds():
    model, hidden = StatesAtTokens(), torch.randn(2, 7, 5)
    batch = torch.export.Dim("batch", min=1, max=8)
    compiled = lighthouse.compile(
        model,
        (hidden, torch.tensor([0, 1]), torch.tensor([3, 6])),
        dynamic_shapes=({0: batch}, {0: batch}, {0: batch}),
    )
    for rows, tokens in (([0, 1, 2], [6, -1, -7]), ([2, 0, 1], [0, 3, 5]), ([-1], [2])):
        hidden = torch.randn(len(rows), 7, 5)
        rows, tokens = torch.tensor(rows), torch.tensor(tokens)
        np.testing.assert_array_equal(
            compiled(hidden, rows, tokens).numpy(), model(hidden, rows, tokens).numpy()
        )
    # Token 7 of row 0 is an element of row 1 once the rows are flattened.
    hidden, rows = torch.randn(2, 7, 5), torch.tensor([0, 1])
    for tokens in ([7, 0], [0, -8]):
        with pytest.raises(IndexError):
            model(hidden, rows, torch.tensor(tokens))
        with pytest.raises(ValueError, match="index out of bounds"):
            compiled(hidden, rows, torch.tensor(tokens))


class RepeatedKeys(torch.nn.Module):
    """A key cache grown by one position and repeated for grouped-query
    attention (transformers' `repeat_kv`): over a named Dim, torch.export
    makes the guard min(8 + 8n, 32 + 32n) == 8 + 8n, which holds for every
    n >= 0, and refuses it as not proven over the Dim's range."""

    def forward(self, cache):
        keys = torch.cat([cache, cache[:, :, :1]], dim=2)
        b, heads, n, d = keys.shape
        return keys[:, :, None].expand(b, heads, 4, n, d).reshape(b, heads * 4, n, d) * 2


def test_dims_torch_export_refuses_over_a_guard_it_cannot_prove_are_exported_bounded():
    model = RepeatedKeys()
    length = torch.export.Dim("length", min=2, max=64)
    example = (torch.randn(1, 4, 5, 8),)
    with pytest.raises(Exception, match="Constraints violated"):
        torch.export.export(model, example, dynamic_shapes=({2: length},))
    compiled = lighthouse.compile(model, example, dynamic_shapes=({2: length},))
    for n in (2, 9, 64):
        x = torch.randn(1, 4, n, 8)
        np.testing.assert_array_equal(compiled(x).numpy(), model(x).numpy())


class SpecializesItsLength(torch.nn.Module):
    def forward(self, x):
        return x * 2 if x.shape[0] == 5 else x


def test_a_dim_the_model_specializes_is_still_refused():
    length = torch.export.Dim("length", min=2, max=64)
    with pytest.raises(ExportError, match="length"):
        lighthouse.compile(
            SpecializesItsLength(), (torch.randn(5, 3),), dynamic_shapes=({0: length},)
        )
