//===- ReadOnlyArguments.cpp - Callers keep their inputs ------------------===//
//
// One-shot bufferization takes the tensor arguments of a function as writable
// buffers: `math.exp %a` may then overwrite the caller's array with its
// result. lighthouse's callers (numpy arrays, torch tensors) own their inputs,
// so the public functions' tensor arguments are marked read-only; the
// bufferization copies instead where a result would have taken their place.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Boundary/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_READONLYARGUMENTS
#include "lighthouse/Transforms/Boundary/Passes.h.inc"

namespace {

class ReadOnlyArgumentsPass
    : public impl::ReadOnlyArgumentsBase<ReadOnlyArgumentsPass> {
public:
  void runOnOperation() override {
    auto readOnly = BoolAttr::get(&getContext(), false);
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      if (!function.isPublic() || function.isExternal())
        continue;
      for (auto [index, type] : llvm::enumerate(function.getArgumentTypes()))
        if (isa<TensorType>(type))
          function.setArgAttr(
              index, bufferization::BufferizationDialect::kWritableAttrName,
              readOnly);
    }
  }
};

} // namespace

} // namespace lighthouse
