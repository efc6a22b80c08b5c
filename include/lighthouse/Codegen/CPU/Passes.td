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
  let summary = "Tile and vectorize linalg ops on tensors for CPUs: matmuls "
    "for the cache, the registers and threads, with their elementwise "
    "consumers, a large B copied into panels first; NCHW convolutions and "
    "poolings in register blocks of channels by rows of pixels, or as 1-D "
    "windows, split across threads by images, channels or rows; elementwise "
    "generics, split across threads when large";
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
