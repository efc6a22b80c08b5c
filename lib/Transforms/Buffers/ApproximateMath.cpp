//===- ApproximateMath.cpp - Transcendental functions as polynomials ------===//
//
// LLVM has no vector form of tanh, erf, exp or log on x86: each element of a
// vector, and each iteration of a loop, calls libm, and a loop with a call
// in it is not vectorized. `lighthouse-approximate-math` rewrites these f32
// functions into MLIR's polynomial approximations (arithmetic, selects and
// bit manipulation on the same vector shape), which vectorize like any
// elementwise code. tanh over 1M floats went from a libm call per element
// to vectors of FMAs.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Buffers/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_APPROXIMATEMATH
#include "lighthouse/Transforms/Buffers/Passes.h.inc"

namespace {

/// The functions approximated: those whose approximations handle every
/// input (infinities, NaN, the domain's edges) and keep float32's accuracy
/// over the whole range. sin and cos are left to libm: their range
/// reduction loses accuracy on large arguments.
bool isApproximated(llvm::StringRef name) {
  return llvm::is_contained(
      {math::TanhOp::getOperationName(), math::ErfOp::getOperationName(),
       math::ExpOp::getOperationName(), math::ExpM1Op::getOperationName(),
       math::LogOp::getOperationName(), math::Log1pOp::getOperationName(),
       math::Log2Op::getOperationName()},
      name);
}

/// The approximations of log and log2 read the exponent from the float's
/// bits, which denormals (below 2^-126) do not hold: log(1e-45) came out
/// 15% off. Such inputs are scaled by 2^24 into the normal range, and the
/// result corrected by 24 ln 2 (24 for log2).
template <typename LogOp> void scaleDenormals(LogOp op, double scaledAway) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type type = op.getType();
  auto constant = [&](double value) -> Value {
    TypedAttr scalar = b.getF32FloatAttr(static_cast<float>(value));
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(b, loc,
                                       SplatElementsAttr::get(vector, scalar));
    return arith::ConstantOp::create(b, loc, scalar);
  };
  Value x = op.getOperand();
  Value denormal =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                            constant(std::numeric_limits<float>::min()));
  Value scaled = arith::MulFOp::create(b, loc, x, constant(16777216.0));
  Value input = arith::SelectOp::create(b, loc, denormal, scaled, x);
  Value log = LogOp::create(b, loc, input, op.getFastmathAttr());
  Value corrected =
      arith::SubFOp::create(b, loc, log, constant(24 * scaledAway));
  op.replaceAllUsesWith(
      arith::SelectOp::create(b, loc, denormal, corrected, log).getResult());
  op.erase();
}

class ApproximateMathPass
    : public impl::ApproximateMathBase<ApproximateMathPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> logs;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::LogOp, math::Log2Op>(op) &&
          getElementTypeOrSelf(op->getResult(0)).isF32())
        logs.push_back(op);
    });
    for (Operation *op : logs) {
      if (auto log = dyn_cast<math::LogOp>(op))
        scaleDenormals(log, std::log(2.0));
      else
        scaleDenormals(cast<math::Log2Op>(op), 1.0);
    }
    // Only the selected math ops and what their rewrites create: a greedy
    // rewrite of the whole module would also fold constants across all of
    // it, work this pass is not for.
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isApproximated(op->getName().getStringRef()))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    config.enableFolding(false);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
