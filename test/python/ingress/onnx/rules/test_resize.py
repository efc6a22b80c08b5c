"""Resize (lighthouse.ingress.onnx.rules.resize): of some axes, in its plain
form of every axis; as lighthouse's function where torch-mlir cannot
convert it, checked against ONNX's reference evaluator."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx_graphs import check_compiled, model, op_types  # noqa: E402

from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402


def resize_model(operands, attributes, output_shape, input_shape=(1, 1, 2, 4)):
    """A Resize (nearest, unless `attributes` say) of an image by constant
    `operands` (roi, scales, sizes)."""
    operands = {"roi": None, "scales": None, "sizes": None, **operands}
    initializers = [
        numpy_helper.from_array(np.array(value, np.int64 if name == "sizes" else np.float32), name)
        for name, value in operands.items()
        if value is not None
    ]
    names = [name if operands.get(name) is not None else "" for name in ("roi", "scales", "sizes")]
    while not names[-1]:
        names.pop()
    return model(
        [helper.make_node("Resize", ["x", *names], ["y"], **{"mode": "nearest", **attributes})],
        [("x", TensorProto.FLOAT, list(input_shape))],
        [("y", TensorProto.FLOAT, output_shape)],
        opset=19,
        initializers=initializers,
    )


@pytest.mark.parametrize(
    "operands, attributes, output_shape",
    [
        ({"scales": [2.0, 3.0]}, {"axes": [2, 3]}, [1, 1, 4, 12]),
        ({"roi": None, "scales": None, "sizes": [3, 6]}, {"axes": [2, 3]}, [1, 1, 3, 6]),
        # One scale for both axes, 2 (the smaller): 4x8 rather than 5x8.
        (
            {"sizes": [5, 8]},
            {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"},
            [1, 1, 4, 8],
        ),
    ],
    ids=["scales-of-axes", "sizes-of-axes", "not-larger"],
)
def test_a_resize_of_some_axes_becomes_one_of_every_axis(operands, attributes, output_shape):
    proto = resize_model(operands, attributes, output_shape)
    plain = next(
        n
        for n in onnx_ingress.prepared(onnx_ingress.load(proto)).graph.node
        if n.op_type == "Resize"
    )
    assert {a.name for a in plain.attribute} == {"mode"}
    x = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)
    check_compiled(proto, x)


def test_a_kept_aspect_ratio_the_plain_form_would_not_keep_is_lighthouses_function():
    """Sizes 1x3 of a 2x4 image, not smaller: the scale 0.75 gives 2x3,
    which stretched would interpolate the 2 rows by 1, not by 0.75. The
    Resize stays as it is, and torch-mlir cannot convert it: lighthouse's
    function interpolates by 0.75."""
    proto = resize_model(
        {"roi": None, "scales": None, "sizes": [1, 3]},
        {"axes": [2, 3], "keep_aspect_ratio_policy": "not_smaller"},
        [1, 1, 2, 3],
    )
    assert "Resize" in op_types(onnx_ingress.prepared(onnx_ingress.load(proto)))
    check_compiled(proto, np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4))


RESIZES = [
    {"mode": "linear", "antialias": 1},
    {"mode": "cubic", "antialias": 1, "cubic_coeff_a": -0.5},
    {"mode": "cubic", "exclude_outside": 1, "cubic_coeff_a": -0.5},
    {"mode": "cubic", "coordinate_transformation_mode": "pytorch_half_pixel"},
    {"mode": "linear", "coordinate_transformation_mode": "half_pixel_symmetric"},
    {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize"},
    {"mode": "nearest", "coordinate_transformation_mode": "align_corners", "nearest_mode": "floor"},
    {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "ceil"},
    {"mode": "nearest", "nearest_mode": "round_prefer_ceil"},
]


@pytest.mark.parametrize("attributes", RESIZES, ids=lambda a: "-".join(map(str, a.values())))
@pytest.mark.parametrize(
    "operands, output_shape",
    [
        ({"scales": [1.0, 1.0, 0.6, 1.7]}, [1, 2, 3, 8]),
        ({"sizes": [1, 2, 7, 2]}, [1, 2, 7, 2]),
        ({"roi": [0, 0, 0.2, 0.1, 1, 1, 0.9, 1.3], "sizes": [1, 2, 4, 6]}, [1, 2, 4, 6]),
    ],
    ids=["scales", "sizes", "roi"],
)
def test_lighthouses_resize_function_matches_onnxs_reference(attributes, operands, output_shape):
    """Every mode and coordinate transformation, down and up, along the last
    two axes (one MatMul or Gather each) and on a 5x5 input."""
    from lighthouse.ingress.onnx import fold as _onnx_fold

    if attributes.get("coordinate_transformation_mode") == "tf_crop_and_resize":
        operands = {"roi": [0, 0, 0, 0, 1, 1, 1, 1], **operands}  # It needs one.
    if "roi" in operands:
        attributes = {**attributes, "extrapolation_value": -3.0}
    proto = resize_model(operands, attributes, output_shape, input_shape=(1, 2, 5, 5))
    expanded = _onnx_fold.expand_functions(onnx_ingress.load(proto), {"Resize"})
    assert "Resize" not in op_types(expanded)
    x = np.random.default_rng(8).standard_normal((1, 2, 5, 5)).astype(np.float32)
    (want,) = ReferenceEvaluator(proto).run(None, {"x": x})
    (got,) = ReferenceEvaluator(expanded).run(None, {"x": x})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_resize_torch_mlir_does_not_convert_is_compiled_as_lighthouses_function():
    proto = resize_model(
        {"scales": [1.0, 1.0, 0.5, 0.5]}, {"mode": "linear", "antialias": 1}, [1, 1, 1, 2]
    )
    check_compiled(proto, np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4))
