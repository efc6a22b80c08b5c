//===- SelectStrategy.cpp - Choose a strategy per op ----------------------===//
//
// `lighthouse-cpu-select-strategy` asks, for each linalg op, the policies of
// the op families that take it (the family table, OpFamilies.h) for a
// strategy and records the first one chosen. It reads the IR and writes
// strategies: the rewrites into the forms the policies take run before it,
// in lighthouse-cpu-prepare-forms.
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"

#include "lighthouse/Codegen/CPU/Passes.h"
#include "lighthouse/Transforms/Utils/Vectorizable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_CPUSELECTSTRATEGY
#include "lighthouse/Codegen/CPU/Passes.h.inc"

FailureOr<cpu::SelectionContext>
cpu::resolveSelectionContext(ModuleOp module, StringRef pass, StringRef target,
                             int64_t threads, ArrayRef<int64_t> cacheTiles,
                             ArrayRef<int64_t> registerTiles, bool packB,
                             bool fuseConsumers) {
  auto positive = [](int64_t size) { return size > 0; };
  if (cacheTiles.size() != 3 || !llvm::all_of(cacheTiles, positive) ||
      (!registerTiles.empty() &&
       (registerTiles.size() != 3 || !llvm::all_of(registerTiles, positive))))
    return module.emitError(pass)
           << ": cache-tiles and register-tiles take three positive sizes "
              "each (M, N, K)";
  FailureOr<CPUTarget> resolved = resolveTarget(module, target, threads);
  if (failed(resolved))
    return failure();
  SelectionContext context;
  context.target = *resolved;
  context.cacheTiles.assign(cacheTiles.begin(), cacheTiles.end());
  // Register tiles of 8 rows by two f32 vector registers by 8 of K: 16
  // accumulators of 32 (AVX-512), whose FMAs hide each other's latency.
  if (registerTiles.empty())
    context.registerTiles = {8,
                             2 * resolved->elementsPerRegister(
                                     Float32Type::get(module.getContext())),
                             8};
  else
    context.registerTiles.assign(registerTiles.begin(), registerTiles.end());
  context.packB = packB;
  context.fuseConsumers = fuseConsumers;
  return context;
}

namespace {

using namespace cpu;

class CPUSelectStrategyPass
    : public impl::CPUSelectStrategyBase<CPUSelectStrategyPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<SelectionContext> context = resolveSelectionContext(
        module, getArgument(), target, threads, cacheTiles, registerTiles,
        packB, fuseConsumers);
    if (failed(context))
      return signalPassFailure();
    // What the strategies were chosen for is what the passes after read
    // (the register kernel's bounds).
    module->setAttr(kTargetAttrName, context->target.toAttr(&getContext()));
    Strategy fusedStrategy(StrategyKind::Fused);
    // Ops inside an scf.forall (a batch of matmuls split across the threads)
    // run on the thread of their iteration: no split of their own.
    SelectionContext oneThread = *context;
    oneThread.target.threads = 1;
    module.walk([&](linalg::LinalgOp op) {
      // Ops that stay scalar but elementwise ones (split across threads
      // only), ops of no iterations (prepare-forms removes them; skipped,
      // loops), and ops with a strategy already: fused into an earlier op's.
      if ((staysScalar(op) && !linalg::isElementwise(op)) ||
          hasNoIterations(op) || op->hasAttr(kStrategyAttrName))
        return;
      const SelectionContext &opContext =
          op->getParentOfType<scf::ForallOp>() ? oneThread : *context;
      SmallVector<Operation *> fused;
      for (const OpFamily &family : opFamilies()) {
        if (!family.takes(op))
          continue;
        std::optional<Strategy> strategy = family.select(op, opContext, fused);
        if (!strategy)
          continue;
        setStrategy(op, *strategy);
        for (Operation *consumer : fused)
          setStrategy(consumer, fusedStrategy);
        return;
      }
    });
  }
};

} // namespace

} // namespace lighthouse
