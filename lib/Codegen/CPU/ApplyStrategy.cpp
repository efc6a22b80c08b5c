//===- ApplyStrategy.cpp - Apply the strategy of each op ------------------===//
//
// `lighthouse-cpu-apply-strategy` builds one transform script for the
// module: a sequence per op with a strategy, made by the builder of its
// kind (the family table, OpFamilies.h), then the lowering of what they
// vectorized into FMAs. It applies the script with each root in a function
// of its own (RootFunctions.h), inlines them back, runs the register
// kernels, and removes the strategies.
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"
#include "RootFunctions.h"
#include "TransformBuilders.h"

#include "lighthouse/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/TransformOps/DialectExtension.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/MemRef/TransformOps/MemRefTransformOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/TransformOps/SCFTransformOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/TransformOps/TensorTransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Dialect/Transform/LoopExtension/LoopExtension.h"
#include "mlir/Dialect/Transform/LoopExtension/LoopExtensionOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_CPUAPPLYSTRATEGY
#include "lighthouse/Codegen/CPU/Passes.h.inc"

namespace {

using namespace cpu;

/// On each op with a strategy while the script runs: its position, by which
/// its sequence finds it (it may have been rewritten by an earlier one).
constexpr llvm::StringLiteral kRootAttrName = "lighthouse.strategy_root";

} // namespace

Value cpu::matchRoot(ImplicitLocOpBuilder &b, Value scope, Operation *root) {
  return transform::MatchOp::create(
      b, transform::AnyOpType::get(b.getContext()), scope,
      b.getStrArrayAttr({root->getName().getStringRef()}),
      /*interface=*/nullptr,
      b.getDictionaryAttr(
          b.getNamedAttr(kRootAttrName, root->getAttr(kRootAttrName))),
      /*filter_result_type=*/nullptr,
      /*filter_operand_types=*/nullptr);
}

namespace {

struct Root {
  Operation *op;
  Strategy strategy;
};

/// Checks what the builders rely on, so that a strategy written by hand
/// that does not fit its op is an error naming it, not a failed transform.
LogicalResult verifyStrategy(Operation *op, const Strategy &strategy) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return op->emitError() << kStrategyAttrName
                           << " is for linalg ops on tensors";
  if (hasNoIterations(linalgOp))
    return op->emitError() << kStrategyAttrName
                           << " is for ops with iterations; this op has a "
                              "loop of size 0 (its results are its inits)";
  for (ArrayRef<int64_t> level :
       {ArrayRef(strategy.threads), ArrayRef(strategy.threadCounts),
        ArrayRef(strategy.cache), ArrayRef(strategy.registers),
        ArrayRef(strategy.vector)})
    if (level.size() > linalgOp.getNumLoops())
      return op->emitError()
             << kStrategyAttrName << ": " << level.size()
             << " sizes for an op of " << linalgOp.getNumLoops() << " loops";
  // Fused ops have nothing more to check: their producer's builder
  // computes them.
  const OpFamily *family = familyOf(strategy.kind);
  if (!family || !family->verify)
    return success();
  return family->verify(op, strategy);
}

/// Lowers what the strategies vectorized: first folds the broadcasts and
/// transposes of the vectorized matmuls into vector.contract, then lowers
/// those to FMAs on rows of N; then keeps what each loop reads and writes
/// back at the same place (the block of C of a register tile) in registers
/// across the loop (the places compare equal once their offsets are one
/// value each, after CSE).
void buildVectorLowering(ImplicitLocOpBuilder &b, Value module) {
  tx::Handle functions = tx::match(b, module, "func.func");
  tx::applyPatterns(b, functions, [](ImplicitLocOpBuilder &p) {
    transform::ApplyVectorReductionToContractPatternsOp::create(p);
    transform::ApplyTransferPermutationPatternsOp::create(p);
    transform::ApplyCanonicalizationPatternsOp::create(p);
  });
  tx::applyPatterns(b, functions, [](ImplicitLocOpBuilder &p) {
    transform::ApplyLowerContractionPatternsOp::create(
        p, vector::VectorContractLowering::OuterProduct);
    transform::ApplyLowerOuterProductPatternsOp::create(p);
    transform::ApplyCanonicalizationPatternsOp::create(p);
  });
  tx::applyCSE(b, functions);
  transform::HoistLoopInvariantSubsetsOp::create(
      b, tx::match(b, module, "scf.for"));
  tx::applyPatterns(b, functions, [](ImplicitLocOpBuilder &p) {
    transform::ApplyCanonicalizationPatternsOp::create(p);
  });
  tx::applyCSE(b, functions);
}

/// The script: for each root, a sequence whose silenceable failures (an op
/// the vectorizer turns down, say) are suppressed, so that the op is left
/// as far as its sequence got, tiled loops at worst, and the others go on;
/// then the vector lowering.
OwningOpRef<ModuleOp> buildScript(Location loc, ArrayRef<Root> roots) {
  MLIRContext *context = loc.getContext();
  OwningOpRef<ModuleOp> script = ModuleOp::create(loc);
  (*script)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                     UnitAttr::get(context));
  ImplicitLocOpBuilder b(loc, context);
  b.setInsertionPointToEnd(script->getBody());
  Type anyOp = transform::AnyOpType::get(context);
  auto readOnly = b.getDictionaryAttr(b.getNamedAttr(
      transform::TransformDialect::kArgReadOnlyAttrName, b.getUnitAttr()));
  transform::NamedSequenceOp::create(
      b, transform::TransformDialect::kTransformEntryPointSymbolName, anyOp,
      TypeRange(),
      [&](OpBuilder &builder, Location loc, BlockArgument module) {
        ImplicitLocOpBuilder body(loc, builder);
        for (const Root &root : roots) {
          transform::SequenceOp::create(
              body, TypeRange(), transform::FailurePropagationMode::Suppress,
              module,
              [&](OpBuilder &builder, Location loc, BlockArgument scope) {
                ImplicitLocOpBuilder b(loc, builder);
                familyOf(root.strategy.kind)
                    ->build({b, matchRoot(b, scope, root.op), root.op,
                             root.strategy});
                transform::YieldOp::create(b);
              });
        }
        buildVectorLowering(body, module);
        transform::YieldOp::create(body);
      },
      /*attrs=*/{}, /*argAttrs=*/{readOnly});
  return script;
}

class CPUApplyStrategyPass
    : public impl::CPUApplyStrategyBase<CPUApplyStrategyPass> {
public:
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // The transform ops the builders create, in any context.
    linalg::registerTransformDialectExtension(registry);
    memref::registerTransformDialectExtension(registry);
    scf::registerTransformDialectExtension(registry);
    tensor::registerTransformDialectExtension(registry);
    vector::registerTransformDialectExtension(registry);
    transform::registerLoopExtension(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CPUTarget> target = resolveTarget(module, "", 0);
    if (failed(target))
      return signalPassFailure();
    std::vector<Root> roots;
    WalkResult walked = module.walk([&](Operation *op) {
      FailureOr<std::optional<Strategy>> strategy = getStrategy(op);
      if (failed(strategy) ||
          (*strategy && failed(verifyStrategy(op, **strategy))))
        return WalkResult::interrupt();
      if (*strategy && (*strategy)->kind != StrategyKind::Fused)
        roots.push_back({op, **strategy});
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return signalPassFailure();
    LogicalResult applied = success();
    SmallVector<StringAttr> functions;
    if (!roots.empty()) {
      Builder builder(&getContext());
      SymbolTable symbols(module);
      for (size_t index = 0; index < roots.size(); ++index) {
        roots[index].op->setAttr(kRootAttrName,
                                 builder.getI64IntegerAttr(index));
        roots[index].op =
            outlineRoot(module, roots[index].op, symbols, functions);
      }
      OwningOpRef<ModuleOp> script = buildScript(module.getLoc(), roots);
      if (failed(verify(*script))) {
        inlineRoots(module, functions);
        module.emitError("lighthouse-cpu-apply-strategy: the transform script "
                         "built does not verify");
        return signalPassFailure();
      }
      if (printScript)
        script->print(llvm::errs());
      applied = transform::applyTransforms(
          module,
          script->lookupSymbol<transform::NamedSequenceOp>(
              transform::TransformDialect::kTransformEntryPointSymbolName),
          /*extraMapping=*/{}, transform::TransformOptions(),
          /*enforceToplevelTransformOp=*/false);
      inlineRoots(module, functions);
      for (const OpFamily &family : opFamilies())
        if (family.afterTransforms)
          family.afterTransforms(module, *target);
    }
    module.walk([](Operation *op) {
      op->removeAttr(kStrategyAttrName);
      op->removeAttr(kRootAttrName);
      op->removeAttr(kLargeBatchAttrName);
    });
    if (failed(applied))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
