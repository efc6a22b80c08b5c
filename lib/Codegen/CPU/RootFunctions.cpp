//===- RootFunctions.cpp - Each root in a function of its own -------------===//

#include "RootFunctions.h"

#include "lighthouse/Codegen/CPU/Strategy.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace lighthouse::cpu {

namespace {

/// Ops cloned into a root's function rather than passed to it: what a
/// strategy reads off its producers (a fill of C, the sizes of a tensor, what
/// a size is a multiple of: rows = 16 x batch) and the constants it folds.
bool isClonedIn(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>() ||
      isa<tensor::EmptyOp, tensor::DimOp, linalg::FillOp>(op))
    return true;
  return op->getNumRegions() == 0 && isPure(op) &&
         llvm::all_of(op->getResultTypes(),
                      [](Type type) { return type.isIndex(); });
}

/// `root` and the chain of ops its strategy computes in its loops: each the
/// only user of the one before, with the `fused` strategy.
SmallVector<Operation *> rootAndFused(Operation *root) {
  SmallVector<Operation *> ops = {root};
  while (ops.back()->getNumResults() == 1 &&
         ops.back()->getResult(0).hasOneUse()) {
    Operation *user = *ops.back()->getResult(0).user_begin();
    FailureOr<std::optional<Strategy>> strategy = getStrategy(user);
    if (failed(strategy) || !*strategy ||
        (*strategy)->kind != StrategyKind::Fused ||
        user->getBlock() != root->getBlock())
      break;
    ops.push_back(user);
  }
  return ops;
}

} // namespace

Operation *outlineRoot(ModuleOp module, Operation *root, SymbolTable &symbols,
                       SmallVectorImpl<StringAttr> &functions) {
  SmallVector<Operation *> moved = rootAndFused(root);
  auto dynamic = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && !shaped.hasStaticShape();
  };
  if (llvm::any_of(moved, [&](Operation *op) {
        return llvm::any_of(op->getOperandTypes(), dynamic) ||
               llvm::any_of(op->getResultTypes(), dynamic);
      }))
    return root;
  llvm::SmallPtrSet<Operation *, 4> inMoved(moved.begin(), moved.end());
  auto isInside = [&](Value value) {
    Operation *owner =
        isa<BlockArgument>(value)
            ? cast<BlockArgument>(value).getOwner()->getParentOp()
            : value.getDefiningOp();
    for (; owner; owner = owner->getParentOp())
      if (inMoved.contains(owner))
        return true;
    return false;
  };

  MLIRContext *context = root->getContext();
  OpBuilder b(context);
  b.setInsertionPointToEnd(module.getBody());
  auto function = func::FuncOp::create(b, root->getLoc(), "__lighthouse_root",
                                       FunctionType::get(context, {}, {}));
  function.setPrivate();
  symbols.insert(function);
  Block *body = function.addEntryBlock();
  b.setInsertionPointToStart(body);

  // What the ops read from outside: cloned in, or an argument.
  IRMapping mapping;
  SmallVector<Value> arguments;
  std::function<void(Value)> provide = [&](Value value) {
    if (mapping.contains(value) || isInside(value))
      return;
    Operation *producer = value.getDefiningOp();
    if (producer && isClonedIn(producer)) {
      for (Value operand : producer->getOperands())
        provide(operand);
      b.clone(*producer, mapping);
      return;
    }
    mapping.map(value, body->addArgument(value.getType(), value.getLoc()));
    arguments.push_back(value);
  };
  for (Operation *op : moved)
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        provide(operand);
    });
  Operation *inFunction = nullptr;
  for (Operation *op : moved) {
    Operation *clone = b.clone(*op, mapping);
    if (op == root)
      inFunction = clone;
  }

  // What is read after them: the function's results.
  SmallVector<Value> results, returned;
  for (Operation *op : moved)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !inMoved.contains(user);
          })) {
        results.push_back(result);
        returned.push_back(mapping.lookup(result));
      }
  func::ReturnOp::create(b, root->getLoc(), returned);
  function.setType(FunctionType::get(context, body->getArgumentTypes(),
                                     ValueRange(returned).getTypes()));

  b.setInsertionPointAfter(moved.back());
  auto call = func::CallOp::create(b, root->getLoc(), function, arguments);
  for (auto [result, value] : llvm::zip(results, call.getResults()))
    result.replaceAllUsesWith(value);
  for (Operation *op : llvm::reverse(moved))
    op->erase();
  functions.push_back(function.getSymNameAttr());
  return inFunction;
}

void inlineRoots(ModuleOp module, ArrayRef<StringAttr> functions) {
  SymbolTable symbols(module);
  llvm::DenseMap<StringAttr, func::FuncOp> byName;
  for (StringAttr name : functions)
    byName[name] = symbols.lookup<func::FuncOp>(name);
  SmallVector<std::pair<func::CallOp, func::FuncOp>> calls;
  llvm::SetVector<Operation *> callers;
  module.walk([&](func::CallOp call) {
    auto found = byName.find(call.getCalleeAttr().getAttr());
    if (found != byName.end()) {
      calls.push_back({call, found->second});
      callers.insert(call->getParentOfType<FunctionOpInterface>());
    }
  });
  for (auto [call, function] : calls) {
    Block &body = function.getBody().front();
    for (auto [argument, operand] :
         llvm::zip(body.getArguments(), call.getOperands()))
      argument.replaceAllUsesWith(operand);
    Operation *terminator = body.getTerminator();
    call.replaceAllUsesWith(terminator->getOperands());
    call->getBlock()->getOperations().splice(Block::iterator(call),
                                             body.getOperations(), body.begin(),
                                             Block::iterator(terminator));
    call.erase();
    function.erase();
  }
  // Each function made its own constants and sizes, as the caller had.
  IRRewriter rewriter(module.getContext());
  DominanceInfo dominance;
  for (Operation *caller : callers)
    eliminateCommonSubExpressions(rewriter, dominance, caller);
}

} // namespace lighthouse::cpu
