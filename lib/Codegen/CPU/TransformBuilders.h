//===- TransformBuilders.h - Transform ops the strategies build -*- C++ -*-===//
//
// Typed helpers over the transform dialect's op builders, for the builders
// of strategy kinds: each creates one transform op at the builder's point
// and returns the handles it yields. Handles are !transform.any_op values.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_LIB_CODEGEN_CPU_TRANSFORMBUILDERS_H
#define LIGHTHOUSE_LIB_CODEGEN_CPU_TRANSFORMBUILDERS_H

#include "lighthouse/Codegen/CPU/Strategy.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace lighthouse::cpu::tx {

using Handle = mlir::Value;

/// An op tiled into loops: the tiled op, and the loops, outermost first.
struct Tiled {
  Handle op;
  llvm::SmallVector<Handle> loops;
};

/// Ops named `name` nested in `scope`.
Handle match(mlir::ImplicitLocOpBuilder &b, Handle scope, llvm::StringRef name);
/// The func.func holding `op`.
Handle parentFunction(mlir::ImplicitLocOpBuilder &b, Handle op);
Handle producerOf(mlir::ImplicitLocOpBuilder &b, Handle op, unsigned operand);
Handle consumersOf(mlir::ImplicitLocOpBuilder &b, Handle op, unsigned result);

/// scf.for loops over tiles of `sizes` (0: not tiled), in `interchange`'s
/// order when given.
Tiled tileWithLoops(mlir::ImplicitLocOpBuilder &b, Handle op,
                    llvm::ArrayRef<int64_t> sizes,
                    llvm::ArrayRef<int64_t> interchange = {});
/// An scf.forall over tiles of `sizes` (one per thread); loops[0] is it.
Tiled tileForThreads(mlir::ImplicitLocOpBuilder &b, Handle op,
                     llvm::ArrayRef<int64_t> sizes);
/// An scf.forall over `counts` parts of each loop (0: not split).
Tiled splitForThreads(mlir::ImplicitLocOpBuilder &b, Handle op,
                      llvm::ArrayRef<int64_t> counts);
/// `op` split across threads as `strategy` says (its `threads` or
/// `thread_counts`): the handle of each thread's part, or `op` itself when
/// the strategy splits nothing.
Handle splitAcrossThreads(mlir::ImplicitLocOpBuilder &b, Handle op,
                          const Strategy &strategy);
/// Fuses `producer` into `loop`: returns the fused op and the new loop.
std::pair<Handle, Handle> fuseInto(mlir::ImplicitLocOpBuilder &b,
                                   Handle producer, Handle loop);

/// Vectorizes `op` (with `sizes`, masked where they exceed the op's).
void vectorize(mlir::ImplicitLocOpBuilder &b, Handle op,
               llvm::ArrayRef<int64_t> sizes = {});
/// Rewrites `op` as a lower-rank op (2-D windows into 1-D windows).
Handle decompose(mlir::ImplicitLocOpBuilder &b, Handle op);

/// transform.apply_patterns to `target`: `patterns` creates the pattern
/// descriptors.
void applyPatterns(
    mlir::ImplicitLocOpBuilder &b, Handle target,
    llvm::function_ref<void(mlir::ImplicitLocOpBuilder &)> patterns);
void applyCSE(mlir::ImplicitLocOpBuilder &b, Handle target);

} // namespace lighthouse::cpu::tx

#endif // LIGHTHOUSE_LIB_CODEGEN_CPU_TRANSFORMBUILDERS_H
