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

#include "lighthouse/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_PADSINPLACE
#include "lighthouse/Transforms/Passes.h.inc"

namespace {

class PadsInPlacePass : public impl::PadsInPlaceBase<PadsInPlacePass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateDecomposePadPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
