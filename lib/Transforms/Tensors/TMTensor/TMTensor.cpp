//===- TMTensor.cpp - Reading and rebuilding tm_tensor ops ----------------===//

#include "TMTensor.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace lighthouse::tm_tensor {

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

} // namespace lighthouse::tm_tensor
