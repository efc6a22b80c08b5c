"""Small real models shared by lighthouse's tests: PyTorch modules and ONNX
graphs, with deterministic weights. The PyTorch modules are defined in
lighthouse.suite.corpora.models, whose `models` corpus runs them too."""

import numpy as np

from lighthouse.suite.case import export_onnx
from lighthouse.suite.corpora.models import (  # noqa: F401 (the tests' models)
    MLP,
    BasicBlock,
    SmallCNN,
    SmallResNet,
    TransformerBlock,
    seeded,
)

try:
    import torch
except ImportError:  # The ONNX helpers below do not need torch.
    torch = None

if torch is not None:

    class Function(torch.nn.Module):
        """A module computing a function of its inputs, for tests of one op."""

        def __init__(self, function):
            super().__init__()
            self.function = function

        def forward(self, *args):
            return self.function(*args)

    def larger_torch_models():
        """(name, module, example inputs, dynamic shapes) of models larger than
        the test models, in layouts real networks use."""
        generator = torch.Generator().manual_seed(2)
        encoder = torch.nn.TransformerEncoderLayer(
            64, 4, dim_feedforward=128, dropout=0.0, batch_first=True
        )
        return [
            (
                "resnet",
                seeded(SmallResNet()),
                (torch.randn(2, 3, 32, 32, generator=generator),),
                None,
            ),
            (
                "encoder_layer",
                seeded(encoder),
                (torch.randn(2, 16, 64, generator=generator),),
                None,
            ),
        ]

    def torch_models():
        """(name, module, example inputs, dynamic shapes) of each test model."""
        generator = torch.Generator().manual_seed(1)
        return [
            ("mlp", seeded(MLP()), (torch.randn(2, 16, generator=generator),), None),
            (
                "mlp_dynamic_batch",
                seeded(MLP()),
                (torch.randn(3, 16, generator=generator),),
                {"x": {0: torch.export.Dim("batch", min=1, max=1024)}},
            ),
            ("cnn", seeded(SmallCNN()), (torch.randn(1, 3, 16, 16, generator=generator),), None),
            (
                "transformer_block",
                seeded(TransformerBlock()),
                (torch.randn(2, 8, 32, generator=generator),),
                None,
            ),
        ]

    def exported_onnx(module, example_inputs, dynamic_batch=False, opset=17):
        """Serializes `module` to ONNX with torch.onnx.export."""
        return export_onnx(
            module,
            example_inputs,
            opset=opset,
            dynamic_batch=dynamic_batch,
            output_names=["output"],
        )


def onnx_dense_softmax(opset):
    """An ONNX graph built with onnx.helper: softmax(relu(x @ W + B)), dynamic batch."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(opset)
    weights = numpy_helper.from_array(rng.standard_normal((8, 4)).astype(np.float32), "W")
    bias = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "B")
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "W"], ["product"]),
            helper.make_node("Add", ["product", "B"], ["biased"]),
            helper.make_node("Relu", ["biased"], ["activated"]),
            helper.make_node("Softmax", ["activated"], ["y"], axis=-1),
        ],
        "dense_softmax",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
        [weights, bias],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def onnx_conv_pool(opset):
    """An ONNX graph built with onnx.helper: Conv, Sigmoid, MaxPool, Reshape."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(opset + 100)
    weights = numpy_helper.from_array(rng.standard_normal((4, 2, 3, 3)).astype(np.float32), "W")
    shape = numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "shape")
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "W"], ["conv"], pads=[1, 1, 1, 1]),
            helper.make_node("Sigmoid", ["conv"], ["act"]),
            helper.make_node("MaxPool", ["act"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]),
            helper.make_node("Reshape", ["pooled", "shape"], ["y"]),
        ],
        "conv_pool",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])],
        [weights, shape],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def matmul_mlir(m, n, k, generic=False):
    """linalg-on-tensors IR of @main(A: MxK, B: KxN) -> A @ B, in f32; M is
    dynamic when `m` is None; a linalg.generic instead of a linalg.matmul
    with `generic`."""
    rows = "?" if m is None else m
    empty = (
        f"tensor.empty() : tensor<{m}x{n}xf32>"
        if m is not None
        else f"tensor.empty(%rows) : tensor<?x{n}xf32>"
    )
    types = f"tensor<{rows}x{k}xf32>, tensor<{k}x{n}xf32>"
    result = f"tensor<{rows}x{n}xf32>"
    if generic:
        matmul = f"""linalg.generic {{
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                       affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %b : {types}) outs(%acc : {result}) {{
  ^bb0(%x: f32, %y: f32, %s: f32):
    %p = arith.mulf %x, %y : f32
    %t = arith.addf %s, %p : f32
    linalg.yield %t : f32
  }} -> {result}"""
    else:
        matmul = f"linalg.matmul ins(%a, %b : {types}) outs(%acc : {result}) -> {result}"
    return f"""
func.func @main(%a: tensor<{rows}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> {result} {{
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %a, %c0 : tensor<{rows}x{k}xf32>
  %init = {empty}
  %acc = linalg.fill ins(%zero : f32) outs(%init : {result}) -> {result}
  %c = {matmul}
  return %c : {result}
}}
"""


def matmul_bias_relu_mlir(m, n, k):
    """@main(A: MxK, B: KxN, bias: N) -> relu(A @ B + bias); M dynamic when None."""
    rows = "?" if m is None else m
    empty = (
        "%rows = tensor.dim %a, %c0 : tensor<?x{k}xf32>\n  %e = tensor.empty(%rows)"
        if m is None
        else "%e = tensor.empty()"
    ).format(k=k)
    return f"""
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%a: tensor<{rows}x{k}xf32>, %b: tensor<{k}x{n}xf32>, %bias: tensor<{n}xf32>)
    -> tensor<{rows}x{n}xf32> {{
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  {empty} : tensor<{rows}x{n}xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<{rows}x{n}xf32>) -> tensor<{rows}x{n}xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<{rows}x{k}xf32>, tensor<{k}x{n}xf32>)
      outs(%c : tensor<{rows}x{n}xf32>) -> tensor<{rows}x{n}xf32>
  %biased = linalg.generic {{indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}}
      ins(%mm, %bias : tensor<{rows}x{n}xf32>, tensor<{n}xf32>) outs(%e : tensor<{rows}x{n}xf32>) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }} -> tensor<{rows}x{n}xf32>
  %relu = linalg.generic {{indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}}
      ins(%biased : tensor<{rows}x{n}xf32>) outs(%e : tensor<{rows}x{n}xf32>) {{
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }} -> tensor<{rows}x{n}xf32>
  return %relu : tensor<{rows}x{n}xf32>
}}
"""
