"""lighthouse as a torch.compile backend: the graphs Dynamo captures, fused
fast-path ops among them, compiled by lighthouse; graphs with ops lighthouse
cannot lower compiled in parts around them; graph breaks, sizes Dynamo makes
symbolic, training. Every result is compared with eager PyTorch."""

import warnings

import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)

from lighthouse.ingress.torch import fastpath as _torch_fastpath  # noqa: E402
from lighthouse.torch_backend import Backend, EagerFallbackWarning  # noqa: E402

# Reductions run in another order than PyTorch's kernels: float32 rounding.
TOLERANCE = dict(rtol=1e-4, atol=1e-4)


@pytest.fixture(autouse=True)
def fresh_dynamo():
    # Dynamo caches compiled frames by code object: each test compiles anew.
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def seeded(module, seed=0):
    torch.manual_seed(seed)
    for parameter in module.parameters():
        parameter.data = torch.randn_like(parameter) * 0.3
    return module.eval()


class Recording:
    """A backend that keeps each graph Dynamo gives it and hands it to lighthouse's."""

    def __init__(self, backend):
        self.backend = backend
        self.graphs = []

    def __call__(self, graph_module, example_inputs, **kwargs):
        self.graphs.append(graph_module)
        return self.backend(graph_module, example_inputs, **kwargs)


def fallback_warnings(caught):
    return [w for w in caught if issubclass(w.category, EagerFallbackWarning)]


def test_transformer_encoder_fast_path_compiles_whole():
    layer = torch.nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
    model, x = seeded(torch.nn.TransformerEncoder(layer, 4)), torch.randn(2, 7, 32)
    backend = Backend()
    recording = Recording(backend)
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = torch.compile(model, backend=recording)(x)
        expected = model(x)
    torch.testing.assert_close(result, expected, **TOLERANCE)
    # Dynamo captured PyTorch's fused kernel, and lighthouse compiled it all.
    assert "_transformer_encoder_layer_fwd" in recording.graphs[0].code
    assert [len(g.parts) for g in backend.graphs] == [1]
    assert backend.graphs[0].eager_ops == {}
    assert fallback_warnings(caught) == []


@pytest.mark.parametrize("mask", ["causal", "key_padding"])
def test_transformer_encoder_fast_path_with_masks(mask):
    # One layer: the encoder's own check that a mask is causal is a graph break.
    layer = torch.nn.TransformerEncoderLayer(
        32, 4, 64, batch_first=True, norm_first=True, activation="gelu"
    )
    model, x = seeded(layer), torch.randn(2, 6, 32)
    if mask == "causal":
        kwargs = {"src_mask": torch.nn.Transformer.generate_square_subsequent_mask(6)}
    else:
        padding = torch.zeros(2, 6, dtype=torch.bool)
        padding[1, 4:] = True
        kwargs = {"src_key_padding_mask": padding}
    recording = Recording(Backend())
    with torch.no_grad():
        result = torch.compile(model, backend=recording)(x, **kwargs)
        expected = model(x, **kwargs)
    torch.testing.assert_close(result, expected, **TOLERANCE)
    assert "_transformer_encoder_layer_fwd" in recording.graphs[0].code
    assert [(len(g.parts), g.eager_ops) for g in recording.backend.graphs] == [(1, {})]


def test_multihead_attention_compiles():
    # Dynamo keeps nn.MultiheadAttention off its fast path: the module's own
    # ops, with attention weights averaged over heads.
    attention = seeded(torch.nn.MultiheadAttention(32, 4, batch_first=True))
    x = torch.randn(2, 5, 32)
    backend = Backend()
    with torch.no_grad():
        result = torch.compile(attention, backend=backend)(x, x, x)
        expected = attention(x, x, x)
    torch.testing.assert_close(result, expected, **TOLERANCE)
    assert [(len(g.parts), g.eager_ops) for g in backend.graphs] == [(1, {})]


def fast_path_arguments(mask, mask_type, norm_first, gelu):
    torch.manual_seed(1)
    layer = torch.nn.TransformerEncoderLayer(
        16, 4, 32, batch_first=True, norm_first=norm_first, activation="gelu" if gelu else "relu"
    ).eval()
    attention = layer.self_attn
    return layer, (
        torch.randn(2, 5, 16),
        16,
        4,
        attention.in_proj_weight,
        attention.in_proj_bias,
        attention.out_proj.weight,
        attention.out_proj.bias,
        gelu,
        norm_first,
        layer.norm1.eps,
        layer.norm1.weight,
        layer.norm1.bias,
        layer.norm2.weight,
        layer.norm2.bias,
        layer.linear1.weight,
        layer.linear1.bias,
        layer.linear2.weight,
        layer.linear2.bias,
        mask,
        mask_type,
    )


MASKS = {
    "none": lambda: (None, None),
    "causal": lambda: (torch.nn.Transformer.generate_square_subsequent_mask(5), 0),
    "key_padding": lambda: (torch.tensor([[0, 0, 0, 1, 1], [0, 0, 0, 0, 0]], dtype=torch.bool), 1),
    # Made additive by nn's modules: the fused kernels read it as boolean.
    "key_padding_float": lambda: (torch.tensor([[0.0, 0, 0, 0, -1e9], [0, 3, 0, 0, 0]]), 1),
    "per_head": lambda: (
        torch.rand(2, 4, 5, 5, generator=torch.Generator().manual_seed(3)) > 0.7,
        2,
    ),
}


@pytest.mark.parametrize("mask", list(MASKS))
@pytest.mark.parametrize("norm_first,gelu", [(False, False), (True, True)])
def test_fast_path_decompositions_match_the_kernels(mask, norm_first, gelu):
    """The decompositions against PyTorch's fused CPU kernels, on real tensors."""
    mask, mask_type = MASKS[mask]()
    _, args = fast_path_arguments(mask, mask_type, norm_first, gelu)
    with torch.no_grad():
        torch.testing.assert_close(
            _torch_fastpath.transformer_encoder_layer_fwd(*args),
            torch._transformer_encoder_layer_fwd(*args),
            **TOLERANCE,
        )
        x, qkv = args[0], args[1:7]
        for need_weights, average in [(False, True), (True, True), (True, False)]:
            mha = (x, x, x, *qkv, mask, need_weights, average, mask_type)
            decomposed = _torch_fastpath.native_multi_head_attention(*mha)
            kernel = torch._native_multi_head_attention(*mha)
            torch.testing.assert_close(decomposed[0], kernel[0], **TOLERANCE)
            if need_weights:
                torch.testing.assert_close(decomposed[1], kernel[1], **TOLERANCE)
            else:
                assert decomposed[1] is None and kernel[1] is None


class Digamma(torch.nn.Module):
    """Linear layers around `digamma`, which lighthouse cannot lower."""

    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(8, 16)
        self.second = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.second(torch.digamma(torch.nn.functional.softplus(self.first(x)) + 1))


def test_unlowerable_op_runs_eagerly_and_the_rest_compiles():
    model, x = seeded(Digamma()), torch.randn(3, 8)
    backend = Backend()
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = torch.compile(model, backend=backend)(x)
        expected = model(x)
    torch.testing.assert_close(result, expected, **TOLERANCE)
    (warning,) = fallback_warnings(caught)
    assert "aten.digamma.default" in str(warning.message)
    (graph,) = backend.graphs
    assert list(graph.eager_ops) == ["aten.digamma.default"]
    assert "torch.aten.digamma" in graph.eager_ops["aten.digamma.default"]
    # The layers before and after it: one part each.
    assert len(graph.parts) == 2


def test_part_failing_without_naming_an_op_runs_eagerly():
    class Spectrum(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = torch.nn.Linear(16, 16)
            self.second = torch.nn.Linear(9, 4)

        def forward(self, x):
            # rfft lighthouse cannot lower; the complex abs after it, its
            # pipeline rejects without naming an ATen op.
            return self.second(torch.fft.rfft(torch.tanh(self.first(x))).abs())

    model, x = seeded(Spectrum()), torch.randn(3, 16)
    backend = Backend()
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = torch.compile(model, backend=backend)(x)
        expected = model(x)
    torch.testing.assert_close(result, expected, **TOLERANCE)
    (warning,) = fallback_warnings(caught)
    (graph,) = backend.graphs
    assert {"aten._fft_r2c.default", "aten.abs.default"} <= set(graph.eager_ops)
    assert "aten._fft_r2c.default" in str(warning.message)
    assert len(graph.parts) == 1  # The layer before the FFT.


def test_graph_break_on_a_data_dependent_branch():
    class Branching(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = torch.nn.Linear(8, 8)
            self.second = torch.nn.Linear(8, 4)

        def forward(self, x):
            y = self.first(x)
            if y.sum() > 0:
                y = torch.cumsum(y, dim=1)
            else:
                y = torch.relu(y) * 2
            return self.second(y)

    model = seeded(Branching())
    backend = Backend()
    compiled = torch.compile(model, backend=backend)
    with torch.no_grad():
        for sign in (1, -1):
            x = sign * torch.ones(3, 8) + 0.1 * torch.randn(3, 8)
            torch.testing.assert_close(compiled(x), model(x), **TOLERANCE)
    # Before the branch, and each side of it after.
    assert len(backend.graphs) == 3
    assert all(len(g.parts) == 1 and not g.eager_ops for g in backend.graphs)


def test_sizes_dynamo_makes_symbolic():
    model = seeded(
        torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    )
    backend = Backend()
    compiled = torch.compile(model, backend=backend)
    with torch.no_grad():
        for batch in (2, 3, 5, 3):
            x = torch.randn(batch, 8)
            torch.testing.assert_close(compiled(x), model(x), **TOLERANCE)
    # Static for the first size; then one graph with a symbolic batch, which
    # lighthouse compiles once per batch size it is called with.
    assert [len(g.parts) for g in backend.graphs] == [1, 2]


def test_dynamic_sequence_length_through_the_fast_path():
    layer = torch.nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
    model = seeded(torch.nn.TransformerEncoder(layer, 2))
    backend = Backend()
    compiled = torch.compile(model, backend=backend, dynamic=True)
    with torch.no_grad():
        for length in (5, 7, 5):
            x = torch.randn(2, length, 32)
            torch.testing.assert_close(compiled(x), model(x), **TOLERANCE)
    # One graph, symbolic from the start: compiled for each length.
    assert [(len(g.parts), g.eager_ops) for g in backend.graphs] == [(2, {})]


def test_decode_step_with_a_cache_that_grows():
    # A decoder's step on a key/value cache of 17, then 33 past tokens:
    # Dynamo makes the cache's length symbolic, and its graph reads sizes of
    # the grown cache between the nodes of a part lighthouse compiles (the
    # part's call then goes after the last of them).
    pytest.importorskip("transformers")
    from lighthouse.suite.case import to_torch
    from lighthouse.suite.plugins import create_corpus

    case = create_corpus("transformers", layers=1).load("llama_decode_dynamic")
    model = case.form("torch")
    backend = Backend()
    compiled = torch.compile(model, backend=backend)
    with torch.no_grad():
        for inputs in (case.inputs, *case.also_at[:1]):
            inputs = to_torch(inputs)
            for got, expected in zip(compiled(*inputs), model(*inputs), strict=True):
                torch.testing.assert_close(got, expected, **TOLERANCE)
    assert backend.graphs and all(g.parts for g in backend.graphs)


def test_training_forward_and_backward():
    model, x = seeded(Digamma()), torch.randn(3, 8)
    twin = seeded(Digamma())
    backend = Backend()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.compile(twin, backend=backend)(x).square().sum().backward()
    model(x).square().sum().backward()
    for (name, expected), actual in zip(model.named_parameters(), twin.parameters()):
        torch.testing.assert_close(actual.grad, expected.grad, **TOLERANCE, msg=name)
    # The forward graph and the backward graph (digamma's derivative is polygamma's).
    assert [sorted(g.eager_ops) for g in backend.graphs] == [
        ["aten.digamma.default"],
        ["aten.polygamma.default"],
    ]
    assert all(g.parts for g in backend.graphs)
    assert len(fallback_warnings(caught)) == 2


def test_options_through_torch_compile():
    model, x = (
        seeded(torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.Tanh())),
        torch.randn(2, 8),
    )
    backend = Backend()
    with torch.no_grad():
        compiled = torch.compile(model, backend=backend, options={"pipeline": "loops"})
        torch.testing.assert_close(compiled(x), model(x), **TOLERANCE)
    assert backend.graphs[0].parts[0].pipeline == "builtin.module(lighthouse-cpu-loops)"
    with pytest.raises(TypeError, match="pipelin"):
        Backend(pipelin="loops")
