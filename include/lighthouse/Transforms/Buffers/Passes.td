//===- Passes.td - lighthouse's passes after bufferization -*- tablegen -*-===//
//
// lighthouse's rewrites of buffers, loops and math after bufferization, on
// the way to the LLVM dialect.
// mlir-tblgen generates their base classes and one registration function,
// `registerLighthouseBufferTransformsPasses`. Each description shows a
// small example; each pass's lit test (test/Transforms/Buffers) has more.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_TRANSFORMS_BUFFERS_PASSES
#define LIGHTHOUSE_TRANSFORMS_BUFFERS_PASSES

include "mlir/Pass/PassBase.td"

def ApproximateMath : Pass<"lighthouse-approximate-math"> {
  let summary = "Compute f32 tanh, erf, exp and log with polynomials, not "
    "libm calls";
  let description = [{
    Rewrites `math.tanh`, `math.erf`, `math.exp`, `math.expm1`, `math.log`,
    `math.log1p` and `math.log2` on f32 (scalars and vectors) into MLIR's
    polynomial approximations: arithmetic, compares and selects of the same
    shape, which vectorize, where the lowering to LLVM would otherwise call
    libm once per element (LLVM has no vector form of these on x86) and
    leave the loop around the call scalar. Other types are left as they are.

    ```mlir
    // before
    %y = math.tanh %x : vector<16xf32>
    // after (abridged): a rational function of x clamped to +-7.99
    %below = arith.cmpf ult, %x, %hi : vector<16xf32>
    %c = arith.select %below, %x, %hi : vector<16xi1>, vector<16xf32>
    ...
    %x2 = arith.mulf %c, %c : vector<16xf32>
    %p0 = math.fma %x2, %alpha13, %alpha11 : vector<16xf32>
    ...
    %y = arith.divf %numerator, %denominator : vector<16xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ContiguousInnermostLoop
    : Pass<"lighthouse-contiguous-innermost-loop", "::mlir::func::FuncOp"> {
  let summary = "Put a contiguous output dimension innermost instead of a "
    "reduction";
  let description = [{
    Interchanges the loops of linalg ops on buffers whose innermost loop is a
    reduction, so that the output's last dimension, contiguous in every
    operand it indexes, is innermost. LLVM does not vectorize a
    floating-point reduction without reassociating it; the innermost loop is
    then a parallel one over unit-stride accesses, which it vectorizes as it
    is. A matmul's loops become i, k, j:

    ```mlir
    // before
    linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x32xf32>)
                  outs(%c : memref<?x32xf32>)
    // after
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>,
                                     affine_map<(d0, d1, d2) -> (d1, d2)>,
                                     affine_map<(d0, d1, d2) -> (d0, d2)>],
                    iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%a, %b : memref<?x64xf32>, memref<64x32xf32>)
        outs(%c : memref<?x32xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.mulf %in, %in_0 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    ```

    Ops whose output row is read with a stride (a convolution with a stride
    above 1, a transposed view) are left alone.
  }];
}

def ExpandShapesAsCasts
    : Pass<"lighthouse-expand-shapes-as-casts", "::mlir::func::FuncOp"> {
  let summary = "Rewrite expansions of a dimension into several dynamic ones "
    "into reinterpret casts";
  let description = [{
    Rewrites each `memref.expand_shape` that splits a dimension into two or
    more dynamic sizes (`[b*n, d]` into `[b, n, d]`, as a model for any
    batch and sequence length reshapes its hidden states) into a
    `memref.reinterpret_cast` of its source's base buffer, with the sizes
    the op gives and the strides they imply. MLIR's
    `expand-strided-metadata` assumes at most one dynamic size per expanded
    dimension and crashes on such ops; it takes the cast.

    ```mlir
    // before
    %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%b, %n, 768]
        : memref<?x768xf32> into memref<?x?x768xf32>
    // after
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a
    %stride = affine.apply affine_map<()[s0] -> (s0 * 768)>()[%n]
    %e = memref.reinterpret_cast %base to offset: [0],
        sizes: [%b, %n, 768], strides: [%stride, 768, 1]
        : memref<f32> to memref<?x?x768xf32>
    ```
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect"];
}

def OddTransfersAsMasked
    : Pass<"lighthouse-odd-transfers-as-masked", "::mlir::func::FuncOp"> {
  let summary = "Read and write vectors of lanes that are not a power of two "
    "as masked vectors of the next power of two";
  let description = [{
    Rewrites each 1-D, unmasked, in-bounds `vector.transfer_read` and
    `vector.transfer_write` along the innermost dimension whose vector has
    a number of lanes that is not a power of two into one of the next power
    of two under a mask of the original lanes. LLVM splits a load or store
    of 14 floats into 8 + 4 + 2 and inserts, where a masked move is one
    instruction; the lanes past the mask are neither read nor written.

    ```mlir
    // before
    %v = vector.transfer_read %m[%i], %pad {in_bounds = [true]}
        : memref<20xf32>, vector<14xf32>
    // after
    %mask = vector.constant_mask [14] : vector<16xi1>
    %w = vector.transfer_read %m[%i], %pad, %mask {in_bounds = [true]}
        : memref<20xf32>, vector<16xf32>
    %v = vector.extract_strided_slice %w
        {offsets = [0], sizes = [14], strides = [1]}
        : vector<16xf32> to vector<14xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect"
  ];
}

def SingleRowReductions
    : Pass<"lighthouse-single-row-reductions", "::mlir::func::FuncOp"> {
  let summary = "Reduce a vector holding one row with vector.reduction";
  let description = [{
    Rewrites each `vector.multi_reduction` whose kept dimensions are all of
    size 1 into a `vector.reduction` of the flattened vector, which LLVM
    lowers as a tree of shuffles, where lower-vector-multi-reduction's
    inner-parallel lowering would reduce the row one scalar op per lane.
    Run before lower-vector-multi-reduction.

    ```mlir
    // before
    %r = vector.multi_reduction <maximumf>, %v, %acc [1]
        : vector<1x64xf32> to vector<1xf32>
    // after
    %row = vector.shape_cast %v : vector<1x64xf32> to vector<64xf32>
    %a = vector.extract %acc[0] : f32 from vector<1xf32>
    %m = vector.reduction <maximumf>, %row, %a : vector<64xf32> into f32
    %r = vector.broadcast %m : f32 to vector<1xf32>
    ```
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def OutlineLoopNests
    : Pass<"lighthouse-outline-loop-nests", "::mlir::ModuleOp"> {
  let summary = "Move runs of top-level loop nests into functions LLVM does "
    "not inline";
  let description = [{
    Moves runs of consecutive top-level loop nests of functions with more
    than `nests-per-function` of them into private functions that LLVM does
    not inline. LLVM's loop passes spend time proportional to the size of
    the whole function on each loop, so the time to optimize one function
    holding a whole model grows with the square of the model; split, it
    grows with the model. Constants and global addresses are recomputed in
    the new functions, values used across runs are passed and returned, and
    stack allocations stay in the caller. Outlined functions that differ
    only in the globals they read (a model's layers, on their own weights)
    become one, which takes those globals as arguments: the passes after
    and LLVM compile it once. With `nests-per-function=1`:

    ```mlir
    // before
    func.func @f(%a: memref<8xf32>, %b: memref<8xf32>) {
      scf.for %i = %c0 to %c8 step %c1 {
        memref.store %one, %a[%i] : memref<8xf32>
      }
      scf.for %i = %c0 to %c8 step %c1 {
        memref.store %one, %b[%i] : memref<8xf32>
      }
      return
    }
    // after
    func.func @f(%a: memref<8xf32>, %b: memref<8xf32>) {
      call @f_nests(%a) : (memref<8xf32>) -> ()
      call @f_nests_0(%b) : (memref<8xf32>) -> ()
      return
    }
    func.func private @f_nests(%a: memref<8xf32>) attributes {
        llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]} {
      %c0 = arith.constant 0 : index
      ...
      scf.for %i = %c0 to %c8 step %c1 {
        memref.store %one, %a[%i] : memref<8xf32>
      }
      return
    }
    func.func private @f_nests_0(%b: memref<8xf32>) attributes {...} {...}
    ```
  }];
  let options = [
    Option<"nestsPerFunction", "nests-per-function", "int64_t",
      /*default=*/"1",
      "Most loop nests a function keeps; a function with more is split into "
      "runs of this many">,
    Option<"mergeEquivalent", "merge-equivalent", "bool", /*default=*/"true",
      "Make the outlined functions that compute the same from their "
      "arguments, whatever globals they read, one function taking those "
      "globals as arguments">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect"
  ];
}

def StridedCopiesToLoops
    : Pass<"lighthouse-strided-copies-to-loops", "::mlir::ModuleOp"> {
  let summary = "Rewrite copies between strided buffers into linalg.copy";
  let description = [{
    Rewrites `memref.copy` between buffers that are not both contiguous (the
    interior of a padded image, a slice of a larger tensor) into
    `linalg.copy`, which lowers to loops LLVM vectorizes instead of a call of
    the runtime's element-by-element `memrefCopy`. Copies between contiguous
    buffers stay `memref.copy` (a memcpy).

    ```mlir
    // before
    memref.copy %image, %interior : memref<1x3x16x16xf32>
        to memref<1x3x16x16xf32, strided<[972, 324, 18, 1], offset: 19>>
    // after
    linalg.copy ins(%image : memref<1x3x16x16xf32>)
        outs(%interior : memref<1x3x16x16xf32, strided<[972, 324, 18, 1], offset: 19>>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // LIGHTHOUSE_TRANSFORMS_BUFFERS_PASSES
