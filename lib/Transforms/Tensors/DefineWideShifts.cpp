//===- DefineWideShifts.cpp - Shifts by the bit width or more -------------===//
//
// arith's shifts by an amount of the bit width or more (or negative, read
// as unsigned) are poison, and LLVM's x86 code masks the amount instead: a
// left shift of an i32 by 40 shifts by 8. torch (bitwise_left_shift,
// <<), numpy and ONNX's BitShift define them: left and logical right shifts
// give 0, arithmetic right shifts the sign. torch-mlir lowers those ops to
// the bare arith ops, so each shift here gets a compare and a select of the
// defined result, which vectorize with it.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Tensors/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_DEFINEWIDESHIFTS
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

/// Whether `amount` is known to be less than `width` (a constant, or a
/// splat of one).
bool knownNarrow(Value amount, unsigned width) {
  APInt constant;
  return matchPattern(amount, m_ConstantInt(&constant)) && constant.ult(width);
}

class DefineWideShiftsPass
    : public impl::DefineWideShiftsBase<DefineWideShiftsPass> {
public:
  void runOnOperation() override {
    SmallVector<Operation *> shifts;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp>(op))
        shifts.push_back(op);
    });
    for (Operation *shift : shifts) {
      Value value = shift->getOperand(0), amount = shift->getOperand(1);
      Type type = value.getType();
      // Index is 64 bits on the targets lighthouse compiles for.
      Type element = getElementTypeOrSelf(type);
      unsigned width = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
      if (knownNarrow(amount, width))
        continue;
      OpBuilder b(shift->getContext());
      b.setInsertionPointAfter(shift);
      Location loc = shift->getLoc();
      auto splat = [&](int64_t v) -> Value {
        TypedAttr scalar = b.getIntegerAttr(getElementTypeOrSelf(type), v);
        if (auto shaped = dyn_cast<ShapedType>(type))
          scalar = DenseElementsAttr::get(shaped, scalar);
        return arith::ConstantOp::create(b, loc, type, scalar);
      };
      // In range, read as unsigned: a negative amount is out of range too.
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            amount, splat(width));
      Value outOfRange =
          isa<arith::ShRSIOp>(shift)
              ? arith::ShRSIOp::create(b, loc, value, splat(width - 1))
                    .getResult()
              : splat(0);
      auto select = arith::SelectOp::create(b, loc, inRange,
                                            shift->getResult(0), outOfRange);
      shift->getResult(0).replaceAllUsesExcept(select.getResult(), select);
    }
  }
};

} // namespace

} // namespace lighthouse
