//===- ElementwiseRewrites.cpp - Elementwise ops in whole registers -------===//
//
// The rewrite of elementwise ops into the form their policy takes best
// (Elementwise.cpp), run before selection: rows that are not a whole number
// of vector registers (an NCHW image's rows of 28, 56 or 7 pixels, vectors
// of 16 + 8 + 4) are collapsed with the loops outside them that every
// operand reads contiguously (28 x 28 = 784 pixels, a channel's plane).
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"

#include "lighthouse/Transforms/Utils/Vectorizable.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace lighthouse::cpu {

/// The innermost loops of `op` to collapse into one (none when fewer than
/// two): the innermost loop, while it is not a whole number of `lanes`,
/// with each loop outside it that every operand reads contiguously with it,
/// up to the first loop of more than one iteration, kept for the threads.
static ReassociationIndices innermostRowLoops(linalg::LinalgOp op,
                                              int64_t lanes) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  ReassociationIndices loops = {int64_t(ranges.size()) - 1};
  if (ranges.back() % lanes == 0)
    return {};
  const int64_t *outer =
      llvm::find_if(ranges, [](int64_t range) { return range > 1; });
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (int64_t loop = ranges.size() - 2; loop > outer - ranges.begin();
       --loop) {
    ReassociationIndices wider = {loop};
    wider.append(loops);
    if (!linalg::areDimSequencesPreserved(maps, {wider}))
      break;
    loops = wider;
  }
  return loops.size() > 1 ? loops : ReassociationIndices();
}

void collapseElementwiseRows(ModuleOp module, const SelectionContext &context) {
  SmallVector<std::pair<linalg::GenericOp, ReassociationIndices>> ops;
  module.walk([&](linalg::GenericOp op) {
    auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
    // Not an op whose payload reads its position (a transposed
    // convolution's flipped weights, read through linalg.index): collapsed,
    // each element would delinearize its index again (a division and a
    // remainder per loop), which made the dcgan transposed convolution 25%
    // slower.
    if (!op.hasPureTensorSemantics() || !linalg::isElementwise(linalgOp) ||
        op->getNumResults() != 1 || linalgOp.getNumLoops() < 2 ||
        linalgOp.hasIndexSemantics() || staysScalar(op) ||
        !linalgOp.hasOnlyProjectedPermutations() ||
        llvm::any_of(linalgOp.getStaticLoopRanges(), ShapedType::isDynamic))
      return;
    // Not a contraction's consumer, which its strategy computes in the
    // contraction's blocks, over the contraction's loops.
    if (llvm::any_of(op.getDpsInputs(), [](Value input) {
          auto producer = input.getDefiningOp<linalg::LinalgOp>();
          return producer && linalg::isaContractionOpInterface(producer);
        }))
      return;
    int64_t lanes = context.target.elementsPerRegister(
        getElementTypeOrSelf(op->getResult(0).getType()));
    ReassociationIndices loops = innermostRowLoops(linalgOp, lanes);
    if (!loops.empty())
      ops.emplace_back(op, loops);
  });
  IRRewriter rewriter(module.getContext());
  for (auto [op, loops] : ops) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, {loops}, rewriter);
    if (succeeded(collapsed))
      rewriter.replaceOp(op, collapsed->results);
  }
}

} // namespace lighthouse::cpu
