# The test models from PyTorch, imported as torch IR and lowered to linalg on
# tensors in a lighthouse context.
#
# REQUIRES: torch, torch_mlir
# RUN: %python %s mlp | FileCheck %s --check-prefix=MLP
# RUN: %python %s mlp_dynamic_batch | FileCheck %s --check-prefix=DYN
# RUN: %python %s cnn | FileCheck %s --check-prefix=CNN
# RUN: %python %s transformer_block | FileCheck %s --check-prefix=BLOCK

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import models  # noqa: E402
from lighthouse import ir  # noqa: E402
from lighthouse.ingress import torch as torch_ingress  # noqa: E402

name = sys.argv[1]
_, module, inputs, dynamic_shapes = next(m for m in models.torch_models() if m[0] == name)
with ir.Context():
    raw = torch_ingress.import_model(module, inputs, dynamic_shapes=dynamic_shapes)
    print(raw.body.operations[0])
    print("// -----")
    lowered = torch_ingress.lower_to_linalg(raw)
    print(lowered.body.operations[0])

# The weights are transposed once, at import.
# MLP-LABEL: func.func @main(%arg0: !torch.vtensor<[2,16],f32>) -> !torch.vtensor<[2,4],f32>
# MLP:         torch.vtensor.literal(dense_resource<{{.*}}> : tensor<16x32xf32>)
# MLP:         torch.aten.mm %arg0, %{{.*}} : !torch.vtensor<[2,16],f32>, !torch.vtensor<[16,32],f32> -> !torch.vtensor<[2,32],f32>
# MLP:         torch.aten.relu %
# MLP:         torch.aten.mm %
# MLP:         return %{{.*}} : !torch.vtensor<[2,4],f32>
# MLP-LABEL: // -----
# MLP-LABEL: func.func @main(%arg0: tensor<2x16xf32>) -> tensor<2x4xf32>
# MLP-NOT:     linalg.transpose
# MLP:         linalg.matmul ins(%arg0, %{{.*}} : tensor<2x16xf32>, tensor<16x32xf32>)
# MLP:         arith.cmpf ugt
# MLP:         arith.select
# MLP:         linalg.matmul
# MLP-NOT:     !torch
# MLP:         return %{{.*}} : tensor<2x4xf32>

# The batch stays dynamic through import and lowering.
# DYN-LABEL: func.func @main(%arg0: !torch.vtensor<[?,16],f32>) -> !torch.vtensor<[?,4],f32>
# DYN:         torch.aten.mm %arg0, %{{.*}} : !torch.vtensor<[?,16],f32>, !torch.vtensor<[16,32],f32> -> !torch.vtensor<[?,32],f32>
# DYN-LABEL: // -----
# DYN-LABEL: func.func @main(%arg0: tensor<?x16xf32>) -> tensor<?x4xf32>
# DYN:         %[[BATCH:.*]] = tensor.dim %arg0, %c0 : tensor<?x16xf32>
# DYN:         tensor.empty(%[[BATCH]]) : tensor<?x32xf32>
# DYN:         linalg.matmul ins(%arg0, %{{.*}} : tensor<?x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<?x32xf32>)
# DYN:         tensor.empty(%[[BATCH]]) : tensor<?x4xf32>

# The batch norm after each convolution is folded into its filters and bias.
# CNN-LABEL: func.func @main(%arg0: !torch.vtensor<[1,3,16,16],f32>) -> !torch.vtensor<[1,10],f32>
# CNN:         torch.aten.convolution %arg0
# CNN-NOT:     torch.aten.sqrt
# CNN:         torch.aten.relu %
# CNN:         torch.aten.convolution %
# CNN:         torch.aten.add.Tensor %
# CNN:         torch.aten.max_pool2d_with_indices %
# CNN:         torch.aten.avg_pool2d %
# CNN:         torch.aten.mm %
# CNN-LABEL: // -----
# CNN-LABEL: func.func @main(%arg0: tensor<1x3x16x16xf32>) -> tensor<1x10xf32>
# CNN:         tensor.pad
# CNN:         linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x3x18x18xf32>, tensor<8x3x3x3xf32>)
# CNN-NOT:     math.sqrt
# CNN:         linalg.conv_2d_nchw_fchw
# CNN:         linalg.pooling_nchw_max
# CNN:         linalg.pooling_nchw_sum
# CNN:         linalg.matmul
# CNN-NOT:     !torch

# BLOCK-LABEL: func.func @main(%arg0: !torch.vtensor<[2,8,32],f32>) -> !torch.vtensor<[2,8,32],f32>
# BLOCK:         torch.aten.var_mean.correction %
# BLOCK:         torch.aten.bmm %
# BLOCK:         torch.aten._softmax %
# BLOCK:         torch.aten.bmm %
# GELU, decomposed by lighthouse (torch-mlir's tanh form is imprecise).
# BLOCK:         torch.aten.erf %
# BLOCK-LABEL: // -----
# BLOCK-LABEL: func.func @main(%arg0: tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
# BLOCK:         math.rsqrt
# BLOCK:         linalg.batch_matmul
# BLOCK:         math.exp
# BLOCK:         linalg.batch_matmul
# BLOCK:         math.erf
# BLOCK-NOT:     !torch
