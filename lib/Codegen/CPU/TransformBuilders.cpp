//===- TransformBuilders.cpp - Transform ops the strategies build ---------===//

#include "TransformBuilders.h"

#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"

using namespace mlir;

namespace lighthouse::cpu::tx {

static Type anyOp(ImplicitLocOpBuilder &b) {
  return transform::AnyOpType::get(b.getContext());
}

Handle match(ImplicitLocOpBuilder &b, Handle scope, llvm::StringRef name) {
  return transform::MatchOp::create(b, scope, ArrayRef<StringRef>{name})
      .getResult();
}

Handle parentFunction(ImplicitLocOpBuilder &b, Handle op) {
  return transform::GetParentOp::create(
             b, anyOp(b), op, /*isolated_from_above=*/false,
             /*allow_empty_results=*/false, b.getStringAttr("func.func"))
      .getParent();
}

Handle producerOf(ImplicitLocOpBuilder &b, Handle op, unsigned operand) {
  return transform::GetProducerOfOperand::create(b, anyOp(b), op, operand)
      .getProducer();
}

Handle consumersOf(ImplicitLocOpBuilder &b, Handle op, unsigned result) {
  return transform::GetConsumersOfResult::create(b, anyOp(b), op, result)
      .getConsumers();
}

Tiled tileWithLoops(ImplicitLocOpBuilder &b, Handle op, ArrayRef<int64_t> sizes,
                    ArrayRef<int64_t> interchange) {
  auto tiled = transform::TileUsingForOp::create(b, op, sizes, interchange);
  return {tiled.getTiledLinalgOp(), SmallVector<Handle>(tiled.getLoops())};
}

Tiled tileForThreads(ImplicitLocOpBuilder &b, Handle op,
                     ArrayRef<int64_t> sizes) {
  auto tiled = transform::TileUsingForallOp::create(b, op, sizes,
                                                    transform::TileSizesSpec());
  return {tiled.getTiledOp(), {tiled.getForallOp()}};
}

Tiled splitForThreads(ImplicitLocOpBuilder &b, Handle op,
                      ArrayRef<int64_t> counts) {
  auto tiled = transform::TileUsingForallOp::create(
      b, op, counts, transform::NumThreadsSpec());
  return {tiled.getTiledOp(), {tiled.getForallOp()}};
}

Handle splitAcrossThreads(ImplicitLocOpBuilder &b, Handle op,
                          const Strategy &strategy) {
  if (!strategy.threads.empty())
    return tileForThreads(b, op, strategy.threads).op;
  if (!strategy.threadCounts.empty())
    return splitForThreads(b, op, strategy.threadCounts).op;
  return op;
}

std::pair<Handle, Handle> fuseInto(ImplicitLocOpBuilder &b, Handle producer,
                                   Handle loop) {
  auto fused = transform::FuseIntoContainingOp::create(b, producer, loop);
  return {fused.getFusedOp(), fused.getNewContainingOp()};
}

void vectorize(ImplicitLocOpBuilder &b, Handle op, ArrayRef<int64_t> sizes) {
  // As parsed from `vector_sizes [...]`: no size is scalable.
  SmallVector<bool> scalable(sizes.size(), false);
  transform::VectorizeOp::create(
      b, op, ValueRange(), sizes,
      /*vectorize_nd_extract=*/nullptr,
      /*assume_dynamic_dims_match_vec_sizes=*/nullptr,
      /*create_named_contraction=*/nullptr, scalable);
}

Handle decompose(ImplicitLocOpBuilder &b, Handle op) {
  return transform::DecomposeOp::create(b, anyOp(b), op).getTransformed();
}

void applyPatterns(ImplicitLocOpBuilder &b, Handle target,
                   llvm::function_ref<void(ImplicitLocOpBuilder &)> patterns) {
  transform::ApplyPatternsOp::create(b, target,
                                     [&](OpBuilder &nested, Location loc) {
                                       ImplicitLocOpBuilder inner(loc, nested);
                                       patterns(inner);
                                     });
}

void applyCSE(ImplicitLocOpBuilder &b, Handle target) {
  transform::ApplyCommonSubexpressionEliminationOp::create(b, target);
}

} // namespace lighthouse::cpu::tx
