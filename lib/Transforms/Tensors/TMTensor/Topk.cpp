//===- Topk.cpp - tm_tensor.topk as loops ---------------------------------===//
//
// topk: ins(values[, indices]) outs(top values, top indices), the k (the
// outputs' size along `dimension`) first elements in the region's order,
// merged into what the outputs hold. Each element is carried down the k
// places, swapping with any it comes before; equal values keep the smaller
// index first. n k comparisons per row.
//
//===----------------------------------------------------------------------===//

#include "TMTensor.h"

using namespace mlir;

namespace lighthouse::tm_tensor {

LogicalResult lowerTopk(const TMTensorOp &tm, OpBuilder &b) {
  if (tm.ins.empty() || tm.ins.size() > 2 || tm.outs.size() != 2)
    return tm.error()
           << "expected ins(values[, indices]) outs(values, indices)";
  Value values = tm.ins[0], topValues = tm.outs[0], topIndices = tm.outs[1];
  RankedTensorType valuesType = tm.type(values);
  FailureOr<int64_t> dim = readDimension(tm, valuesType.getRank());
  if (failed(dim))
    return failure();
  Type element = valuesType.getElementType();
  auto indexType = dyn_cast<IntegerType>(tm.type(topIndices).getElementType());
  bool shapesAgree =
      tm.type(topValues).getRank() == valuesType.getRank() &&
      tm.type(topIndices).getShape() == tm.type(topValues).getShape() &&
      (tm.ins.size() == 1 ||
       (tm.type(tm.ins[1]).getShape() == valuesType.getShape() &&
        tm.type(tm.ins[1]).getElementType() == indexType));
  if (!indexType || !shapesAgree ||
      tm.type(topValues).getElementType() != element)
    return tm.error() << "expected outputs like the values with integer "
                         "indices";
  if (failed(checkBody(tm, {element, element}, b.getI1Type())))
    return failure();

  Location loc = tm.op->getLoc();
  Value k = sizesOf(b, loc, topValues)[*dim];
  SmallVector<Value> results = loopNest(
      b, loc, sizesOf(b, loc, values), {topValues, topIndices},
      [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange carried) {
        Value value = extract(b, loc, values, ivs);
        Value index =
            tm.ins.size() == 2
                ? extract(b, loc, tm.ins[1], ivs)
                : arith::IndexCastOp::create(b, loc, indexType, ivs[*dim])
                      .getResult();
        SmallVector<Value> init{value, index};
        init.append(carried.begin(), carried.end());
        auto places = scf::ForOp::create(
            b, loc, constantIndex(b, loc, 0), k, constantIndex(b, loc, 1), init,
            [&](OpBuilder &b, Location loc, Value place, ValueRange state) {
              SmallVector<Value> at = withIndex(ivs, *dim, place);
              Value held = extract(b, loc, state[2], at);
              Value heldIndex = extract(b, loc, state[3], at);
              Value before = inlineBody(b, tm.op, {state[0], held});
              Value after = inlineBody(b, tm.op, {held, state[0]});
              Value tied = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::eq, before, after);
              Value earlier = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::slt, state[1], heldIndex);
              Value takeIndex = arith::OrIOp::create(
                  b, loc, before, arith::AndIOp::create(b, loc, tied, earlier));
              auto select = [&](Value condition, Value a, Value c) {
                return arith::SelectOp::create(b, loc, condition, a, c)
                    .getResult();
              };
              scf::YieldOp::create(
                  b, loc,
                  ValueRange{select(before, held, state[0]),
                             select(takeIndex, heldIndex, state[1]),
                             insert(b, loc, select(before, state[0], held),
                                    state[2], at),
                             insert(b, loc,
                                    select(takeIndex, state[1], heldIndex),
                                    state[3], at)});
            });
        return SmallVector<Value>(places.getResults().drop_front(2));
      });
  tm.op->replaceAllUsesWith(results);
  return success();
}

} // namespace lighthouse::tm_tensor
