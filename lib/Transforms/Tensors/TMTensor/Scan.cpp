//===- Scan.cpp - tm_tensor.scan as loops ---------------------------------===//
//
// scan: ins(input) outs(output, accumulator), a running combination along
// `dimension`. Inclusive: output[0] = input[0], output[i] = f(output[i-1],
// input[i]); exclusive: output[0] = accumulator, output[i] = f(output[i-1],
// input[i-1]). The accumulator ends as the last combination.
//
//===----------------------------------------------------------------------===//

#include "TMTensor.h"

using namespace mlir;

namespace lighthouse::tm_tensor {

LogicalResult lowerScan(const TMTensorOp &tm, OpBuilder &b) {
  if (tm.ins.size() != 1 || tm.outs.size() != 2)
    return tm.error() << "expected ins(input) outs(output, accumulator)";
  Value input = tm.ins[0], output = tm.outs[0], accumulator = tm.outs[1];
  RankedTensorType inputType = tm.type(input);
  Type element = inputType.getElementType();
  FailureOr<int64_t> dim = readDimension(tm, inputType.getRank());
  if (failed(dim))
    return failure();
  if (tm.type(output).getShape() != inputType.getShape() ||
      tm.type(accumulator).getRank() != inputType.getRank() - 1 ||
      tm.type(output).getElementType() != element ||
      tm.type(accumulator).getElementType() != element)
    return tm.error() << "expected an output like the input and an "
                         "accumulator of one dimension less";
  auto inclusive = dyn_cast_or_null<BoolAttr>(tm.op->getAttr("inclusive"));
  if (!inclusive)
    return tm.error() << "expected a boolean 'inclusive'";
  if (failed(checkBody(tm, {element, element}, element)))
    return failure();

  Location loc = tm.op->getLoc();
  SmallVector<Value> results = loopNest(
      b, loc, sizesOf(b, loc, input), {output, accumulator},
      [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange carried) {
        SmallVector<Value> at(ivs), accumulatorAt(ivs);
        accumulatorAt.erase(accumulatorAt.begin() + *dim);
        Value first =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ivs[*dim],
                                  constantIndex(b, loc, 0));
        auto ifFirst =
            scf::IfOp::create(b, loc, TypeRange(carried), first, true);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(ifFirst.thenBlock());
          Value value = inclusive.getValue()
                            ? extract(b, loc, input, at)
                            : extract(b, loc, carried[1], accumulatorAt);
          scf::YieldOp::create(
              b, loc,
              ValueRange{insert(b, loc, value, carried[0], at), carried[1]});

          b.setInsertionPointToStart(ifFirst.elseBlock());
          Value previous = arith::SubIOp::create(b, loc, ivs[*dim],
                                                 constantIndex(b, loc, 1));
          SmallVector<Value> previousAt = withIndex(at, *dim, previous);
          Value combined = inlineBody(
              b, tm.op,
              {extract(b, loc, carried[0], previousAt),
               extract(b, loc, input, inclusive.getValue() ? at : previousAt)});
          scf::YieldOp::create(
              b, loc,
              ValueRange{insert(b, loc, combined, carried[0], at),
                         insert(b, loc, combined, carried[1], accumulatorAt)});
        }
        return SmallVector<Value>(ifFirst.getResults());
      });
  tm.op->replaceAllUsesWith(results);
  return success();
}

} // namespace lighthouse::tm_tensor
