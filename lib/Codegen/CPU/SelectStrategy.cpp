//===- SelectStrategy.cpp - Choose a strategy per op ----------------------===//
//
// `lighthouse-cpu-select-strategy` classifies each linalg op by family
// through Linalg's interfaces and records the strategy its family's policy
// chooses (Families.h). Dispatch only: the policies are in the family
// files.
//
//===----------------------------------------------------------------------===//

#include "Families.h"

#include "lighthouse/Codegen/CPU/Passes.h"
#include "lighthouse/Transforms/Vectorizable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_CPUSELECTSTRATEGY
#include "lighthouse/Codegen/CPU/Passes.h.inc"

namespace {

using namespace cpu;

class CPUSelectStrategyPass
    : public impl::CPUSelectStrategyBase<CPUSelectStrategyPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<SelectionContext> context = selectionContext(module);
    if (failed(context))
      return signalPassFailure();
    // Variants rewritten into the forms the policies take.
    splitBatchMatmuls(module, *context);
    convolutionsAs2D(module, *context);
    patchesAsMatmuls(module);
    stridedPointsAsSlices(module);
    depthwiseAsChannelWindows(module);
    splitWindowRemainders(module, *context);
    collapseReducedLoops(module);
    collapseElementwiseRows(module, *context);
    rowChainsInRowLoops(module, *context);
    indexReductionsAsRowReductions(module);
    splitRowRemainders(module);
    padToRegisterTiles(module, *context);
    versionOnBatchSize(module, *context);
    Strategy fusedStrategy(StrategyKind::Fused);
    // Ops inside an scf.forall (a batch of matmuls split across the threads)
    // run on the thread of their iteration: no split of their own.
    SelectionContext oneThread = *context;
    oneThread.target.threads = 1;
    module.walk([&](linalg::LinalgOp op) {
      // Ops that stay scalar but elementwise ones (split across threads
      // only), and ops with a strategy already: fused into an earlier op's,
      // or chosen with the versions of their batch.
      if ((staysScalar(op) && !linalg::isElementwise(op)) ||
          op->hasAttr(kStrategyAttrName))
        return;
      const SelectionContext &opContext =
          op->getParentOfType<scf::ForallOp>() ? oneThread : *context;
      std::optional<Strategy> strategy;
      SmallVector<Operation *> fused;
      // A contraction reduces: `a * b + c` elementwise has the body of one.
      bool contraction =
          linalg::isaContractionOpInterface(op) && op.getNumReductionLoops();
      bool convolution = !contraction && linalg::isaConvolutionOpInterface(op);
      if (contraction)
        strategy = selectContraction(op, opContext, fused);
      else if (convolution)
        strategy = selectConvolution(op, opContext);
      else if (auto transpose = dyn_cast<linalg::TransposeOp>(*op))
        strategy = selectTranspose(transpose, opContext);
      else if (linalg::isElementwise(op))
        strategy = selectElementwise(op, opContext);
      // Reductions no other family takes, row-wise dot products (contractions
      // of no form the contraction policy takes) among them.
      if (!strategy && !convolution && op.getNumReductionLoops())
        strategy = selectReduction(op, opContext);
      if (!strategy)
        return;
      setStrategy(op, *strategy);
      for (Operation *consumer : fused)
        setStrategy(consumer, fusedStrategy);
    });
  }

private:
  FailureOr<SelectionContext> selectionContext(ModuleOp module) {
    auto positive = [](int64_t size) { return size > 0; };
    if (cacheTiles.size() != 3 || !llvm::all_of(cacheTiles, positive) ||
        (!registerTiles.empty() &&
         (registerTiles.size() != 3 || !llvm::all_of(registerTiles, positive))))
      return module.emitError(
          "lighthouse-cpu-select-strategy: cache-tiles and register-tiles "
          "take three positive sizes each (M, N, K)");
    FailureOr<CPUTarget> resolved = resolveTarget(module, target, threads);
    if (failed(resolved))
      return failure();
    // What the strategies were chosen for is what the passes after read
    // (the register kernel's bounds).
    module->setAttr(kTargetAttrName, resolved->toAttr(&getContext()));
    SelectionContext context;
    context.target = *resolved;
    context.cacheTiles.assign(cacheTiles.begin(), cacheTiles.end());
    // Register tiles of 8 rows by two f32 vector registers by 8 of K: 16
    // accumulators of 32 (AVX-512), whose FMAs hide each other's latency.
    if (registerTiles.empty())
      context.registerTiles = {
          8, 2 * resolved->elementsPerRegister(Float32Type::get(&getContext())),
          8};
    else
      context.registerTiles.assign(registerTiles.begin(), registerTiles.end());
    context.packB = packB;
    context.fuseConsumers = fuseConsumers;
    return context;
  }
};

} // namespace

} // namespace lighthouse
