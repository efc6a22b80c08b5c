# ONNX models, exported by torch.onnx.export or built with onnx.helper at
# several opsets, imported as torch-onnx IR and lowered to linalg on tensors.
#
# REQUIRES: onnx, torch_mlir
# RUN: %python %s dense_softmax 13 | FileCheck %s --check-prefixes=DENSE,DENSE13
# RUN: %python %s dense_softmax 21 | FileCheck %s --check-prefixes=DENSE,DENSE21
# RUN: %python %s conv_pool 13 | FileCheck %s --check-prefixes=CONV,CONV13
# RUN: %python %s conv_pool 18 | FileCheck %s --check-prefixes=CONV,CONV18
# RUN: %python %s exported_mlp 17 | FileCheck %s --check-prefix=EXPMLP
# RUN: %python %s exported_cnn 14 | FileCheck %s --check-prefix=EXPCNN

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import models  # noqa: E402
from lighthouse import ir  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402


def exported(module, inputs, dynamic_batch, opset):
    import onnx

    return onnx.load_from_string(models.exported_onnx(module, inputs, dynamic_batch, opset))


name, opset = sys.argv[1], int(sys.argv[2])
if name == "dense_softmax":
    model = models.onnx_dense_softmax(opset)
elif name == "conv_pool":
    model = models.onnx_conv_pool(opset)
else:
    torch_models = {n: (m, i) for n, m, i, _ in models.torch_models()}
    module, inputs = torch_models[name.removeprefix("exported_")]
    model = exported(module, inputs, dynamic_batch=name == "exported_mlp", opset=opset)

with ir.Context():
    raw = onnx_ingress.import_model(model)
    print(raw.body.operations[0])
    print("// -----")
    lowered = onnx_ingress.lower_to_linalg(raw)
    print(lowered.body.operations[0])

# DENSE-LABEL: func.func @dense_softmax(%arg0: !torch.vtensor<[?,8],f32>) -> !torch.vtensor<[?,4],f32>
# DENSE13-SAME:  torch.onnx_meta.opset_version = 13 : si64
# DENSE21-SAME:  torch.onnx_meta.opset_version = 21 : si64
# DENSE:         torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<W> : tensor<8x4xf32>}
# DENSE:         torch.operator "onnx.MatMul"(%arg0, %{{.*}}) : (!torch.vtensor<[?,8],f32>, !torch.vtensor<[8,4],f32>) -> !torch.vtensor<[?,4],f32>
# DENSE:         torch.operator "onnx.Add"(
# DENSE:         torch.operator "onnx.Relu"(
# DENSE:         torch.operator "onnx.Softmax"({{.*}}) {torch.onnx.axis = -1 : si64}
# DENSE-LABEL: // -----
# DENSE-LABEL: func.func @dense_softmax(%arg0: tensor<?x8xf32>) -> tensor<?x4xf32>
# DENSE:         tensor.dim %arg0, %c0 : tensor<?x8xf32>
# DENSE:         linalg.matmul ins(%arg0, %{{.*}} : tensor<?x8xf32>, tensor<8x4xf32>)
# DENSE:         arith.addf
# DENSE:         iterator_types = ["parallel", "reduction"]
# DENSE:         math.exp
# DENSE:         arith.divf
# DENSE-NOT:     !torch
# DENSE:         return %{{.*}} : tensor<?x4xf32>

# CONV-LABEL: func.func @conv_pool(%arg0: !torch.vtensor<[1,2,8,8],f32>) -> !torch.vtensor<[1,64],f32>
# CONV13-SAME:  torch.onnx_meta.opset_version = 13 : si64
# CONV18-SAME:  torch.onnx_meta.opset_version = 18 : si64
# CONV:         torch.operator "onnx.Conv"({{.*}}) {torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]}
# CONV:         torch.operator "onnx.Sigmoid"(
# CONV:         torch.operator "onnx.MaxPool"({{.*}}) {torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64]}
# CONV:         torch.operator "onnx.Reshape"(
# CONV-LABEL: // -----
# CONV-LABEL: func.func @conv_pool(%arg0: tensor<1x2x8x8xf32>) -> tensor<1x64xf32>
# CONV:         linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x10x10xf32>, tensor<4x2x3x3xf32>)
# CONV:         math.exp
# CONV:         linalg.pooling_nchw_max {{.*}} strides = dense<2>
# CONV:         tensor.collapse_shape
# CONV-NOT:     !torch

# EXPMLP-LABEL: func.func @main_graph(%arg0: !torch.vtensor<[?,16],f32>) -> !torch.vtensor<[?,4],f32>
# EXPMLP-SAME:    torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "pytorch"
# EXPMLP:         torch.operator "onnx.Gemm"({{.*}}) {{{.*}}torch.onnx.transB = 1 : si64}
# EXPMLP:         torch.operator "onnx.Relu"(
# EXPMLP:         torch.operator "onnx.Gemm"(
# EXPMLP-LABEL: // -----
# EXPMLP-LABEL: func.func @main_graph(%arg0: tensor<?x16xf32>) -> tensor<?x4xf32>
# EXPMLP:         linalg.matmul ins(%arg0, %{{.*}} : tensor<?x16xf32>, tensor<16x32xf32>)
# EXPMLP:         linalg.matmul
# EXPMLP-NOT:     !torch

# EXPCNN-LABEL: func.func @main_graph(%arg0: !torch.vtensor<[1,3,16,16],f32>) -> !torch.vtensor<[1,10],f32>
# EXPCNN:         torch.operator "onnx.Conv"(
# EXPCNN:         torch.operator "onnx.Conv"(
# EXPCNN:         torch.operator "onnx.Add"(
# EXPCNN:         torch.operator "onnx.MaxPool"(
# EXPCNN:         torch.operator "onnx.AveragePool"(
# EXPCNN:         torch.operator "onnx.Gemm"(
# EXPCNN-LABEL: // -----
# EXPCNN-LABEL: func.func @main_graph(%arg0: tensor<1x3x16x16xf32>) -> tensor<1x10xf32>
# EXPCNN:         linalg.conv_2d_nchw_fchw
# EXPCNN:         linalg.conv_2d_nchw_fchw
# EXPCNN:         linalg.pooling_nchw_max
# EXPCNN:         linalg.pooling_nchw_sum
# EXPCNN:         linalg.matmul
# EXPCNN-NOT:     !torch
