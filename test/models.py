"""Small real models shared by lighthouse's tests: PyTorch modules and ONNX
graphs, with deterministic weights."""

import io

import numpy as np

try:
    import torch
except ImportError:  # The ONNX helpers below do not need torch.
    torch = None


def seeded(module, seed=0):
    """Re-initializes `module`'s parameters deterministically, in eval mode."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.2)
        for name, buffer in module.named_buffers():
            if name.endswith("running_var"):
                buffer.copy_(torch.rand(buffer.shape, generator=generator) + 0.5)
            elif name.endswith("running_mean"):
                buffer.copy_(torch.randn(buffer.shape, generator=generator) * 0.1)
    return module.eval()


if torch is not None:

    class MLP(torch.nn.Module):
        """Two linear layers with a ReLU."""

        def __init__(self, features=16, hidden=32, classes=4):
            super().__init__()
            self.hidden = torch.nn.Linear(features, hidden)
            self.out = torch.nn.Linear(hidden, classes)

        def forward(self, x):
            return self.out(torch.relu(self.hidden(x)))

    class SmallCNN(torch.nn.Module):
        """Convolutions with batch norm, a residual add, max and average pooling."""

        def __init__(self, channels=8, classes=10):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(3, channels, 3, padding=1)
            self.bn1 = torch.nn.BatchNorm2d(channels)
            self.conv2 = torch.nn.Conv2d(channels, channels, 3, padding=1)
            self.bn2 = torch.nn.BatchNorm2d(channels)
            self.pool = torch.nn.MaxPool2d(2)
            self.head = torch.nn.Linear(channels * 4 * 4, classes)

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            y = torch.relu(self.bn2(self.conv2(y)) + y)
            y = torch.nn.functional.adaptive_avg_pool2d(self.pool(y), 4)
            return self.head(torch.flatten(y, 1))

    class TransformerBlock(torch.nn.Module):
        """Pre-norm self-attention and a GELU MLP, with residual adds."""

        def __init__(self, dim=32, heads=4):
            super().__init__()
            self.norm1 = torch.nn.LayerNorm(dim)
            self.attention = torch.nn.MultiheadAttention(dim, heads, batch_first=True)
            self.norm2 = torch.nn.LayerNorm(dim)
            self.mlp = torch.nn.Sequential(
                torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(), torch.nn.Linear(4 * dim, dim))

        def forward(self, x):
            y = self.norm1(x)
            attended, _ = self.attention(y, y, y, need_weights=False)
            x = x + attended
            return x + self.mlp(self.norm2(x))

    class BasicBlock(torch.nn.Module):
        """A ResNet basic block: two 3x3 convolutions with batch norm, and a
        1x1 strided projection of the input when the shape changes."""

        def __init__(self, inputs, outputs, stride=1):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
            self.bn1 = torch.nn.BatchNorm2d(outputs)
            self.conv2 = torch.nn.Conv2d(outputs, outputs, 3, 1, 1, bias=False)
            self.bn2 = torch.nn.BatchNorm2d(outputs)
            self.shortcut = torch.nn.Identity()
            if stride != 1 or inputs != outputs:
                self.shortcut = torch.nn.Sequential(
                    torch.nn.Conv2d(inputs, outputs, 1, stride, bias=False),
                    torch.nn.BatchNorm2d(outputs))

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(self.bn2(self.conv2(y)) + self.shortcut(x))

    class SmallResNet(torch.nn.Module):
        """A ResNet-18 layout at a small width: stem, max pooling, a block at
        each of two widths, global average pooling and a classifier."""

        def __init__(self, width=16, classes=10):
            super().__init__()
            self.stem = torch.nn.Sequential(
                torch.nn.Conv2d(3, width, 3, 1, 1, bias=False), torch.nn.BatchNorm2d(width),
                torch.nn.ReLU(), torch.nn.MaxPool2d(3, 2, 1))
            self.blocks = torch.nn.Sequential(BasicBlock(width, width),
                                              BasicBlock(width, 2 * width, stride=2))
            self.head = torch.nn.Linear(2 * width, classes)

        def forward(self, x):
            y = self.blocks(self.stem(x))
            return self.head(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(y, 1), 1))

    def larger_torch_models():
        """(name, module, example inputs, dynamic shapes) of models larger than
        the test models, in layouts real networks use."""
        generator = torch.Generator().manual_seed(2)
        encoder = torch.nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, dropout=0.0,
                                                   batch_first=True)
        return [
            ("resnet", seeded(SmallResNet()), (torch.randn(2, 3, 32, 32, generator=generator),),
             None),
            ("encoder_layer", seeded(encoder), (torch.randn(2, 16, 64, generator=generator),),
             None),
        ]

    def torch_models():
        """(name, module, example inputs, dynamic shapes) of each test model."""
        generator = torch.Generator().manual_seed(1)
        return [
            ("mlp", seeded(MLP()), (torch.randn(2, 16, generator=generator),), None),
            ("mlp_dynamic_batch", seeded(MLP()), (torch.randn(3, 16, generator=generator),),
             {"x": {0: torch.export.Dim("batch", min=1, max=1024)}}),
            ("cnn", seeded(SmallCNN()), (torch.randn(1, 3, 16, 16, generator=generator),), None),
            ("transformer_block", seeded(TransformerBlock()),
             (torch.randn(2, 8, 32, generator=generator),), None),
        ]

    def exported_onnx(module, example_inputs, dynamic_batch=False, opset=17):
        """Serializes `module` to ONNX with torch.onnx.export."""
        import warnings

        buffer = io.BytesIO()
        names = [f"input{i}" for i in range(len(example_inputs))]
        with warnings.catch_warnings():
            # The TorchScript exporter needs no onnxscript; it warns that it is legacy.
            warnings.simplefilter("ignore")
            torch.onnx.export(
                module, tuple(example_inputs), buffer, dynamo=False, opset_version=opset,
                input_names=names, output_names=["output"],
                dynamic_axes={n: {0: "batch"} for n in names} if dynamic_batch else None)
        return buffer.getvalue()


def onnx_dense_softmax(opset):
    """An ONNX graph built with onnx.helper: softmax(relu(x @ W + B)), dynamic batch."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(opset)
    weights = numpy_helper.from_array(rng.standard_normal((8, 4)).astype(np.float32), "W")
    bias = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "B")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["product"]),
         helper.make_node("Add", ["product", "B"], ["biased"]),
         helper.make_node("Relu", ["biased"], ["activated"]),
         helper.make_node("Softmax", ["activated"], ["y"], axis=-1)],
        "dense_softmax",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
        [weights, bias])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def onnx_conv_pool(opset):
    """An ONNX graph built with onnx.helper: Conv, Sigmoid, MaxPool, Reshape."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(opset + 100)
    weights = numpy_helper.from_array(rng.standard_normal((4, 2, 3, 3)).astype(np.float32), "W")
    shape = numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "shape")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "W"], ["conv"], pads=[1, 1, 1, 1]),
         helper.make_node("Sigmoid", ["conv"], ["act"]),
         helper.make_node("MaxPool", ["act"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node("Reshape", ["pooled", "shape"], ["y"])],
        "conv_pool",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])],
        [weights, shape])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def matmul_mlir(m, n, k):
    """linalg-on-tensors IR of @main(A: MxK, B: KxN) -> A @ B, in f32; M is
    dynamic when `m` is None."""
    rows = "?" if m is None else m
    empty = f"tensor.empty() : tensor<{m}x{n}xf32>" if m is not None else \
        f"tensor.empty(%rows) : tensor<?x{n}xf32>"
    return f"""
func.func @main(%a: tensor<{rows}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{rows}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %a, %c0 : tensor<{rows}x{k}xf32>
  %init = {empty}
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<{rows}x{n}xf32>) -> tensor<{rows}x{n}xf32>
  %c = linalg.matmul ins(%a, %b : tensor<{rows}x{k}xf32>, tensor<{k}x{n}xf32>)
                     outs(%acc : tensor<{rows}x{n}xf32>) -> tensor<{rows}x{n}xf32>
  return %c : tensor<{rows}x{n}xf32>
}}
"""


def matmul_bias_relu_mlir(m, n, k):
    """@main(A: MxK, B: KxN, bias: N) -> relu(A @ B + bias); M dynamic when None."""
    rows = "?" if m is None else m
    empty = ("%rows = tensor.dim %a, %c0 : tensor<?x{k}xf32>\n  "
             "%e = tensor.empty(%rows)" if m is None else "%e = tensor.empty()").format(k=k)
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
