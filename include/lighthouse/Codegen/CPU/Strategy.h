//===- Strategy.h - How one op is compiled for CPUs -------------*- C++ -*-===//
//
// The decision of the CPU code generator's selection for one linalg op,
// recorded on the op as the `lighthouse.strategy` attribute, which the
// application reads: a kind, which names the builder that applies it, and
// tile sizes per level, each a size per loop of the op (0: the loop is not
// tiled at that level), as the transform dialect's tiling ops take them.
//
//   %r = linalg.matmul {lighthouse.strategy = {kind = "contraction.blocked",
//          threads = array<i64: 0, 128>, cache = array<i64: 128, 128, 256>,
//          registers = array<i64: 8, 32, 8>, fill_c}} ...
//
// Selection and application meet only here, so that either can be tested
// alone: a test hands the application a strategy written by hand.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_CODEGEN_CPU_STRATEGY_H
#define LIGHTHOUSE_CODEGEN_CPU_STRATEGY_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

namespace lighthouse::cpu {

constexpr llvm::StringLiteral kStrategyAttrName = "lighthouse.strategy";
/// Marks the copy of an op that the version-on-batch-size form runs when its
/// batch holds enough images for every thread; selection reads it, and
/// lighthouse-cpu-apply-strategy removes it with the strategies.
constexpr llvm::StringLiteral kLargeBatchAttrName = "lighthouse.large_batch";

enum class StrategyKind {
  /// A matmul tiled for threads, blocks of C in cache and register tiles
  /// (vectorized into FMAs), with its elementwise consumers computed block
  /// by block (Contraction.cpp).
  ContractionBlocked,
  /// A convolution or pooling tiled into blocks of channels by rows of
  /// pixels for the register kernel of ConvolutionKernel.h (Convolution.cpp).
  ConvolutionRows,
  /// A convolution or pooling tiled into output rows, decomposed into 1-D
  /// windows that linalg vectorizes (Convolution.cpp).
  ConvolutionWindows,
  /// A reduction of the innermost loop, its rows split across threads and
  /// tiled into blocks, the reduction split into vectors of partial results
  /// (Reduction.cpp).
  ReductionRows,
  /// An elementwise op split across threads and vectorized along its
  /// innermost loop (Elementwise.cpp).
  ElementwiseRows,
  /// A transpose of the innermost dimension tiled into blocks read and
  /// written in contiguous runs, vectorized (Transpose.cpp).
  TransposeTiles,
  /// An op computed inside the loops of the strategy of the op it consumes
  /// (a matmul's bias and activation).
  Fused,
};

llvm::StringRef stringifyStrategyKind(StrategyKind kind);

struct Strategy {
  explicit Strategy(StrategyKind kind) : kind(kind) {}

  StrategyKind kind;
  /// scf.forall tile sizes: each thread's part of each loop.
  llvm::SmallVector<int64_t> threads;
  /// scf.forall thread counts, per loop: for loops of dynamic size, split
  /// evenly. At most one of `threads` and `threadCounts` is set.
  llvm::SmallVector<int64_t> threadCounts;
  /// Tile sizes of the blocks kept in cache.
  llvm::SmallVector<int64_t> cache;
  /// Tile sizes of the blocks kept in vector registers.
  llvm::SmallVector<int64_t> registers;
  /// Tile sizes of the tiles vectorized whole (rows of an elementwise op,
  /// of a matmul's consumers).
  llvm::SmallVector<int64_t> vector;
  /// Contractions: C starts as the linalg.fill it is the only user of,
  /// which each block then does for its part.
  bool fillC = false;
  /// Contractions: B is copied into panels in the order the register tiles
  /// read it.
  bool packB = false;
  /// Contractions: rows of a dynamic count, whose loop over register tiles
  /// is peeled into whole tiles and a partial one.
  bool peelRows = false;
  /// Contractions: the elementwise consumers computed per block of C, each
  /// the only user of the one before (of the matmul, for the first).
  int64_t consumers = 0;

  mlir::DictionaryAttr toAttr(mlir::MLIRContext *context) const;
  /// The strategy `attr` records, or an error emitted on `op` naming what
  /// is malformed.
  static mlir::FailureOr<Strategy> fromAttr(mlir::Operation *op,
                                            mlir::Attribute attr);
};

/// The strategy recorded on `op`, none if it has none; an error when it is
/// malformed.
mlir::FailureOr<std::optional<Strategy>> getStrategy(mlir::Operation *op);
void setStrategy(mlir::Operation *op, const Strategy &strategy);

} // namespace lighthouse::cpu

#endif // LIGHTHOUSE_CODEGEN_CPU_STRATEGY_H
