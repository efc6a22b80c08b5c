//===- Passes.td - lighthouse's passes ---------------------*- tablegen -*-===//
//
// lighthouse's rewrites of linalg, loops and the LLVM dialect that its
// pipelines use, declared once: mlir-tblgen generates their base classes
// (argument, description, options, dependent dialects) and one registration
// function, `registerLighthouseTransformsPasses`.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_TRANSFORMS_PASSES
#define LIGHTHOUSE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def ContiguousInnermostLoop
    : Pass<"lighthouse-contiguous-innermost-loop", "::mlir::func::FuncOp"> {
  let summary = "Interchange the loops of linalg ops on buffers whose "
    "innermost loop is a reduction, so that the output's last dimension, "
    "contiguous in every operand it indexes, is innermost";
}

def FlattenBatchMatmuls
    : Pass<"lighthouse-flatten-batch-matmuls", "::mlir::ModuleOp"> {
  let summary = "Rewrite each linalg.batch_matmul whose right operand is a "
    "2-D value broadcast over the batch into one linalg.matmul of the "
    "stacked rows";
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def FoldConstantTransposes
    : Pass<"lighthouse-fold-constant-transposes", "::mlir::ModuleOp"> {
  let summary = "Replace each linalg.transpose of a dense or dense_resource "
    "constant with the transposed constant";
}

def FuseElementwise : Pass<"lighthouse-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "Merge each elementwise linalg.generic on tensors into the "
    "elementwise generic that is its only user and reads it element for "
    "element";
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def OutlineLoopNests
    : Pass<"lighthouse-outline-loop-nests", "::mlir::ModuleOp"> {
  let summary = "Move runs of consecutive top-level loop nests of large "
    "functions into private functions that LLVM does not inline, so that "
    "LLVM's time to optimize grows with the model rather than with its "
    "square";
  let options = [
    Option<"nestsPerFunction", "nests-per-function", "int64_t",
      /*default=*/"32",
      "Most loop nests a function keeps; a function with more is split into "
      "runs of this many">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect"
  ];
}

def PadsInPlace : Pass<"lighthouse-pads-in-place", "::mlir::func::FuncOp"> {
  let summary = "Rewrite tensor.pad into a fill of the padded tensor and an "
    "insert_slice of the source, so that eliminate-empty-tensors has the "
    "source computed in place";
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"
  ];
}

def ReadOnlyArguments
    : Pass<"lighthouse-read-only-arguments", "::mlir::ModuleOp"> {
  let summary = "Mark the tensor arguments of public functions read-only for "
    "one-shot bufferization, so that callers keep their inputs";
}

def LowerRuntimeChecks
    : Pass<"lighthouse-lower-runtime-checks", "::mlir::ModuleOp"> {
  let summary = "Turn cf.assert into a call of lighthouse's runtime when the "
    "condition fails, which returns to the caller of the compiled code with "
    "the message instead of aborting";
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect"
  ];
}

def StridedCopiesToLoops
    : Pass<"lighthouse-strided-copies-to-loops", "::mlir::ModuleOp"> {
  let summary = "Rewrite memref.copy between buffers that are not both "
    "contiguous into linalg.copy, which lowers to loops instead of a runtime "
    "call";
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // LIGHTHOUSE_TRANSFORMS_PASSES
