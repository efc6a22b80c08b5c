//===- LowerTMTensor.cpp - tm_tensor ops as loops on tensors --------------===//
//
// The pass of TMTensor.h: each tm_tensor op by its lowering, one file per op.
//
//===----------------------------------------------------------------------===//

#include "TMTensor.h"
#include "lighthouse/Transforms/Tensors/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_LOWERTMTENSOR
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

using namespace tm_tensor;

class LowerTMTensorPass : public impl::LowerTMTensorBase<LowerTMTensorPass> {
public:
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (op->getName().getDialectNamespace() == "tm_tensor" &&
          op->getName().getStringRef() != "tm_tensor.yield")
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      using Lowering = LogicalResult (*)(const TMTensorOp &, OpBuilder &);
      Lowering lower =
          llvm::StringSwitch<Lowering>(op->getName().stripDialect())
              .Case("scan", lowerScan)
              .Case("scatter", lowerScatter)
              .Case("sort", lowerSort)
              .Case("topk", lowerTopk)
              .Default(nullptr);
      if (!lower) {
        op->emitOpError("cannot be lowered by lighthouse: no lowering of "
                        "this op");
        return signalPassFailure();
      }
      FailureOr<TMTensorOp> tm = readOperands(op);
      OpBuilder b(op);
      if (failed(tm) || failed(lower(*tm, b)))
        return signalPassFailure();
      op->erase();
    }
  }
};

} // namespace

} // namespace lighthouse
