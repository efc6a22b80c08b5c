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
// A model repeats itself: BERT-base's 12 layers are the same loop nests on
// other weights. Outlined functions that compute the same from their
// arguments, but for the globals they read, become one function taking
// those globals as arguments, so that the rest of the pipeline and LLVM
// compile each distinct nest once.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Buffers/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/MapVector.h"

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
/// and calls it in their place. Returns the call.
func::CallOp outline(ArrayRef<Operation *> run, func::FuncOp caller,
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
  return call;
}

/// A hash of what `function` computes from its arguments, equal for two
/// functions that differ only in the names of the globals they read: values
/// are numbered in the order they are defined, and a memref.get_global
/// counts for its type alone.
llvm::hash_code hashUpToGlobals(func::FuncOp function) {
  DenseMap<Value, unsigned> numbers;
  llvm::hash_code hash = hash_value(function.getFunctionType());
  auto numberOf = [&](Value value) {
    return llvm::hash_value(numbers.lookup(value));
  };
  auto hashRegion = [&](Region &region, auto &recurse) -> void {
    for (Block &block : region) {
      for (BlockArgument argument : block.getArguments()) {
        numbers.try_emplace(argument, numbers.size());
        hash = llvm::hash_combine(hash, argument.getType());
      }
      for (Operation &op : block) {
        hash = llvm::hash_combine(
            hash,
            isa<memref::GetGlobalOp>(op)
                ? llvm::hash_combine(op.getName(), op.getResultTypes())
                : OperationEquivalence::computeHash(
                      &op, numberOf, OperationEquivalence::ignoreHashValue,
                      OperationEquivalence::IgnoreLocations));
        for (Value result : op.getResults())
          numbers.try_emplace(result, numbers.size());
        for (Region &nested : op.getRegions())
          recurse(nested, recurse);
        hash = llvm::hash_combine(hash, op.getNumRegions());
      }
    }
  };
  hashRegion(function.getBody(), hashRegion);
  return hash;
}

/// Turns the globals `call`'s callee reads at its top level into arguments,
/// which `call` passes.
void globalsAsArguments(func::CallOp call, SymbolTable &symbols) {
  auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
  Block &body = callee.getBody().front();
  OpBuilder builder(call);
  SmallVector<Value> operands(call.getOperands());
  for (auto global :
       llvm::make_early_inc_range(body.getOps<memref::GetGlobalOp>())) {
    global.replaceAllUsesWith(
        body.addArgument(global.getType(), global.getLoc()));
    operands.push_back(builder.clone(*global)->getResult(0));
    global.erase();
  }
  callee.setType(builder.getFunctionType(body.getArgumentTypes(),
                                         callee.getResultTypes()));
  call->setOperands(operands);
}

/// Merges the callees of `calls` that compute the same from their
/// arguments, whatever globals they read: each group's callees take their
/// globals as arguments, and its calls call its first callee.
void mergeEquivalentCallees(ArrayRef<func::CallOp> calls,
                            SymbolTable &symbols) {
  llvm::MapVector<llvm::hash_code, SmallVector<func::CallOp>> byHash;
  for (func::CallOp call : calls)
    byHash[hashUpToGlobals(symbols.lookup<func::FuncOp>(call.getCallee()))]
        .push_back(call);
  for (auto &[hash, group] : byHash) {
    if (group.size() < 2)
      continue;
    for (func::CallOp call : group)
      globalsAsArguments(call, symbols);
    // Distinct functions that share a hash stay as they are; each is
    // compared with the first of its group found equivalent to nothing yet.
    SmallVector<func::FuncOp> kept;
    for (func::CallOp call : group) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      auto same = llvm::find_if(kept, [&](func::FuncOp other) {
        return other.getFunctionType() == callee.getFunctionType() &&
               OperationEquivalence::isRegionEquivalentTo(
                   &other.getBody(), &callee.getBody(),
                   OperationEquivalence::IgnoreLocations);
      });
      if (same == kept.end()) {
        kept.push_back(callee);
        continue;
      }
      call.setCallee(same->getSymName());
      symbols.erase(callee);
    }
  }
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
    SmallVector<func::CallOp> calls;
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
      for (ArrayRef<Operation *> each : runs) {
        calls.push_back(outline(each, caller, previous, symbols));
        previous = symbols.lookup(calls.back().getCallee());
      }
      // Constants and global addresses only the callees used.
      for (Operation &op : llvm::make_early_inc_range(
               caller.getBody().front().without_terminator()))
        if (op.getNumResults() == 1 && isRematerializable(op.getResult(0)) &&
            op.use_empty())
          op.erase();
    }
    if (mergeEquivalent)
      mergeEquivalentCallees(calls, symbols);
  }
};

} // namespace

} // namespace lighthouse
