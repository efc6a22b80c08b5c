//===- Sort.cpp - tm_tensor.sort as a stable merge sort -------------------===//
//
// sort: outs(t0, t1, ...) of one shape, sorted together along `dimension`;
// the region, given (a0, b0, a1, b1, ...), says whether a may come before b.
// A stable bottom-up merge sort, n log n comparisons per row: an insertion
// sort's n^2 would take seconds on a row of 10^5 (a top-k over a
// vocabulary). Each round merges runs of width w from the tensors into
// scratch ones and runs of 2w back, so the loops carry each tensor in the
// same place and bufferization keeps both in place.
//
//===----------------------------------------------------------------------===//

#include "TMTensor.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

using namespace mlir;

namespace lighthouse::tm_tensor {

LogicalResult lowerSort(const TMTensorOp &tm, OpBuilder &b) {
  if (!tm.ins.empty() || tm.outs.empty())
    return tm.error() << "expected only outs operands";
  RankedTensorType type = tm.type(tm.outs[0]);
  FailureOr<int64_t> dim = readDimension(tm, type.getRank());
  if (failed(dim))
    return failure();
  SmallVector<Type> pairs;
  for (Value out : tm.outs) {
    if (tm.type(out).getShape() != type.getShape())
      return tm.error() << "expected outs operands of one shape";
    pairs.append(2, tm.type(out).getElementType());
  }
  if (failed(checkBody(tm, pairs, b.getI1Type())))
    return failure();

  Location loc = tm.op->getLoc();
  size_t count = tm.outs.size();
  SmallVector<Value> sizes = sizesOf(b, loc, tm.outs[0]);
  Value n = sizes[*dim];
  SmallVector<Value> carriedInit(tm.outs);
  for (Value out : tm.outs) {
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamic.push_back(sizes[d]);
    // A buffer of its own each: two tensor.empty of one type would be one
    // after CSE, and bufferization lets loops write both into it (their
    // contents are undefined), which mixed an i64 top-k's values and indices.
    carriedInit.push_back(bufferization::AllocTensorOp::create(
        b, loc,
        RankedTensorType::get(type.getShape(), tm.type(out).getElementType()),
        dynamic));
  }
  // Rows: every dimension but the sorted one.
  SmallVector<Value> rowSizes =
      withIndex(sizes, *dim, constantIndex(b, loc, 1));

  // Whether element `left` of `from` may stay before element `right`: when
  // the region says left comes before right, or does not say right comes
  // before left (equal keys keep their order, for strict and non-strict
  // regions alike).
  auto keepsLeft = [&](OpBuilder &b, Location loc, ArrayRef<Value> left,
                       ArrayRef<Value> right) {
    SmallVector<Value> forward, backward;
    for (size_t t = 0; t < count; ++t) {
      forward.append({left[t], right[t]});
      backward.append({right[t], left[t]});
    }
    Value leftFirst = inlineBody(b, tm.op, forward);
    Value rightFirst = inlineBody(b, tm.op, backward);
    Value notRightFirst = arith::XOrIOp::create(
        b, loc, rightFirst, arith::ConstantIntOp::create(b, loc, 1, 1));
    return arith::OrIOp::create(b, loc, leftFirst, notRightFirst).getResult();
  };

  // Merges the runs of `width` of `from` pairwise into `to` along the row at
  // `row`; returns the new `to`.
  auto mergePass = [&](OpBuilder &b, Location loc, ValueRange row,
                       ValueRange from, ValueRange to, Value width) {
    Value twice =
        arith::MulIOp::create(b, loc, width, constantIndex(b, loc, 2));
    auto runs = scf::ForOp::create(
        b, loc, constantIndex(b, loc, 0), n, twice, to,
        [&](OpBuilder &b, Location loc, Value low, ValueRange to) {
          Value mid = arith::MinSIOp::create(
              b, loc, arith::AddIOp::create(b, loc, low, width), n);
          Value high = arith::MinSIOp::create(
              b, loc, arith::AddIOp::create(b, loc, low, twice), n);
          SmallVector<Value> init{low, mid};
          init.append(to.begin(), to.end());
          auto merge = scf::ForOp::create(
              b, loc, low, high, constantIndex(b, loc, 1), init,
              [&](OpBuilder &b, Location loc, Value k, ValueRange state) {
                Value i = state[0], j = state[1];
                Value leftLeft = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::slt, i, mid);
                Value rightLeft = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::slt, j, high);
                // A run that is used up is read at `low`, in bounds, and
                // not taken.
                SmallVector<Value> leftAt = withIndex(
                    row, *dim,
                    arith::SelectOp::create(b, loc, leftLeft, i, low));
                SmallVector<Value> rightAt = withIndex(
                    row, *dim,
                    arith::SelectOp::create(b, loc, rightLeft, j, low));
                SmallVector<Value> left, right;
                for (Value tensor : from) {
                  left.push_back(extract(b, loc, tensor, leftAt));
                  right.push_back(extract(b, loc, tensor, rightAt));
                }
                Value takeLeft = arith::AndIOp::create(
                    b, loc, leftLeft,
                    arith::OrIOp::create(
                        b, loc,
                        arith::XOrIOp::create(
                            b, loc, rightLeft,
                            arith::ConstantIntOp::create(b, loc, 1, 1)),
                        keepsLeft(b, loc, left, right)));
                Value one = constantIndex(b, loc, 1);
                SmallVector<Value> next{
                    arith::SelectOp::create(
                        b, loc, takeLeft, arith::AddIOp::create(b, loc, i, one),
                        i),
                    arith::SelectOp::create(
                        b, loc, takeLeft, j,
                        arith::AddIOp::create(b, loc, j, one))};
                SmallVector<Value> kAt = withIndex(row, *dim, k);
                for (size_t t = 0; t < count; ++t)
                  next.push_back(
                      insert(b, loc,
                             arith::SelectOp::create(b, loc, takeLeft, left[t],
                                                     right[t]),
                             state[2 + t], kAt));
                scf::YieldOp::create(b, loc, next);
              });
          scf::YieldOp::create(b, loc, merge.getResults().drop_front(2));
        });
    return SmallVector<Value>(runs.getResults());
  };

  SmallVector<Value> results = loopNest(
      b, loc, rowSizes, carriedInit,
      [&](OpBuilder &b, Location loc, ValueRange row, ValueRange carried) {
        SmallVector<Value> whileInit{constantIndex(b, loc, 1)};
        whileInit.append(carried.begin(), carried.end());
        auto rounds = scf::WhileOp::create(
            b, loc, TypeRange(ValueRange(whileInit)), whileInit,
            [&](OpBuilder &b, Location loc, ValueRange state) {
              Value more = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::slt, state[0], n);
              scf::ConditionOp::create(b, loc, more, state);
            },
            [&](OpBuilder &b, Location loc, ValueRange state) {
              Value width = state[0];
              ValueRange tensors = state.slice(1, count);
              ValueRange scratch = state.slice(1 + count, count);
              SmallVector<Value> merged =
                  mergePass(b, loc, row, tensors, scratch, width);
              Value twice = arith::MulIOp::create(b, loc, width,
                                                  constantIndex(b, loc, 2));
              SmallVector<Value> next{arith::MulIOp::create(
                  b, loc, twice, constantIndex(b, loc, 2))};
              llvm::append_range(
                  next, mergePass(b, loc, row, merged, tensors, twice));
              llvm::append_range(next, merged);
              scf::YieldOp::create(b, loc, next);
            });
        return SmallVector<Value>(rounds.getResults().drop_front());
      });
  tm.op->replaceAllUsesWith(ArrayRef<Value>(results).take_front(count));
  return success();
}

} // namespace lighthouse::tm_tensor
