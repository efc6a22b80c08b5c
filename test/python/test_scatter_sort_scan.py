"""Models whose ops torch-mlir lowers to its tm_tensor dialect (scatters,
sorts, cumulative scans, top-k), compiled by both pipelines and compared with
eager PyTorch and ONNX's reference; out-of-range scatter indices raise."""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)
onnx = pytest.importorskip(
    "onnx", reason="needs lighthouse[onnx] (build_tools/setup.sh installs it)"
)

import lighthouse  # noqa: E402
import models  # noqa: E402

PIPELINES = ["loops", "default"]


def _random(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


# Rows of distinct values, so that the positions a sort returns are defined.
_DISTINCT = torch.stack(
    [torch.randperm(301, generator=torch.Generator().manual_seed(r)) for r in range(7)]
).float()
_INDEX = torch.tensor([[0, 1], [2, 3], [4, 0]])

CASES = {
    "cumsum": (lambda x: torch.cumsum(x, 1), (_random(4, 33),)),
    "cumprod_dim0": (lambda x: torch.cumprod(x, 0), (_random(5, 3),)),
    "scatter": (lambda x, i, s: x.scatter(1, i, s), (_random(3, 5), _INDEX, _random(3, 2, seed=1))),
    "scatter_add": (
        lambda x, i, s: x.scatter_add(1, i, s),
        (_random(3, 5), _INDEX, _random(3, 2, seed=1)),
    ),
    "scatter_amax": (
        lambda x, i, s: x.scatter_reduce(1, i, s, "amax"),
        (_random(3, 5), _INDEX, _random(3, 2, seed=1)),
    ),
    # Repeated and negative rows, accumulated.
    "index_put_accumulate": (
        lambda x, i, v: x.index_put((i,), v, accumulate=True),
        (_random(6, 4), torch.tensor([0, 2, 2, -1]), _random(4, 4, seed=1)),
    ),
    "sort_descending": (lambda x: torch.sort(x, 1, descending=True), (_DISTINCT,)),
    "argsort": (lambda x: torch.argsort(x, 0), (_DISTINCT.T.contiguous(),)),
    "topk": (lambda x: torch.topk(x, 5, 1), (_DISTINCT,)),
    "kthvalue": (lambda x: torch.kthvalue(x, 3, 1), (_DISTINCT,)),
    # Values and positions of one type: two scratch tensors alike.
    "topk_int64": (lambda x: torch.topk(x, 5, 1), (_DISTINCT.long(),)),
}


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", CASES)
def test_matches_eager(name, pipeline):
    function, inputs = CASES[name]
    compiled = lighthouse.compile(models.Function(function), inputs, pipeline=pipeline)
    expected = function(*inputs)
    actual = compiled(*inputs)
    if isinstance(expected, torch.Tensor):
        expected, actual = (expected,), (actual,)
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected):
        torch.testing.assert_close(torch.as_tensor(got), want, rtol=1e-5, atol=1e-5)


def test_sort_keeps_equal_keys_in_order():
    # Many ties: the values must be sorted and the positions of equal values
    # increasing (the merge sort is stable).
    x = torch.randint(0, 4, (3, 1000), generator=torch.Generator().manual_seed(0)).float()
    compiled = lighthouse.compile(models.Function(lambda x: torch.sort(x, 1)), (x,))
    values, positions = (torch.as_tensor(r) for r in compiled(x))
    torch.testing.assert_close(values, torch.sort(x, 1).values)
    torch.testing.assert_close(torch.gather(x, 1, positions), values)
    same = values[:, 1:] == values[:, :-1]
    assert bool((positions[:, 1:] > positions[:, :-1])[same].all())


class Sort(torch.nn.Module):
    def forward(self, x):
        return torch.sort(x, -1)


def test_sort_of_a_dynamic_size():
    length = torch.export.Dim("length", min=2)
    compiled = lighthouse.compile(Sort(), (_random(2, 16),), dynamic_shapes={"x": {1: length}})
    for n in (2, 3, 17, 1000):
        x = _random(2, n, seed=n)
        values, positions = compiled(x)
        expected = torch.sort(x, -1)
        torch.testing.assert_close(torch.as_tensor(values), expected.values)
        torch.testing.assert_close(torch.as_tensor(positions), expected.indices)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("rows", [[0, 6, 1], [0, -7, 1]])
def test_scatter_index_out_of_range_raises(pipeline, rows):
    function, inputs = CASES["index_put_accumulate"]
    compiled = lighthouse.compile(models.Function(function), inputs, pipeline=pipeline)
    x, _, v = inputs
    with pytest.raises(ValueError, match="scatter index out of bounds"):
        compiled(x, torch.tensor(rows + [0]), v)
    # The module stays usable.
    torch.testing.assert_close(torch.as_tensor(compiled(*inputs)), function(*inputs))


def _onnx_model(node, inputs, outputs, opset=18):
    from onnx import helper

    graph = helper.make_graph([node], "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_onnx_scatter_elements_and_top_k():
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    def tensor(name, dtype, shape):
        return helper.make_tensor_value_info(name, dtype, shape)

    scatter = _onnx_model(
        helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1, reduction="add"),
        [
            tensor("x", TensorProto.FLOAT, [3, 5]),
            tensor("i", TensorProto.INT64, [3, 2]),
            tensor("u", TensorProto.FLOAT, [3, 2]),
        ],
        [tensor("y", TensorProto.FLOAT, [3, 5])],
    )
    top_k = _onnx_model(
        helper.make_node("TopK", ["x", "k"], ["v", "p"], axis=-1, largest=0),
        [tensor("x", TensorProto.FLOAT, [4, 9]), tensor("k", TensorProto.INT64, [1])],
        [tensor("v", TensorProto.FLOAT, [4, 3]), tensor("p", TensorProto.INT64, [4, 3])],
    )
    rng = np.random.default_rng(0)
    feeds = [
        (
            scatter,
            {
                "x": rng.standard_normal((3, 5), np.float32),
                "i": np.array([[0, -1], [2, 2], [4, 0]], np.int64),
                "u": rng.standard_normal((3, 2), np.float32),
            },
        ),
        (
            top_k,
            {
                "x": rng.permutation(36).reshape(4, 9).astype(np.float32),
                "k": np.array([3], np.int64),
            },
        ),
    ]
    for model, feed in feeds:
        expected = ReferenceEvaluator(model).run(None, feed)
        actual = lighthouse.compile_onnx(model)(*feed.values())
        actual = actual if isinstance(actual, (tuple, list)) else (actual,)
        for got, want in zip(actual, expected):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
