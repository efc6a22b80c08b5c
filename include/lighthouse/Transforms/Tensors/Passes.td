//===- Passes.td - lighthouse's passes on linalg on tensors *- tablegen -*-===//
//
// lighthouse's rewrites of linalg on tensors, before bufferization: what
// torch-mlir leaves, and the ops' forms that compile to faster code.
// mlir-tblgen generates their base classes and one registration function,
// `registerLighthouseTensorTransformsPasses`. Each description shows a
// small example; each pass's lit test (test/Transforms/Tensors) has more.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_TRANSFORMS_TENSORS_PASSES
#define LIGHTHOUSE_TRANSFORMS_TENSORS_PASSES

include "mlir/Pass/PassBase.td"

def ConvolutionsByPhase : Pass<"lighthouse-convolutions-by-phase"> {
  let summary = "Compute transposed convolutions without the zeros their "
    "lowering spreads the input with";
  let description = [{
    A transposed convolution of stride s arrives as a convolution of stride
    1 (`linalg.conv_{1,2,3}d_nc..._fc...`, static shapes) over its input
    inserted into zeros with stride s (`tensor.insert_slice` strided along
    the spatial dimensions): all but one in s^d multiply-adds are by zeros.
    The outputs of one phase (positions a, a + s, ... along each dimension)
    read only the kernel taps congruent to (offset - a) mod s, at consecutive
    input elements; the convolution becomes one convolution of stride 1 per
    phase over the input itself with those taps (a strided slice of the
    filter), each inserted into the output with stride s. A phase that reads
    no input keeps the output's initial value (the bias).

    ```mlir
    // before: ConvTranspose2d(4, 3, 4, stride=2, padding=1) on 8x8
    %spread = tensor.insert_slice %x into %zeros[0, 0, 2, 2] [1, 4, 8, 8] [1, 1, 2, 2]
        : tensor<1x4x8x8xf32> into tensor<1x4x19x19xf32>
    %y = linalg.conv_2d_nchw_fchw ins(%spread, %w : tensor<1x4x19x19xf32>, tensor<3x4x4x4xf32>)
        outs(%bias : tensor<1x3x16x16xf32>) -> tensor<1x3x16x16xf32>
    // after: 4 phases, e.g. the first
    %in = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 0, 0] ... -> tensor<1x4x9x9xf32>
    %taps = tensor.extract_slice %w[0, 0, 0, 0] [3, 4, 2, 2] [1, 1, 2, 2]
    %b0 = tensor.extract_slice %bias[0, 0, 0, 0] [1, 3, 8, 8] [1, 1, 2, 2]
    %y0 = linalg.conv_2d_nchw_fchw ins(%in, %taps : ...) outs(%b0 : tensor<1x3x8x8xf32>)
    %r0 = tensor.insert_slice %y0 into %bias[0, 0, 0, 0] [1, 3, 8, 8] [1, 1, 2, 2]
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"
  ];
}

def DefineWideShifts : Pass<"lighthouse-define-wide-shifts"> {
  let summary = "Give shifts by the bit width or more the results torch, "
    "numpy and ONNX define";
  let description = [{
    `arith.shli`, `arith.shrui` and `arith.shrsi` by an amount of the bit
    width or more, or negative, are poison; torch's and ONNX's shifts, which
    torch-mlir lowers to them, define the result: 0 for left and logical
    right shifts, the sign for arithmetic right shifts. Each shift whose
    amount is not a constant in range is followed by a select of that result
    when the amount, read as unsigned, is out of range.

    ```mlir
    // before
    %r = arith.shli %x, %n : i32
    // after
    %r = arith.shli %x, %n : i32
    %in = arith.cmpi ult, %n, %c32 : i32
    %d = arith.select %in, %r, %c0 : i32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def DropDeadResults : Pass<"lighthouse-drop-dead-results"> {
  let summary = "Remove unused results of linalg generics and what computes "
    "them";
  let description = [{
    Removes a result of a `linalg.generic` on tensors that nothing uses,
    with its init and the payload ops that compute only it, when nothing
    else in the payload needs them. Upstream's canonicalization keeps such a
    result when the payload reads its init, as the position of a maximum
    does: a softmax's row maximum, imported as `max.dim`, also computes an
    unused index per row, and the op is not a plain reduction.

    ```mlir
    // before
    %r:2 = linalg.generic {indexing_maps = [#id, #row, #row],
                           iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<128x1000xf32>)
        outs(%max, %index : tensor<128xf32>, tensor<128xi64>) {
    ^bb0(%in: f32, %m: f32, %i: i64):
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %larger = arith.maximumf %in, %m : f32
      %greater = arith.cmpf ogt, %in, %m : f32
      %at = arith.select %greater, %j64, %i : i64
      linalg.yield %larger, %at : f32, i64
    } -> (tensor<128xf32>, tensor<128xi64>)
    // after, when %r#1 is unused
    %r = linalg.generic {indexing_maps = [#id, #row],
                         iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<128x1000xf32>) outs(%max : tensor<128xf32>) {
    ^bb0(%in: f32, %m: f32):
      %larger = arith.maximumf %in, %m : f32
      linalg.yield %larger : f32
    } -> tensor<128xf32>
    ```
  }];
}

def DropUnitDims : Pass<"lighthouse-drop-unit-dims"> {
  let summary = "Remove the unit dimensions of generics that index through "
    "a constant";
  let description = [{
    Imported models keep reduced dimensions as size 1: a softmax's row sums
    are written and read through `(d0, d1) -> (d0, 0)`, a batch norm's
    per-channel constants through `(n, c, h, w) -> (c, 0, 0)`. Such maps are
    not projected permutations, and the code generator neither vectorizes
    these ops nor takes them as reductions. The pass removes the unit
    dimensions of each `linalg.generic` on tensors with a constant in an
    indexing map (upstream's unit-extent folding, limited to those ops),
    reshaping its operands.

    ```mlir
    // before
    %sums = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                             affine_map<(d0, d1) -> (d0, 0)>],
                            iterator_types = ["parallel", "reduction"]}
        ins(%e : tensor<128x1000xf32>) outs(%zeros : tensor<128x1xf32>) {...}
    // after
    %flat = tensor.collapse_shape %zeros [[0, 1]]
        : tensor<128x1xf32> into tensor<128xf32>
    %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
        ins(%e : tensor<128x1000xf32>) outs(%flat : tensor<128xf32>) {...}
    %sums = tensor.expand_shape %s [[0, 1]] output_shape [128, 1]
        : tensor<128xf32> into tensor<128x1xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def FlattenBatchMatmuls
    : Pass<"lighthouse-flatten-batch-matmuls", "::mlir::ModuleOp"> {
  let summary = "Rewrite batch matmuls with a weight shared across the batch "
    "as one matmul";
  let description = [{
    `x @ W` with a 3-D `x` and a 2-D weight reaches linalg as a
    `linalg.batch_matmul` whose right operand is `W` broadcast over the batch
    (a `linalg.broadcast` or an equivalent generic). The pass rewrites it
    into one `linalg.matmul` of the stacked rows: no copy of `W` per batch
    element, and one taller matmul.

    ```mlir
    // before
    %bw = linalg.broadcast ins(%w : tensor<32x96xf32>)
                           outs(%e : tensor<8x32x96xf32>) dimensions = [0]
    %r = linalg.batch_matmul ins(%x, %bw : tensor<8x2x32xf32>, tensor<8x32x96xf32>)
                             outs(%init : tensor<8x2x96xf32>) -> tensor<8x2x96xf32>
    // after
    %rows = tensor.collapse_shape %x [[0, 1], [2]]
        : tensor<8x2x32xf32> into tensor<16x32xf32>
    %rows_init = tensor.collapse_shape %init [[0, 1], [2]]
        : tensor<8x2x96xf32> into tensor<16x96xf32>
    %mm = linalg.matmul ins(%rows, %w : tensor<16x32xf32>, tensor<32x96xf32>)
                        outs(%rows_init : tensor<16x96xf32>) -> tensor<16x96xf32>
    %r = tensor.expand_shape %mm [[0, 1], [2]] output_shape [8, 2, 96]
        : tensor<16x96xf32> into tensor<8x2x96xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def FoldConstantTransposes
    : Pass<"lighthouse-fold-constant-transposes", "::mlir::ModuleOp"> {
  let summary = "Transpose constant weights at compile time";
  let description = [{
    Replaces each `linalg.transpose` of a `dense` or `dense_resource`
    constant (a weight, as importers produce it) with the transposed
    constant, so that the weight is transposed once, when compiling, rather
    than on every call.

    ```mlir
    // before
    %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %init = tensor.empty() : tensor<3x2xf32>
    %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%init : tensor<3x2xf32>)
                          permutation = [1, 0]
    // after
    %t = arith.constant dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf32>
    ```
  }];
}

def FuseElementwise : Pass<"lighthouse-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "Merge chains of elementwise generics into one, and into "
    "reductions";
  let description = [{
    Merges each elementwise `linalg.generic` on tensors into the elementwise
    generic or the reduction that is its only user and reads it element for
    element, so that a chain (an inference batch norm and its ReLU, a bias
    and an activation, the squares a variance sums) reads and writes the
    activation once instead of once per op. A conversion (`arith.extf`, ...)
    with several users is copied into each: converting again costs less than
    writing and reading the converted tensor. Other results with several
    users, one read through a broadcast, and ops that the default pipeline
    leaves to loops (`i1`, `math.fpowi`) next to ops it vectorizes are left
    apart.

    ```mlir
    // before
    %biased = linalg.generic {indexing_maps = [#id, #row, #id], ...}
        ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%v: f32, %c: f32, %o: f32):
      %s = arith.addf %v, %c : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    %relu = linalg.generic {indexing_maps = [#id, #id], ...}
        ins(%biased : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %r = arith.maximumf %v, %zero : f32
      linalg.yield %r : f32
    } -> tensor<4x8xf32>
    // after
    %relu = linalg.generic {indexing_maps = [#id, #row, #id], ...}
        ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %s = arith.addf %in, %in_0 : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    } -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def LowerTMTensor : Pass<"lighthouse-lower-tm-tensor"> {
  let summary = "Lower torch-mlir's tm_tensor ops (scatter, sort, scan, "
    "top-k) to loops on tensors";
  let description = [{
    torch-mlir lowers scatters (torch's scatter, index_put, index_add; ONNX's
    ScatterElements, ScatterND), sorts (sort, argsort, ONNX's TopK),
    cumulative scans (cumsum, cumprod) and top-k to its `tm_tensor` dialect,
    which lighthouse holds as unknown operations. This pass rewrites
    `tm_tensor.scan`, `tm_tensor.scatter`, `tm_tensor.sort` and
    `tm_tensor.topk` into `scf` loops of `tensor.extract` and `tensor.insert`
    with the op's region inlined, before bufferization. Scatter indices are
    checked at run time (`cf.assert`). Sort is a stable merge sort. Any
    other `tm_tensor` op, or one whose operands or region are not as
    expected, is an error.

    ```mlir
    // before
    %r:2 = tm_tensor.scan dimension(0) inclusive(true)
        ins(%x : tensor<8xf32>) outs(%init, %acc : tensor<8xf32>, tensor<f32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tm_tensor.yield %s : f32
    } -> tensor<8xf32>, tensor<f32>
    // after (abridged)
    %r:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%o = %init, %a = %acc)
        -> (tensor<8xf32>, tensor<f32>) {
      %first = arith.cmpi eq, %i, %c0 : index
      %n:2 = scf.if %first -> (tensor<8xf32>, tensor<f32>) {
        ... %x[%i] into %o[%i]
      } else {
        ... %s = arith.addf %o[%i - 1], %x[%i] into %o[%i] and %a[]
      }
      scf.yield %n#0, %n#1 : tensor<8xf32>, tensor<f32>
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
}

def PadsInPlace : Pass<"lighthouse-pads-in-place", "::mlir::func::FuncOp"> {
  let summary = "Rewrite tensor.pad into a fill and an insert_slice of the "
    "source";
  let description = [{
    Rewrites `tensor.pad` into fills of the padded tensor's borders (of the
    whole, for a padding value that depends on the position) and an
    `insert_slice` of the source, so that `eliminate-empty-tensors` has the
    op computing the source write into the interior of the padded buffer
    instead of into a buffer of its own that is then copied. Drops the
    operands of a `tensor.concat` that are empty along its dimension (their
    bufferized copy is a view at the dimension's end, which MLIR refuses).

    ```mlir
    // before
    %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zero : f32
    } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
    // after: the borders filled (the top rows here; then the bottom rows,
    // the left and right columns), the source inserted into the interior
    %e = tensor.empty() : tensor<1x4x10x10xf32>
    %top = tensor.extract_slice %e[0, 0, 0, 0] [1, 4, 1, 10] [1, 1, 1, 1]
        : tensor<1x4x10x10xf32> to tensor<1x4x1x10xf32>
    %zeros = linalg.fill ins(%zero : f32) outs(%top : tensor<1x4x1x10xf32>)
        -> tensor<1x4x1x10xf32>
    %e1 = tensor.insert_slice %zeros into %e[0, 0, 0, 0] [1, 4, 1, 10] [1, 1, 1, 1]
        : tensor<1x4x1x10xf32> into tensor<1x4x10x10xf32>
    ...
    %p = tensor.insert_slice %x into %e4[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
        : tensor<1x4x8x8xf32> into tensor<1x4x10x10xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def SimplifyPowers : Pass<"lighthouse-simplify-powers"> {
  let summary = "Compute powers by small constants as multiplications";
  let description = [{
    MLIR's algebraic simplification of `math.powf` and `math.fpowi` by
    constants (2, 3, -1, -2, 0.5, -0.5, 0.75, small integers): x ** 2 and
    x ** 3 become multiplications, x ** 0.5 a square root, as eager PyTorch
    computes them. `math.fpowi` keeps its op scalar and `math.powf` is a
    libm call per element; the multiplications vectorize.

    ```mlir
    // before
    %y = math.fpowi %x, %c3 : f32, i64
    // after
    %s = arith.mulf %x, %x : f32
    %y = arith.mulf %x, %s : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def SplatsAsFills : Pass<"lighthouse-splats-as-fills"> {
  let summary = "Compute large splat constant tensors with linalg.fill "
    "instead of storing them";
  let description = [{
    A constant tensor of one repeated value becomes, once bufferized, a
    global of every element, which LLVM builds element by element: a splat
    of 2^24 `i1` took 2.9 s and 0.8 GB to compile, and one of 2^31 (what an
    ONNX ConstantOfShape or a model's `torch.ones` can ask for) ran the JIT
    out of memory after 17 GB. A splat of more than `min-bytes` bytes is
    written by a `linalg.fill` of an empty tensor instead, as the code runs:
    its cost is that of writing it once per call, as a copy of the global
    would be.

    ```mlir
    // before
    %c = arith.constant dense<1.0> : tensor<1024x1024xf32>
    // after
    %one = arith.constant 1.0 : f32
    %e = tensor.empty() : tensor<1024x1024xf32>
    %c = linalg.fill ins(%one : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"65536",
           "Splats of more bytes than this become fills (64 KiB: larger "
           "than the constants ops read as lookup tables, and a memset "
           "of it costs microseconds)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // LIGHTHOUSE_TRANSFORMS_TENSORS_PASSES
