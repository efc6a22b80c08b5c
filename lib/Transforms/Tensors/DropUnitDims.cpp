//===- DropUnitDims.cpp - Broadcasts through unit dims made plain ---------===//
//
// Imported models keep reduced dimensions as size 1 (`keepdim`): a softmax's
// row sums are a tensor<128x1xf32>, written through `(d0, d1) -> (d0, 0)`
// and read back the same way; a batch norm's per-channel constants are
// Cx1x1, read through `(n, c, h, w) -> (c, 0, 0)`. A map with a constant is
// not a projected permutation: the code generator neither vectorizes such
// ops nor takes them as reductions. `lighthouse-drop-unit-dims` removes the
// unit dimensions that generics index through a constant (upstream's
// unit-extent folding, limited to those dimensions), reshaping those
// operands: `(d0, 0)` becomes `(d0)`.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Tensors/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_DROPUNITDIMS
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

/// Whether `op` is a generic on tensors that indexes an operand through a
/// constant.
bool indexesThroughConstant(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.hasPureTensorSemantics() &&
         llvm::any_of(generic.getIndexingMapsArray(), [](AffineMap map) {
           return llvm::any_of(map.getResults(), [](AffineExpr expr) {
             return isa<AffineConstantExpr>(expr);
           });
         });
}

class DropUnitDimsPass : public impl::DropUnitDimsBase<DropUnitDimsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    linalg::ControlDropUnitDims options;
    // Only the operands' unit dimensions indexed through a constant: the
    // loops offered are those of more than one iteration, which are not
    // dropped, so that unit loops (a batch of 1) and the activations they
    // index keep their shape, as the ops around them expect.
    options.controlFn = [](Operation *op) -> SmallVector<unsigned> {
      if (!indexesThroughConstant(op))
        return {};
      SmallVector<unsigned> loops;
      for (auto [loop, range] :
           llvm::enumerate(cast<linalg::GenericOp>(op).getStaticLoopRanges()))
        if (range != 1)
          loops.push_back(loop);
      return loops;
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateFoldUnitExtentDimsPatterns(patterns, options);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
