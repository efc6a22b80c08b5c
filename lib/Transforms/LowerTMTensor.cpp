//===- LowerTMTensor.cpp - torch-mlir's tm_tensor ops as loops on tensors -===//
//
// torch-mlir lowers what linalg cannot express (scatters, sorts, cumulative
// scans, top-k) to its own tm_tensor dialect, which lighthouse holds as
// unknown operations (Dialect/OpaqueDialects.h). Each becomes scf loops of
// tensor.extract and tensor.insert with the op's region inlined as the
// combiner, before bufferization, which makes the inserts in place. Nothing
// is known about these ops beyond what this file checks: operand segments,
// ranks, element types and region signatures are verified before anything
// is built, and a malformed op is an error, not a crash.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_LOWERTMTENSOR
#include "lighthouse/Transforms/Passes.h.inc"

namespace {

/// A tm_tensor op's operands split into its `ins` and `outs`, all ranked
/// tensors, with one result per `outs` operand of the same type.
struct TMTensorOp {
  Operation *op;
  SmallVector<Value> ins, outs;

  RankedTensorType type(Value value) const {
    return cast<RankedTensorType>(value.getType());
  }
  InFlightDiagnostic error() const {
    return op->emitOpError("cannot be lowered by lighthouse: ");
  }
};

FailureOr<TMTensorOp> readOperands(Operation *op) {
  TMTensorOp read{op, {}, {}};
  auto segments =
      dyn_cast_or_null<DenseI32ArrayAttr>(op->getAttr("operandSegmentSizes"));
  if (!segments || segments.size() != 2 || segments[0] < 0 || segments[1] < 0 ||
      segments[0] + segments[1] != static_cast<int>(op->getNumOperands()))
    return read.error() << "expected operandSegmentSizes for ins and outs",
           failure();
  read.ins.assign(op->operand_begin(), op->operand_begin() + segments[0]);
  read.outs.assign(op->operand_begin() + segments[0], op->operand_end());
  for (Value operand : op->getOperands())
    if (!isa<RankedTensorType>(operand.getType()))
      return read.error() << "expected ranked tensor operands", failure();
  if (!llvm::equal(
          op->getResultTypes(),
          llvm::map_range(read.outs, [](Value v) { return v.getType(); })))
    return read.error() << "expected one result per outs operand, of its type",
           failure();
  return read;
}

/// Checks that `op` has one region of one block whose arguments have
/// `arguments` types and that ends in `tm_tensor.yield` of one `yielded`.
LogicalResult checkBody(const TMTensorOp &tm, TypeRange arguments,
                        Type yielded) {
  Operation *op = tm.op;
  if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return tm.error() << "expected a region of one block";
  Block &body = op->getRegion(0).front();
  if (!llvm::equal(body.getArgumentTypes(), arguments))
    return tm.error() << "expected region arguments of types " << arguments;
  Operation *terminator = body.empty() ? nullptr : &body.back();
  if (!terminator ||
      terminator->getName().getStringRef() != "tm_tensor.yield" ||
      terminator->getNumOperands() != 1 ||
      terminator->getOperand(0).getType() != yielded)
    return tm.error() << "expected the region to yield one " << yielded;
  return success();
}

/// Clones the region of `op` at `b`'s insertion point with its arguments bound
/// to `arguments`; returns the value it yields.
Value inlineBody(OpBuilder &b, Operation *op, ValueRange arguments) {
  Block &body = op->getRegion(0).front();
  IRMapping mapping;
  mapping.map(body.getArguments(), arguments);
  // The yield is unknown to MLIR, so not a terminator to without_terminator.
  for (Operation &nested :
       llvm::make_range(body.begin(), std::prev(body.end())))
    b.clone(nested, mapping);
  return mapping.lookupOrDefault(body.back().getOperand(0));
}

/// An integer attribute of `op` in [0, bound).
FailureOr<int64_t> readDimension(const TMTensorOp &tm, int64_t bound) {
  auto attr = dyn_cast_or_null<IntegerAttr>(tm.op->getAttr("dimension"));
  if (!attr || attr.getInt() < 0 || attr.getInt() >= bound)
    return tm.error() << "expected a dimension in [0, " << bound << ")",
           failure();
  return attr.getInt();
}

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

SmallVector<Value> sizesOf(OpBuilder &b, Location loc, Value tensor) {
  return getValueOrCreateConstantIndexOp(b, loc,
                                         tensor::getMixedSizes(b, loc, tensor));
}

/// A loop nest over `sizes` carrying `tensors`; `body` returns their next
/// values. Returns the final ones.
SmallVector<Value>
loopNest(OpBuilder &b, Location loc, ValueRange sizes, ValueRange tensors,
         function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange,
                                         ValueRange)>
             body) {
  SmallVector<Value> zeros(sizes.size(), constantIndex(b, loc, 0));
  SmallVector<Value> ones(sizes.size(), constantIndex(b, loc, 1));
  return scf::buildLoopNest(b, loc, zeros, sizes, ones, tensors, body).results;
}

Value extract(OpBuilder &b, Location loc, Value tensor, ValueRange at) {
  return tensor::ExtractOp::create(b, loc, tensor, at);
}

Value insert(OpBuilder &b, Location loc, Value value, Value tensor,
             ValueRange at) {
  return tensor::InsertOp::create(b, loc, value, tensor, at);
}

SmallVector<Value> withIndex(ValueRange indices, int64_t position,
                             Value value) {
  SmallVector<Value> result(indices);
  result[position] = value;
  return result;
}

//===----------------------------------------------------------------------===//
// scan: ins(input) outs(output, accumulator), a running combination along
// `dimension`. Inclusive: output[0] = input[0], output[i] = f(output[i-1],
// input[i]); exclusive: output[0] = accumulator, output[i] = f(output[i-1],
// input[i-1]). The accumulator ends as the last combination.
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// scatter: ins(updates, indices) outs(original). Update u = (n, j...) goes to
// the position of `original` whose dimension dimension_map[k] is
// indices[n, k] (plus j's coordinate there, if any) and whose trailing
// dimensions are j's; the region combines the update with what is there.
// Negative indices count from the end (torch's index_put and ONNX's scatters
// allow them); indices are checked at run time, as one out of range would
// write out of bounds (ValueError in Python, lighthouse-lower-runtime-checks).
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// sort: outs(t0, t1, ...) of one shape, sorted together along `dimension`;
// the region, given (a0, b0, a1, b1, ...), says whether a may come before b.
// A stable bottom-up merge sort, n log n comparisons per row: an insertion
// sort's n^2 would take seconds on a row of 10^5 (a top-k over a
// vocabulary). Each round merges runs of width w from the tensors into
// scratch ones and runs of 2w back, so the loops carry each tensor in the
// same place and bufferization keeps both in place.
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// topk: ins(values[, indices]) outs(top values, top indices), the k (the
// outputs' size along `dimension`) first elements in the region's order,
// merged into what the outputs hold. Each element is carried down the k
// places, swapping with any it comes before; equal values keep the smaller
// index first. n k comparisons per row.
//===----------------------------------------------------------------------===//

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
