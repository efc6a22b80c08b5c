//===- RewriteSteps.cpp - Steps the rewrites into forms share -------------===//
//
// The steps the rewrites into the forms the policies take share: a loop of
// an op tiled by 1 (a batch of matmuls into its matmuls, a 3-D convolution
// into its depths), then the op of one iteration without its unit loops.
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"

using namespace mlir;

namespace lighthouse::cpu {

FailureOr<linalg::LinalgOp> tileLoopByOne(RewriterBase &rewriter,
                                          linalg::LinalgOp op, unsigned loop,
                                          bool acrossThreads) {
  SmallVector<OpFoldResult> sizes(op.getNumLoops(), rewriter.getIndexAttr(0));
  sizes[loop] = rewriter.getIndexAttr(1);
  scf::SCFTilingOptions options;
  options.setTileSizes(sizes);
  options.setLoopType(acrossThreads ? scf::SCFTilingOptions::LoopType::ForallOp
                                    : scf::SCFTilingOptions::LoopType::ForOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  return cast<linalg::LinalgOp>(tiled->tiledOps.front());
}

void dropUnitLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                   ArrayRef<unsigned> loops) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> generic =
      isa<linalg::GenericOp>(op.getOperation())
          ? FailureOr<linalg::GenericOp>(cast<linalg::GenericOp>(op))
          : linalg::generalizeNamedOp(rewriter, op);
  if (failed(generic))
    return;
  linalg::ControlDropUnitDims unitLoops;
  unitLoops.controlFn = [&](Operation *) { return llvm::to_vector(loops); };
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, *generic, unitLoops);
  if (succeeded(dropped))
    rewriter.replaceOp(*generic, dropped->replacements);
}

} // namespace lighthouse::cpu
