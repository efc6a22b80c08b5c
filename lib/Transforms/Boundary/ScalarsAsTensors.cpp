//===- ScalarsAsTensors.cpp - Scalar arguments and results as 0-d tensors -===//
//
// lighthouse's calling convention passes buffers (memref descriptors) only.
// A public function's integer, float and index arguments and results become
// 0-d tensors, read with tensor.extract on entry and made with
// tensor.from_elements on return, so that a function of scalars (a model's
// `x * s` with a Python float `s`) is called like any other. Index values
// cross as i64.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Boundary/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_SCALARSASTENSORS
#include "lighthouse/Transforms/Boundary/Passes.h.inc"

namespace {

bool isScalar(Type type) { return type.isIntOrIndexOrFloat(); }

/// The 0-d tensor a scalar of `type` crosses the boundary as.
RankedTensorType boundaryType(Type type) {
  return RankedTensorType::get(
      {}, type.isIndex() ? IntegerType::get(type.getContext(), 64) : type);
}

class ScalarsAsTensorsPass
    : public impl::ScalarsAsTensorsBase<ScalarsAsTensorsPass> {
public:
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      if (!function.isPublic() || function.isExternal())
        continue;
      Block &entry = function.front();
      auto b = OpBuilder::atBlockBegin(&entry);
      for (BlockArgument argument : entry.getArguments()) {
        Type type = argument.getType();
        if (!isScalar(type))
          continue;
        Location loc = argument.getLoc();
        argument.setType(boundaryType(type));
        auto extract =
            tensor::ExtractOp::create(b, loc, argument, ValueRange{});
        Value value = extract;
        if (type.isIndex())
          value = arith::IndexCastOp::create(b, loc, type, value);
        argument.replaceAllUsesExcept(value, extract);
      }
      SmallVector<Type> results;
      function.walk([&](func::ReturnOp ret) {
        OpBuilder b(ret);
        results.clear();
        for (OpOperand &operand : ret->getOpOperands()) {
          Value value = operand.get();
          Type type = value.getType();
          if (isScalar(type)) {
            if (type.isIndex())
              value = arith::IndexCastOp::create(b, ret.getLoc(),
                                                 b.getI64Type(), value);
            value = tensor::FromElementsOp::create(
                b, ret.getLoc(), boundaryType(type), ValueRange{value});
            operand.set(value);
          }
          results.push_back(operand.get().getType());
        }
      });
      if (results.size() != function.getNumResults())
        results.assign(function.getResultTypes().begin(),
                       function.getResultTypes().end());
      function.setFunctionType(
          b.getFunctionType(entry.getArgumentTypes(), results));
    }
  }
};

} // namespace

} // namespace lighthouse
