//===- StridedCopiesToLoops.cpp - Copies that LLVM can vectorize ----------===//
//
// A memref.copy between buffers that are not both contiguous (the interior
// of a padded image, a slice of a larger tensor) lowers to a call of the
// runtime's memrefCopy, which walks the elements one by one through their
// descriptors. `lighthouse-strided-copies-to-loops` rewrites those copies
// into linalg.copy, which become loops whose contiguous innermost dimension
// LLVM vectorizes. Copies of contiguous buffers stay memref.copy (memcpy).
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Pipelines/Pipelines.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace lighthouse {
namespace {

class StridedCopiesToLoopsPass
    : public PassWrapper<StridedCopiesToLoopsPass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StridedCopiesToLoopsPass)

  StringRef getArgument() const override {
    return "lighthouse-strided-copies-to-loops";
  }
  StringRef getDescription() const override {
    return "Rewrite memref.copy between buffers that are not both "
           "contiguous into linalg.copy, which lowers to loops instead of a "
           "runtime call";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect>();
  }

  void runOnOperation() override {
    auto contiguous = [](Value buffer) {
      auto type = dyn_cast<MemRefType>(buffer.getType());
      return type && type.getLayout().isIdentity();
    };
    getOperation().walk([&](memref::CopyOp copy) {
      if (contiguous(copy.getSource()) && contiguous(copy.getTarget()))
        return;
      if (!isa<MemRefType>(copy.getSource().getType()) ||
          !isa<MemRefType>(copy.getTarget().getType()))
        return;
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    });
  }
};

} // namespace

void registerStridedCopiesToLoopsPass() {
  PassRegistration<StridedCopiesToLoopsPass>();
}

} // namespace lighthouse
