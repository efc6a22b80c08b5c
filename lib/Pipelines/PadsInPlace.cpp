//===- PadsInPlace.cpp - Padded tensors written in place ------------------===//
//
// A tensor.pad bufferizes to a new buffer, a fill and a copy of its source:
// each padded convolution or pooling copies its whole input once more.
// `lighthouse-pads-in-place` rewrites each tensor.pad into a linalg.fill of
// the padded tensor (a tensor.generate for a padding value that depends on
// the position) and a tensor.insert_slice of the source;
// eliminate-empty-tensors, run after it, then has the op that computes the
// source (a convolution, an elementwise op) write into the interior of the
// padded buffer, with no copy.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {
namespace {

class PadsInPlacePass
    : public PassWrapper<PadsInPlacePass, OperationPass<func::FuncOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PadsInPlacePass)

  StringRef getArgument() const override { return "lighthouse-pads-in-place"; }
  StringRef getDescription() const override {
    return "Rewrite tensor.pad into a fill of the padded tensor and an "
           "insert_slice of the source, so that eliminate-empty-tensors has "
           "the source computed in place";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect, tensor::TensorDialect>();
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateDecomposePadPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void registerPadsInPlacePass() { PassRegistration<PadsInPlacePass>(); }

} // namespace lighthouse
