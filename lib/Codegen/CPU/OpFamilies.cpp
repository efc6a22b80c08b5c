//===- OpFamilies.cpp - The family table of the CPU code generator --------===//
//
// One row per op family (OpFamilies.h): which ops its policy is asked about,
// the policy, the strategy kinds it builds with their checks and builder,
// and the rewrites into its forms.
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace lighthouse::cpu {

namespace {

// Which family asks about an op. A contraction reduces: `a * b + c`
// elementwise has the body of one.
bool isContraction(linalg::LinalgOp op) {
  return linalg::isaContractionOpInterface(op) && op.getNumReductionLoops();
}
bool isConvolution(linalg::LinalgOp op) {
  return !isContraction(op) && linalg::isaConvolutionOpInterface(op);
}
bool isTranspose(linalg::LinalgOp op) {
  return isa<linalg::TransposeOp>(op.getOperation());
}
bool isElementwise(linalg::LinalgOp op) {
  return !isConvolution(op) && !isTranspose(op) && linalg::isElementwise(op);
}
// Reductions no other family takes, row-wise dot products (contractions of
// no form the contraction policy takes) among them; convolutions and
// poolings the convolution policy turns down are left to loops.
bool isReduction(linalg::LinalgOp op) {
  return op.getNumReductionLoops() && !isConvolution(op);
}

/// A form that reads no context, as the table takes forms.
template <void (*form)(ModuleOp)>
void contextFree(ModuleOp module, const SelectionContext &) {
  form(module);
}

/// A policy that fuses no op into its strategies, as the table takes
/// policies.
template <std::optional<Strategy> (*policy)(linalg::LinalgOp,
                                            const SelectionContext &)>
std::optional<Strategy> fusingNone(linalg::LinalgOp op,
                                   const SelectionContext &context,
                                   SmallVectorImpl<Operation *> &) {
  return policy(op, context);
}

/// linalg.transpose's policy, as the table takes policies.
std::optional<Strategy> selectTransposeOp(linalg::LinalgOp op,
                                          const SelectionContext &context,
                                          SmallVectorImpl<Operation *> &) {
  return selectTranspose(cast<linalg::TransposeOp>(op.getOperation()), context);
}

const StrategyKind kContractionKinds[] = {StrategyKind::ContractionBlocked};
const StrategyKind kConvolutionKinds[] = {StrategyKind::ConvolutionRows,
                                          StrategyKind::ConvolutionWindows};
const StrategyKind kReductionKinds[] = {StrategyKind::ReductionRows};
const StrategyKind kElementwiseKinds[] = {StrategyKind::ElementwiseRows};
const StrategyKind kTransposeKinds[] = {StrategyKind::TransposeTiles};

const Form kContractionForms[] = {
    {"split-batch-matmuls", FormStage::Ops, splitBatchMatmuls},
    {"pad-to-register-tiles", FormStage::Sizes, padToRegisterTiles},
    {"consumers-on-matrices", FormStage::Sizes, consumersOnMatrices},
    {"constant-b-in-column-blocks", FormStage::Sizes, constantBInColumnBlocks},
};
const Form kConvolutionForms[] = {
    {"convolutions-as-2d", FormStage::Ops, convolutionsAs2D},
    // Before the pointwise convolutions next to it become matmuls of NHWC
    // pixels.
    {"depthwise-channels-last", FormStage::Ops, depthwiseChannelsLast},
    {"convolutions-channels-last", FormStage::Ops, convolutionsChannelsLast},
    {"patches-as-matmuls", FormStage::Ops, patchesAsMatmuls},
    {"strided-points-as-slices", FormStage::Ops,
     contextFree<stridedPointsAsSlices>},
    // Before the elementwise forms collapse the ops the transposes pass.
    {"transposes-to-their-inverses", FormStage::Ops,
     contextFree<transposesToTheirInverses>},
    {"depthwise-as-channel-windows", FormStage::Ops,
     contextFree<depthwiseAsChannelWindows>},
    {"split-window-remainders", FormStage::Ops, splitWindowRemainders},
    {"version-on-batch-size", FormStage::Sizes, versionOnBatchSize},
};
const Form kReductionForms[] = {
    {"collapse-reduced-loops", FormStage::Ops,
     contextFree<collapseReducedLoops>},
    {"row-chains-in-row-loops", FormStage::Rows, rowChainsInRowLoops},
    {"index-reductions-as-row-reductions", FormStage::Rows,
     contextFree<indexReductionsAsRowReductions>},
    {"split-row-remainders", FormStage::Rows, contextFree<splitRowRemainders>},
};
const Form kElementwiseForms[] = {
    {"collapse-elementwise-rows", FormStage::Ops, collapseElementwiseRows},
};

const OpFamily kFamilies[] = {
    {"contraction", isContraction, selectContraction, kContractionKinds,
     verifyContraction, buildContraction, nullptr, kContractionForms},
    {"convolution", isConvolution, fusingNone<selectConvolution>,
     kConvolutionKinds, verifyConvolution, buildConvolution,
     runConvolutionKernels, kConvolutionForms},
    {"reduction", isReduction, fusingNone<selectReduction>, kReductionKinds,
     verifyReduction, buildReduction, nullptr, kReductionForms},
    {"elementwise", isElementwise, fusingNone<selectElementwise>,
     kElementwiseKinds, nullptr, buildElementwise, nullptr, kElementwiseForms},
    {"transpose", isTranspose, selectTransposeOp, kTransposeKinds,
     verifyTranspose, buildTranspose, nullptr, ArrayRef<Form>()},
};

} // namespace

ArrayRef<OpFamily> opFamilies() { return kFamilies; }

bool hasNoIterations(linalg::LinalgOp op) {
  return llvm::is_contained(op.getStaticLoopRanges(), 0);
}

void replaceOpsOfNoIterations(ModuleOp module) {
  SmallVector<linalg::LinalgOp> empty;
  module.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && hasNoIterations(op))
      empty.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : empty)
    rewriter.replaceOp(op, op.getDpsInits());
}

const OpFamily *familyOf(StrategyKind kind) {
  for (const OpFamily &family : kFamilies)
    if (llvm::is_contained(family.kinds, kind))
      return &family;
  return nullptr;
}

} // namespace lighthouse::cpu
