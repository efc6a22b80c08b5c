//===- InitAll.h - Lighthouse dialect and pass registration -----*- C++ -*-===//
//
// Entry points that populate MLIR registries with everything lighthouse needs
// for its CPU compilation flow: from linalg on tensors, through bufferization
// and loop lowering, down to the LLVM dialect and LLVM IR for execution.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_INITALL_H
#define LIGHTHOUSE_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace lighthouse {

/// Adds the dialects used by lighthouse to `registry`, together with the
/// dialect extensions and external interface models they rely on:
///   - transform dialect extensions (structured, loop, tensor, memref, vector,
///     bufferization, affine, func, PDL, debug),
///   - BufferizableOpInterface and buffer deallocation models for one-shot
///     bufferization,
///   - ConvertToLLVMPatternInterface models used by `convert-to-llvm`,
///   - value-bounds, tiling, subset, infer-type, inliner, allocation and
///     runtime-verification models,
///   - LLVM IR translations (builtin, llvm, omp) so that modules lowered to
///     the LLVM dialect can be handed to the ExecutionEngine.
///
/// GPU, SPIR-V and hardware-specific (NVVM, ROCDL, AMX, ArmSME, ...) dialects
/// are intentionally left out.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers, in the global pass registry, the passes of the dialects added by
/// `registerAllDialects`, the generic transformation passes (canonicalize,
/// cse, inline, ...), the bufferization pipelines, the conversion passes
/// needed to lower linalg on tensors to the LLVM dialect on a CPU, and
/// lighthouse's own passes and pipelines.
///
/// Only individual conversion passes are registered; the upstream
/// `mlir::registerConversionPasses()` is avoided because it drags in GPU,
/// SPIR-V and other target-specific libraries.
void registerAllPasses();

} // namespace lighthouse

#endif // LIGHTHOUSE_INITALL_H
