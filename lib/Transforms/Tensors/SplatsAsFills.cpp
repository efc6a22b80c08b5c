//===- SplatsAsFills.cpp - Large splat constants computed, not stored -----===//
//
// A splat constant tensor bufferizes into a global holding every element,
// which LLVM materializes element by element: compile time and memory grow
// with the tensor (2^24 i1: 2.9 s, 0.8 GB; 2^31: out of memory after 17 GB).
// Above a size, the tensor is filled as the code runs instead.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Tensors/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_SPLATSASFILLS
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

class SplatsAsFillsPass : public impl::SplatsAsFillsBase<SplatsAsFillsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    SmallVector<arith::ConstantOp> splats;
    getOperation()->walk([&](arith::ConstantOp constant) {
      auto type = dyn_cast<RankedTensorType>(constant.getType());
      auto value = dyn_cast<SplatElementsAttr>(constant.getValue());
      if (!type || !value || !type.hasStaticShape() ||
          !type.getElementType().isIntOrIndexOrFloat())
        return;
      // Elements are stored in whole bytes (an i1 in one).
      int64_t elementBytes =
          llvm::divideCeil(type.getElementType().isIndex()
                               ? 8
                               : type.getElementType().getIntOrFloatBitWidth(),
                           8);
      if (type.getNumElements() > minBytes / elementBytes)
        splats.push_back(constant);
    });
    IRRewriter rewriter(&getContext());
    for (arith::ConstantOp constant : splats) {
      auto type = cast<RankedTensorType>(constant.getType());
      rewriter.setInsertionPoint(constant);
      Location loc = constant.getLoc();
      Value element = arith::ConstantOp::create(
          rewriter, loc,
          cast<TypedAttr>(cast<SplatElementsAttr>(constant.getValue())
                              .getSplatValue<Attribute>()));
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                  type.getElementType(), type.getEncoding());
      rewriter.replaceOpWithNewOp<linalg::FillOp>(constant, element, empty);
    }
  }
};

} // namespace
} // namespace lighthouse
