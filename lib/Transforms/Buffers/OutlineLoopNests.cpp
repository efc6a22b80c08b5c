//===- OutlineLoopNests.cpp - Functions of bounded size -------------------===//
//
// A model lowers to one function holding every op's loop nest. LLVM's loop
// passes (induction variable simplification, rotation, the vectorizer) spend
// time proportional to the size of the whole function on each loop, so the
// time to optimize one function grows with the square of the model: a stack
// of 8 transformer blocks took 23x as long as one. Runs of consecutive loop
// nests become functions of their own, which LLVM must not inline back, so
// that no function holds more than a bounded number of nests and the time
// grows with the model instead. Within a run LLVM still sees the nests
// together; a call between runs costs nanoseconds.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Buffers/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_OUTLINELOOPNESTS
#include "lighthouse/Transforms/Buffers/Passes.h.inc"

namespace {

bool isLoopNest(Operation &op) {
  return op.getNumRegions() != 0 && op.walk([](LoopLikeOpInterface) {
                                        return WalkResult::interrupt();
                                      }).wasInterrupted();
}

/// Stack memory lives as long as the frame of the function that allocates
/// it: an op that allocates on the stack, or saves or restores the stack
/// pointer, itself or in an op nested in it (outside nested allocation
/// scopes), stays in the caller.
bool touchesStack(Operation &top) {
  auto touches = [](Operation *op) {
    if (isa<LLVM::StackSaveOp, LLVM::StackRestoreOp>(op))
      return true;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return false;
    SmallVector<MemoryEffects::EffectInstance> allocations;
    effects.getEffects<MemoryEffects::Allocate>(allocations);
    return llvm::any_of(allocations, [](const auto &allocation) {
      return allocation.getResource() ==
             SideEffects::AutomaticAllocationScopeResource::get();
    });
  };
  return top
      .walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (op != &top && op->hasTrait<OpTrait::AutomaticAllocationScope>())
          return WalkResult::skip();
        return touches(op) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Values the outlined function recomputes rather than takes as arguments:
/// constants and the addresses of globals keep telling LLVM what they are.
bool isRematerializable(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getNumOperands() == 0 &&
         (def->hasTrait<OpTrait::ConstantLike>() ||
          isa<memref::GetGlobalOp>(def));
}

/// Moves the ops `run` (consecutive, in order) into a new private function
/// named after `caller` and placed after `previous`, which takes the values
/// they use from the caller and returns those the caller uses after them,
/// and calls it in their place. Returns the new function.
func::FuncOp outline(ArrayRef<Operation *> run, func::FuncOp caller,
                     Operation *previous, SymbolTable &symbols) {
  llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
  Block &block = caller.getBody().front();
  auto inRunOrNested = [&](Operation *op) {
    return inRun.contains(block.findAncestorOpInBlock(*op));
  };
  llvm::SetVector<Value> used;
  for (Operation *op : run) {
    used.insert(op->operand_begin(), op->operand_end());
    getUsedValuesDefinedAbove(op->getRegions(), used);
  }
  SmallVector<Value> arguments, recomputed, results;
  for (Value value : used) {
    Operation *def = value.getDefiningOp();
    if (!def || !inRun.contains(def))
      (isRematerializable(value) ? recomputed : arguments).push_back(value);
  }
  for (Operation *op : run)
    for (Value result : op->getResults())
      if (!llvm::all_of(result.getUsers(), inRunOrNested))
        results.push_back(result);

  MLIRContext *context = caller.getContext();
  Location loc = run.front()->getLoc();
  OpBuilder builder(context);
  builder.setInsertionPointAfter(previous);
  auto type = builder.getFunctionType(ValueRange(arguments).getTypes(),
                                      ValueRange(results).getTypes());
  auto callee = func::FuncOp::create(builder, loc,
                                     (caller.getName() + "_nests").str(), type);
  callee.setPrivate();
  // A private function called once is what LLVM's inliner inlines first.
  callee->setAttr("passthrough", builder.getStrArrayAttr({"noinline"}));
  callee->setAttr("llvm.linkage",
                  LLVM::LinkageAttr::get(context, LLVM::Linkage::Internal));
  symbols.insert(callee); // Makes the name unique.

  Block *body = callee.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  mapping.map(arguments, body->getArguments());
  for (Value value : recomputed)
    builder.clone(*value.getDefiningOp(), mapping);
  for (Operation *op : run)
    builder.clone(*op, mapping);
  SmallVector<Value> returned;
  for (Value result : results)
    returned.push_back(mapping.lookup(result));
  func::ReturnOp::create(builder, loc, returned);

  builder.setInsertionPoint(run.front());
  auto call = func::CallOp::create(builder, loc, callee, arguments);
  for (auto [result, replacement] : llvm::zip(results, call.getResults()))
    result.replaceAllUsesWith(replacement);
  for (Operation *op : llvm::reverse(run))
    op->erase();
  return callee;
}

class OutlineLoopNestsPass
    : public impl::OutlineLoopNestsBase<OutlineLoopNestsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (nestsPerFunction < 1) {
      module.emitError("lighthouse-outline-loop-nests: nests-per-function "
                       "must be at least 1, got ")
          << static_cast<int64_t>(nestsPerFunction);
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    for (auto caller : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (caller.isExternal() || !caller.getBody().hasOneBlock())
        continue;
      // Each top-level op, and whether it is a loop nest.
      SmallVector<std::pair<Operation *, bool>> ops;
      for (Operation &op : caller.getBody().front().without_terminator())
        ops.emplace_back(&op, isLoopNest(op));
      if (llvm::count_if(ops, [](auto op) { return op.second; }) <=
          nestsPerFunction)
        continue;
      // Runs of up to nestsPerFunction nests, each starting and ending with
      // a nest, with the ops between them but for constants (which the
      // callees recompute, and the caller keeps for its own uses); an op
      // touching the stack ends a run.
      SmallVector<SmallVector<Operation *>> runs;
      SmallVector<Operation *> run, pending;
      int64_t inRun = 0;
      auto close = [&] {
        if (inRun != 0)
          runs.push_back(std::move(run));
        run.clear();
        pending.clear();
        inRun = 0;
      };
      for (auto [op, nest] : ops) {
        if (touchesStack(*op)) {
          close();
          continue;
        }
        if (op->getNumResults() == 1 && isRematerializable(op->getResult(0)))
          continue;
        if (!nest) {
          if (inRun != 0)
            pending.push_back(op);
          continue;
        }
        run.append(pending);
        pending.clear();
        run.push_back(op);
        if (++inRun == nestsPerFunction)
          close();
      }
      close();
      Operation *previous = caller;
      for (ArrayRef<Operation *> each : runs)
        previous = outline(each, caller, previous, symbols);
    }
  }
};

} // namespace

} // namespace lighthouse
