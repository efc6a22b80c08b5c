//===- Scatter.cpp - tm_tensor.scatter as loops with checked indices ------===//
//
// scatter: ins(updates, indices) outs(original). Update u = (n, j...) goes to
// the position of `original` whose dimension dimension_map[k] is
// indices[n, k] (plus j's coordinate there, if any) and whose trailing
// dimensions are j's; the region combines the update with what is there.
// Negative indices count from the end (torch's index_put and ONNX's scatters
// allow them); indices are checked at run time, as one out of range would
// write out of bounds (ValueError in Python, lighthouse-lower-runtime-checks).
//
//===----------------------------------------------------------------------===//

#include "TMTensor.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

using namespace mlir;

namespace lighthouse::tm_tensor {

LogicalResult lowerScatter(const TMTensorOp &tm, OpBuilder &b) {
  if (tm.ins.size() != 2 || tm.outs.size() != 1)
    return tm.error() << "expected ins(updates, indices) outs(original)";
  Value updates = tm.ins[0], indices = tm.ins[1], original = tm.outs[0];
  RankedTensorType updatesType = tm.type(updates),
                   indicesType = tm.type(indices),
                   originalType = tm.type(original);
  auto map =
      dyn_cast_or_null<DenseI64ArrayAttr>(tm.op->getAttr("dimension_map"));
  int64_t rank = originalType.getRank();
  if (!map)
    return tm.error() << "expected a dimension_map";
  if (indicesType.getRank() != 2 ||
      !isa<IntegerType>(indicesType.getElementType()) ||
      indicesType.getDimSize(1) != map.size() || updatesType.getRank() < 1)
    return tm.error() << "expected indices of shape ?x" << map.size()
                      << " for a dimension_map of as many dimensions";
  // Which dimensions of `original` an index or an update's coordinate sets.
  int64_t sliceRank = updatesType.getRank() - 1;
  if (sliceRank > rank)
    return tm.error() << "expected updates of at most one more dimension than "
                         "the original";
  SmallVector<bool> covered(rank, false);
  for (int64_t d = rank - sliceRank; d < rank; ++d)
    covered[d] = true;
  for (int64_t d : map.asArrayRef()) {
    if (d < 0 || d >= rank)
      return tm.error() << "dimension_map names dimension " << d << " of "
                        << rank;
    covered[d] = true;
  }
  if (!llvm::all_of(covered, [](bool c) { return c; }))
    return tm.error() << "expected indices and updates to cover every "
                         "dimension of the original";
  Type element = originalType.getElementType();
  if (updatesType.getElementType() != element)
    return tm.error() << "expected updates of the original's element type";
  if (failed(checkBody(tm, {element, element}, element)))
    return failure();

  Location loc = tm.op->getLoc();
  SmallVector<Value> bounds = sizesOf(b, loc, original);
  SmallVector<Value> results = loopNest(
      b, loc, sizesOf(b, loc, updates), {original},
      [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange carried) {
        SmallVector<Value> at(rank);
        for (int64_t k = 0; k < sliceRank; ++k)
          at[rank - sliceRank + k] = ivs[1 + k];
        for (auto [k, d] : llvm::enumerate(map.asArrayRef())) {
          Value index = arith::IndexCastOp::create(
              b, loc, b.getIndexType(),
              extract(b, loc, indices, {ivs[0], constantIndex(b, loc, k)}));
          // Negative indices count from the end, as torch's and ONNX's do.
          Value negative =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                                    constantIndex(b, loc, 0));
          index = arith::SelectOp::create(
              b, loc, negative, arith::AddIOp::create(b, loc, index, bounds[d]),
              index);
          at[d] = at[d] ? arith::AddIOp::create(b, loc, index, at[d]) : index;
        }
        // One unsigned compare per dimension rejects negative indices too.
        Value inBounds = arith::ConstantIntOp::create(b, loc, 1, 1);
        for (int64_t d = 0; d < rank; ++d)
          inBounds = arith::AndIOp::create(
              b, loc, inBounds,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at[d],
                                    bounds[d]));
        cf::AssertOp::create(b, loc, inBounds, "scatter index out of bounds");
        Value combined = inlineBody(
            b, tm.op,
            {extract(b, loc, updates, ivs), extract(b, loc, carried[0], at)});
        return SmallVector<Value>{insert(b, loc, combined, carried[0], at)};
      });
  tm.op->replaceAllUsesWith(results);
  return success();
}

} // namespace lighthouse::tm_tensor
