//===- SimplifyPowers.cpp - Powers by constants as multiplications --------===//
//
// torch-mlir lowers x ** 2, x ** 3 (GELU's tanh form) and x ** 0.5 to
// math.fpowi and math.powf by a constant. Left as they are, fpowi keeps its
// op scalar (Vectorizable.h) and powf is a libm call per element; MLIR's
// algebraic simplification rewrites powers by small constants into
// multiplications, divisions and square roots, as eager PyTorch computes
// them, which vectorize.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Tensors/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_SIMPLIFYPOWERS
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

class SimplifyPowersPass : public impl::SimplifyPowersBase<SimplifyPowersPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathAlgebraicSimplificationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
