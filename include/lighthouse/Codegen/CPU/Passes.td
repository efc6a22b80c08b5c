//===- Passes.td - lighthouse's CPU code generator ---------*- tablegen -*-===//
//
// The passes of lighthouse's CPU code generator, declared once: mlir-tblgen
// generates their base classes (argument, description, options, dependent
// dialects) and one registration function,
// `registerLighthouseCodegenCPUPasses`.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_CODEGEN_CPU_PASSES
#define LIGHTHOUSE_CODEGEN_CPU_PASSES

include "mlir/Pass/PassBase.td"

def CPUSchedule : Pass<"lighthouse-cpu-schedule", "::mlir::ModuleOp"> {
  let summary = "Tile, vectorize and split across threads the linalg ops on "
    "tensors of a module, for CPUs";
  let description = [{
    Tiles and vectorizes linalg ops on tensors for CPUs through a
    transform-dialect script built per module, so that each op gets tile
    sizes that fit its shape:
    - matmuls for the cache, the registers and threads, with their
      elementwise consumers (bias, activation) computed block by block of C,
      and a large B first copied into panels in the order the register tiles
      read it;
    - NCHW convolutions and poolings in register blocks of channels by rows
      of pixels (lib/Codegen/CPU/WindowRows.h), or as 1-D windows, split
      across threads by images, channels or rows;
    - elementwise generics along their innermost dimension, split across
      threads when large.

    Everything else, and any op the vectorizer turns down, is left to the
    loops of the rest of the pipeline.

    A 64x64x64 matmul on one thread (`threads=1`, then `canonicalize,cse`;
    abridged): register tiles of C of 8x32, held in vector registers across
    the loop over K, each step of which is 64 FMAs of a broadcast element of
    A by a row of B.

    ```mlir
    // before
    %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                       outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    // after
    %r = scf.for %i = %c0 to %c64 step %c8 iter_args(%ci = %c) -> (tensor<64x64xf32>) {
      %rj = scf.for %j = %c0 to %c64 step %c32 iter_args(%cij = %ci) -> (tensor<64x64xf32>) {
        %tile = tensor.extract_slice %cij[%i, %j] [8, 32] [1, 1]
            : tensor<64x64xf32> to tensor<8x32xf32>
        %acc = vector.transfer_read %tile[%c0, %c0], %poison {in_bounds = [true, true]}
            : tensor<8x32xf32>, vector<8x32xf32>
        %sum = scf.for %k = %c0 to %c64 step %c8 iter_args(%v = %acc) -> (vector<8x32xf32>) {
          %va = vector.transfer_read ... : tensor<8x8xf32>, vector<8x8xf32>
          %vb = vector.transfer_read ... : tensor<8x32xf32>, vector<8x32xf32>
          %b0 = vector.extract %vb[0] : vector<32xf32> from vector<8x32xf32>
          %a00 = vector.extract %va[0, 0] : f32 from vector<8x8xf32>
          %s00 = vector.broadcast %a00 : f32 to vector<32xf32>
          %c0v = vector.extract %v[0] : vector<32xf32> from vector<8x32xf32>
          %f00 = vector.fma %s00, %b0, %c0v : vector<32xf32>
          ...
        }
        // %sum written back into %tile, and %tile into %cij
      }
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect",
    "::mlir::transform::TransformDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
  let options = [
    ListOption<"cacheTiles", "cache-tiles", "int64_t",
      "M, N, K tile sizes of the block of C kept in cache",
      "llvm::cl::list_init<int64_t>({128, 256, 256})">,
    ListOption<"registerTiles", "register-tiles", "int64_t",
      "M, N, K tile sizes of the block of C kept in vector registers (N a "
      "multiple of the vector width)",
      "llvm::cl::list_init<int64_t>({8, 32, 8})">,
    Option<"threads", "threads", "int64_t", /*default=*/"0",
      "Threads that split the columns or rows of large matmuls, the images "
      "of large convolutions and large elementwise ops (0: one per hardware "
      "thread; 1: no scf.forall)">,
    Option<"packB", "pack-b", "bool", /*default=*/"true",
      "Copy B into panels laid out in the order the register tiles read "
      "them, once per column of blocks of C, when each thread's part of B "
      "has 256K floats or more and of A 64 rows or more">,
    Option<"fuseConsumers", "fuse-consumers", "bool", /*default=*/"true",
      "Compute the elementwise consumers of each matmul (bias, activation, "
      "residual) block by block of C, inside the matmul's loops">,
  ];
}

#endif // LIGHTHOUSE_CODEGEN_CPU_PASSES
