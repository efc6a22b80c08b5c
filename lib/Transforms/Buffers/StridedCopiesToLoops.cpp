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

#include "lighthouse/Transforms/Buffers/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_STRIDEDCOPIESTOLOOPS
#include "lighthouse/Transforms/Buffers/Passes.h.inc"

namespace {

class StridedCopiesToLoopsPass
    : public impl::StridedCopiesToLoopsBase<StridedCopiesToLoopsPass> {
public:
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

} // namespace lighthouse
