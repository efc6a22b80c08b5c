"""GridSample as gathers of the input at its taps
(lighthouse.ingress.onnx.rules.grid_sample): every mode and padding,
checked against ONNX's reference evaluator."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx_graphs import check_compiled, model, op_types  # noqa: E402

from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402


def grid_sample(mode, padding, aligned, spatial):
    """A GridSample of a 2-channel input of `spatial` size at 3x2 (x2)
    points, some of them past the borders (the grid spans [-1.6, 1.6])."""
    rank = len(spatial)
    points = [3, 2, 2][:rank]
    proto = model(
        [
            helper.make_node(
                "GridSample",
                ["x", "grid"],
                ["y"],
                mode=mode,
                padding_mode=padding,
                align_corners=aligned,
            )
        ],
        [
            ("x", TensorProto.FLOAT, [2, 2, *spatial]),
            ("grid", TensorProto.FLOAT, [2, *points, rank]),
        ],
        [("y", TensorProto.FLOAT, [2, 2, *points])],
        opset=22,
    )
    rng = np.random.default_rng(rank)
    x = rng.standard_normal((2, 2, *spatial)).astype(np.float32)
    grid = rng.uniform(-1.6, 1.6, (2, *points, rank)).astype(np.float32)
    # Points exactly between positions: nearest rounds them half to even.
    grid.reshape(-1)[:2] = [-0.5, 0.25]
    return proto, x, grid


@pytest.mark.parametrize("aligned", [0, 1])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize(
    "mode, spatial",
    [("nearest", [3, 4]), ("linear", [3, 4]), ("cubic", [3, 4]), ("linear", [2, 3, 4])],
    ids=["nearest", "linear", "cubic", "linear-3d"],
)
def test_grid_sample_is_computed_by_gathers_at_its_taps(mode, spatial, padding, aligned):
    proto, x, grid = grid_sample(mode, padding, aligned, spatial)
    prepared = onnx_ingress.prepared(onnx_ingress.load(proto))
    assert "GridSample" not in op_types(prepared)
    (want,) = ReferenceEvaluator(proto).run(None, {"x": x, "grid": grid})
    (got,) = ReferenceEvaluator(prepared).run(None, {"x": x, "grid": grid})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["nearest", "cubic"])
def test_grid_sample_compiles(mode):
    proto, x, grid = grid_sample(mode, "reflection", 0, [3, 4])
    check_compiled(proto, x, grid)
