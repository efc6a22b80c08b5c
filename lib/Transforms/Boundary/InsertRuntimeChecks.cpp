//===- InsertRuntimeChecks.cpp - Sizes and indices checked at run time ----===//
//
// Compiled code trusts the sizes and indices it is given: a dynamic size
// that must agree with another, or an index read from a tensor, that is out
// of range makes it read or write out of bounds. This pass checks them,
// before they are used, with cf.assert (a ValueError in Python, through
// lighthouse-lower-runtime-checks):
//  - every op with MLIR's runtime verification interface (linalg ops: each
//    operand's sizes against the loop ranges; tensor casts to static sizes,
//    inserts, extracts, dims) outside the bodies of linalg ops;
//  - tensor.extract_slice and tensor.insert_slice: every position in the
//    tensor, whichever way the stride goes; an insert's source of the
//    slice's sizes;
//  - tensor.pad: pads not negative, and making its result's static sizes;
//  - every op: the static sizes of the tensors it makes within 2^62 bytes;
//  - tensor.concat: the sizes of its operands along the other dimensions;
//  - tensor.reshape and tensor.expand_shape: sizes given at run time that
//    hold the source's elements;
//  - tensor.extract in the body of a linalg op (a gather, an embedding,
//    x[i]) at indices computed in the body: the computation is repeated in
//    loops before the op, over the dimensions the indices vary along, and
//    each index checked there, so that the op itself stays free of checks
//    (it vectorizes and runs on threads as before; a check inside a
//    parallel loop could only abort the process).
// A module with `lighthouse.runtime_checks = false` is left unchecked.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Boundary/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_INSERTRUNTIMECHECKS
#include "lighthouse/Transforms/Boundary/Passes.h.inc"

namespace {

/// Where `location` comes from, as a user reads it: the names and the first
/// file position it carries (an ONNX node's name, a line of a model's
/// source), or "" when it carries neither.
std::string describeLocation(Location location) {
  std::string names, position;
  location->walk([&](Location nested) {
    if (auto name = dyn_cast<NameLoc>(nested)) {
      if (!names.empty())
        names += " ";
      names += name.getName().str();
    } else if (auto file = dyn_cast<FileLineColLoc>(nested);
               file && position.empty()) {
      position =
          (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()))
              .str();
    }
    return WalkResult::advance();
  });
  if (!names.empty() && !position.empty())
    return names + ", " + position;
  return names.empty() ? position : names;
}

/// "<op> at <where>: <what>", the message of a failed check.
std::string describe(Operation *op, StringRef what) {
  std::string where = describeLocation(op->getLoc());
  return (op->getName().getStringRef() + (where.empty() ? "" : " at " + where) +
          ": " + what)
      .str();
}

void assertAll(OpBuilder &b, Location loc, ArrayRef<Value> conditions,
               StringRef message) {
  if (conditions.empty())
    return;
  Value all = conditions.front();
  for (Value condition : conditions.drop_front())
    all = arith::AndIOp::create(b, loc, all, condition);
  cf::AssertOp::create(b, loc, all, message);
}

/// The operands of a concatenation agree with the first along every
/// dimension but the one they are concatenated along.
void checkConcat(tensor::ConcatOp concat) {
  OpBuilder b(concat);
  Location loc = concat.getLoc();
  auto inputs = concat.getInputs();
  int64_t rank = concat.getRank();
  SmallVector<Value> same;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == static_cast<int64_t>(concat.getDim()))
      continue;
    Value first = tensor::DimOp::create(b, loc, inputs.front(), d);
    for (Value input : inputs.drop_front())
      same.push_back(arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          tensor::DimOp::create(b, loc, input, d), first));
  }
  assertAll(b, loc, same,
            describe(concat, "operands of different sizes along a dimension "
                             "they are not concatenated along"));
}

/// How an index of a read in `op`'s body is computed there: the body's ops
/// it depends on, in order, and the loops it varies along. Fails when it
/// depends on what the op computes (an output's value) or on an op with
/// effects or regions.
struct IndexComputation {
  SmallVector<Operation *> ops;
  SmallVector<unsigned> loops;
};

FailureOr<IndexComputation> computationOf(linalg::GenericOp op, Value index) {
  Block *body = op.getBody();
  SetVector<Operation *> slice;
  if (Operation *definition = index.getDefiningOp()) {
    BackwardSliceOptions options;
    options.filter = [&](Operation *nested) {
      return nested->getBlock() == body;
    };
    if (failed(getBackwardSlice(definition, &slice, options)))
      return failure();
    slice.insert(definition);
  }
  IndexComputation computation;
  llvm::SmallDenseSet<unsigned> loops;
  bool computable = true;
  auto dependsOn = [&](Value value) {
    auto argument = dyn_cast<BlockArgument>(value);
    if (!argument || argument.getOwner() != body)
      return;
    if (argument.getArgNumber() >= op.getNumDpsInputs()) {
      computable = false;
      return;
    }
    AffineMap map = op.getMatchingIndexingMap(
        op.getDpsInputOperand(argument.getArgNumber()));
    for (unsigned d = 0; d < map.getNumDims(); ++d)
      if (map.isFunctionOfDim(d))
        loops.insert(d);
  };
  dependsOn(index);
  for (Operation *nested : slice) {
    if (nested->getBlock() != body)
      continue; // Defined above the op: used as it is.
    if (auto loop = dyn_cast<linalg::IndexOp>(nested))
      loops.insert(loop.getDim());
    else if (!isPure(nested) || nested->getNumRegions())
      computable = false;
    llvm::for_each(nested->getOperands(), dependsOn);
    computation.ops.push_back(nested);
  }
  if (!computable)
    return failure();
  llvm::sort(computation.ops,
             [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
  computation.loops.assign(loops.begin(), loops.end());
  llvm::sort(computation.loops);
  return computation;
}

/// Checks `index` < `bound` before `op` for every iteration of `op`: for an
/// index that is a loop's position, once against the loop's size; else in
/// loops over the dimensions the index varies along, computing it again.
void checkIndexBefore(linalg::GenericOp op, Value index, Value bound,
                      const IndexComputation &computation,
                      ArrayRef<Range> ranges, StringRef message) {
  OpBuilder b(op);
  Location loc = index.getLoc();
  Block *body = op.getBody();
  if (auto position = index.getDefiningOp<linalg::IndexOp>()) {
    Value size =
        getValueOrCreateConstantIndexOp(b, loc, ranges[position.getDim()].size);
    assertAll(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, size, bound)
            .getResult(),
        message);
    return;
  }
  SmallVector<Value> lower, upper, steps;
  for (unsigned d : computation.loops) {
    lower.push_back(getValueOrCreateConstantIndexOp(b, loc, ranges[d].offset));
    upper.push_back(getValueOrCreateConstantIndexOp(b, loc, ranges[d].size));
    steps.push_back(getValueOrCreateConstantIndexOp(b, loc, ranges[d].stride));
  }
  scf::buildLoopNest(
      b, loc, lower, upper, steps,
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        // Loops the index does not vary along are never read: 0.
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        SmallVector<Value> at(op.getNumLoops(), zero);
        for (auto [d, iv] : llvm::zip(computation.loops, ivs))
          at[d] = iv;
        IRMapping mapping;
        // An input's element at this iteration.
        auto mapArgument = [&](Value value) {
          auto argument = dyn_cast<BlockArgument>(value);
          if (!argument || argument.getOwner() != body ||
              mapping.contains(argument))
            return;
          OpOperand *input = op.getDpsInputOperand(argument.getArgNumber());
          if (!isa<RankedTensorType>(input->get().getType())) {
            mapping.map(argument, input->get()); // A scalar operand.
            return;
          }
          AffineMap map = op.getMatchingIndexingMap(input);
          SmallVector<Value> position;
          for (AffineExpr expr : map.getResults())
            position.push_back(affine::AffineApplyOp::create(
                b, loc, AffineMap::get(map.getNumDims(), 0, expr), at));
          mapping.map(argument, tensor::ExtractOp::create(b, loc, input->get(),
                                                          position));
        };
        mapArgument(index);
        for (Operation *nested : computation.ops) {
          llvm::for_each(nested->getOperands(), mapArgument);
          if (auto loop = dyn_cast<linalg::IndexOp>(nested))
            mapping.map(loop.getResult(), at[loop.getDim()]);
          else
            b.clone(*nested, mapping);
        }
        // Unsigned: a negative index is out of bounds too.
        assertAll(b, loc,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        mapping.lookupOrDefault(index), bound)
                      .getResult(),
                  message);
      });
}

/// Checks the indices of the `tensor.extract`s in `op`'s body that read a
/// tensor from outside it, before `op`. Returns the extracts whose indices
/// cannot be computed apart from the op.
SmallVector<tensor::ExtractOp> checkGathers(linalg::GenericOp op) {
  SmallVector<tensor::ExtractOp> unchecked;
  for (auto extract : op.getBody()->getOps<tensor::ExtractOp>()) {
    if (op->isAncestor(extract.getTensor().getParentBlock()->getParentOp()))
      continue; // Reads a tensor the body computes.
    SmallVector<IndexComputation> computations;
    for (Value index : extract.getIndices()) {
      FailureOr<IndexComputation> computation = computationOf(op, index);
      if (failed(computation))
        break;
      computations.push_back(std::move(*computation));
    }
    if (computations.size() != extract.getIndices().size()) {
      unchecked.push_back(extract);
      continue;
    }
    OpBuilder b(op);
    Location loc = extract.getLoc();
    SmallVector<Range> ranges =
        cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
    std::string message = describe(extract, "index out of bounds");
    for (auto [d, index] : llvm::enumerate(extract.getIndices()))
      checkIndexBefore(op, index,
                       tensor::DimOp::create(b, loc, extract.getTensor(), d),
                       computations[d], ranges, message);
  }
  return unchecked;
}

/// Pads are sizes: a negative dynamic one would shrink the result below the
/// source it is copied into, and with the source's they make the result's
/// sizes, which a static size of its type must equal. A static pad of -2^63 is
/// MLIR's marker of a dynamic one, which its verifier lets through: the op then
/// has fewer pad operands than pads that read one, and any pattern asking for
/// its pads reads past them.
LogicalResult checkPad(tensor::PadOp pad) {
  auto dynamicCount = [](ArrayRef<int64_t> pads) {
    return llvm::count_if(pads, ShapedType::isDynamic);
  };
  if (dynamicCount(pad.getStaticLow()) !=
          static_cast<int64_t>(pad.getLow().size()) ||
      dynamicCount(pad.getStaticHigh()) !=
          static_cast<int64_t>(pad.getHigh().size()))
    return pad.emitError() << "a static pad of " << ShapedType::kDynamic
                           << ", MLIR's marker of a dynamic pad";
  OpBuilder b(pad);
  Location loc = pad.getLoc();
  SmallVector<Value> nonNegative;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (Value amount : llvm::concat<Value>(pad.getLow(), pad.getHigh()))
    nonNegative.push_back(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, amount, zero));
  assertAll(b, loc, nonNegative, describe(pad, "negative padding"));
  // A static size of the result that pads given at run time must make.
  SmallVector<Value> sized;
  RankedTensorType type = pad.getResultType();
  SmallVector<OpFoldResult> low = pad.getMixedLowPad(),
                            high = pad.getMixedHighPad();
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (type.isDynamicDim(d) ||
        (!pad.getSourceType().isDynamicDim(d) && isa<Attribute>(low[d]) &&
         isa<Attribute>(high[d])))
      continue;
    Value size = arith::AddIOp::create(
        b, loc, tensor::DimOp::create(b, loc, pad.getSource(), d),
        arith::AddIOp::create(
            b, loc, getValueOrCreateConstantIndexOp(b, loc, low[d]),
            getValueOrCreateConstantIndexOp(b, loc, high[d])));
    sized.push_back(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, size,
        arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))));
  }
  assertAll(b, loc, sized,
            describe(pad, "the padded sizes differ from the result type's"));
  return success();
}

/// `product` times `size`, a size given at run time, with the checks that
/// `size` is not negative and that the product does not wrap (2^32 x 2^32
/// would be 0, as an empty tensor's) appended to `valid`.
Value multiplySizes(OpBuilder &b, Location loc, Value product, Value size,
                    SmallVectorImpl<Value> &valid) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value bound = arith::ConstantIndexOp::create(b, loc, int64_t(1) << 62);
  valid.push_back(
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, size, zero));
  Value room = arith::DivUIOp::create(
      b, loc, bound, arith::MaxUIOp::create(b, loc, product, one));
  valid.push_back(
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, size, room));
  return arith::MulIOp::create(b, loc, product, size);
}

/// A reshape to a shape given at run time: sizes that are not negative,
/// whose product does not wrap, and that hold the source's elements.
void checkReshape(tensor::ReshapeOp reshape) {
  auto shapeType = cast<RankedTensorType>(reshape.getShape().getType());
  if (shapeType.isDynamicDim(0))
    return; // The result's rank is then unknown: not a ranked reshape.
  OpBuilder b(reshape);
  Location loc = reshape.getLoc();
  Type indexType = b.getIndexType();
  Value elements = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> valid;
  for (int64_t d = 0; d < shapeType.getDimSize(0); ++d) {
    Value size = tensor::ExtractOp::create(
        b, loc, reshape.getShape(),
        ValueRange{arith::ConstantIndexOp::create(b, loc, d)});
    if (!size.getType().isIndex())
      size = arith::IndexCastOp::create(b, loc, indexType, size);
    elements = multiplySizes(b, loc, elements, size, valid);
  }
  Value source = arith::ConstantIndexOp::create(b, loc, 1);
  auto sourceType = cast<RankedTensorType>(reshape.getSource().getType());
  for (int64_t d = 0; d < sourceType.getRank(); ++d)
    source = arith::MulIOp::create(
        b, loc, source, tensor::DimOp::create(b, loc, reshape.getSource(), d));
  valid.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        elements, source));
  assertAll(b, loc, valid,
            describe(reshape, "the shape does not hold the source's elements"));
}

/// An expansion into sizes given at run time: in each group with one, sizes
/// that are not negative and multiply, without wrapping, to the dimension
/// they split. The code indexes the result by those sizes; a model's
/// reshape computed wrongly would otherwise read and write past the
/// source's buffer.
void checkExpandShape(tensor::ExpandShapeOp expand) {
  RankedTensorType type = expand.getResultType();
  OpBuilder b(expand);
  Location loc = expand.getLoc();
  SmallVector<OpFoldResult> sizes = expand.getMixedOutputShape();
  SmallVector<Value> valid;
  for (auto [sourceDim, group] :
       llvm::enumerate(expand.getReassociationIndices())) {
    if (llvm::none_of(group,
                      [&](int64_t dim) { return type.isDynamicDim(dim); }))
      continue;
    Value product = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t dim : group)
      product = multiplySizes(
          b, loc, product, getValueOrCreateConstantIndexOp(b, loc, sizes[dim]),
          valid);
    valid.push_back(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, product,
        tensor::DimOp::create(b, loc, expand.getSrc(), sourceDim)));
  }
  if (!valid.empty())
    assertAll(b, loc, valid,
              describe(expand, "the sizes do not hold the expanded dimension"));
}

/// Sizes in bytes past this are refused: an allocation's size computation
/// would wrap to a small buffer that the code then overruns.
constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 62;

uint64_t bytesPerElement(Type element) {
  return element.isIndex()
             ? 8
             : llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
}

/// The bytes of `type`'s static sizes, or nullopt past kMaxTensorBytes.
std::optional<uint64_t> staticBytes(RankedTensorType type) {
  uint64_t bytes = bytesPerElement(type.getElementType());
  for (int64_t size : type.getShape()) {
    if (ShapedType::isDynamic(size))
      continue;
    if (size != 0 && bytes > kMaxTensorBytes / size)
      return std::nullopt;
    bytes *= size;
  }
  return bytes;
}

/// Every tensor an op makes fits in memory, as far as its static sizes
/// tell: whichever op it is, bufferization allocates it.
LogicalResult checkStaticSizes(Operation *op) {
  for (Type type : op->getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (tensor && tensor.getElementType().isIntOrIndexOrFloat() &&
        !staticBytes(tensor))
      return op->emitError()
             << "a tensor of " << type << " holds more bytes than memory can";
  }
  return success();
}

/// A new tensor's sizes given at run time keep its bytes within
/// kMaxTensorBytes.
void checkAllocationSize(tensor::EmptyOp empty) {
  RankedTensorType type = empty.getType();
  if (!type.getElementType().isIntOrIndexOrFloat() || type.hasStaticShape())
    return;
  OpBuilder b(empty);
  Location loc = empty.getLoc();
  // total <= limit, one dynamic size at a time: size <= limit / total.
  Value total = arith::ConstantIndexOp::create(b, loc, *staticBytes(type));
  Value fits = arith::ConstantIntOp::create(b, loc, 1, 1);
  Value bound = arith::ConstantIndexOp::create(b, loc, kMaxTensorBytes);
  for (Value size : empty.getDynamicSizes()) {
    Value room = arith::DivUIOp::create(
        b, loc, bound,
        arith::MaxUIOp::create(b, loc, total,
                               arith::ConstantIndexOp::create(b, loc, 1)));
    fits = arith::AndIOp::create(
        b, loc, fits,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, size, room));
    total = arith::MulIOp::create(b, loc, total, size);
  }
  assertAll(b, loc, fits,
            describe(empty, "a tensor of these sizes holds more bytes than "
                            "memory can"));
}

/// Whether the positions `offset`, `offset + stride`, ... of a slice of
/// `size` elements along a dimension of `extent` all lie in it. A slice of
/// no element may start at the end. Unsigned comparisons take negative
/// values as out of bounds (a negative size as a huge count of steps),
/// and the last position is never computed: the
/// count of steps is bounded by the room the stride's direction leaves
/// (offset + (size - 1) * stride would wrap for a stride of -2^31 and a
/// size of 2^33).
Value sliceInBounds(OpBuilder &b, Location loc, Value offset, Value size,
                    Value stride, Value extent) {
  auto cmp = [&](arith::CmpIPredicate predicate, Value lhs, Value rhs) {
    return arith::CmpIOp::create(b, loc, predicate, lhs, rhs).getResult();
  };
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value empty = cmp(arith::CmpIPredicate::eq, size, zero);
  Value startsIn = arith::SelectOp::create(
      b, loc, empty, cmp(arith::CmpIPredicate::ule, offset, extent),
      cmp(arith::CmpIPredicate::ult, offset, extent));
  Value backwards = cmp(arith::CmpIPredicate::slt, stride, zero);
  Value room = arith::SelectOp::create(
      b, loc, backwards, offset,
      arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, extent, one),
                            offset));
  Value step = arith::SelectOp::create(
      b, loc, backwards, arith::SubIOp::create(b, loc, zero, stride),
      arith::MaxUIOp::create(b, loc, stride, one));
  Value steps = arith::SubIOp::create(b, loc, size, one);
  Value fits = arith::SelectOp::create(
      b, loc, empty, arith::ConstantIntOp::create(b, loc, 1, 1),
      cmp(arith::CmpIPredicate::ule, steps,
          arith::DivUIOp::create(b, loc, room, step)));
  return arith::AndIOp::create(b, loc, startsIn, fits);
}

/// Every element a slice reads (tensor.extract_slice, of its source) or
/// writes (tensor.insert_slice, into its destination) lies in `tensor`, and
/// an insert's source has the sizes it is inserted at. MLIR's own check
/// of extract_slice does not bound the offset of a slice that is not empty,
/// the last position a negative stride reads; insert_slice has none.
void checkSlice(OffsetSizeAndStrideOpInterface slice) {
  auto insert = dyn_cast<tensor::InsertSliceOp>(slice.getOperation());
  Value tensor = insert ? insert.getDest()
                        : cast<tensor::ExtractSliceOp>(slice).getSource();
  OpBuilder b(slice);
  Location loc = slice.getLoc();
  SmallVector<Value> valid;
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets(),
                            sizes = slice.getMixedSizes(),
                            strides = slice.getMixedStrides();
  for (auto [d, offset, size, stride] :
       llvm::enumerate(offsets, sizes, strides))
    valid.push_back(
        sliceInBounds(b, loc, getValueOrCreateConstantIndexOp(b, loc, offset),
                      getValueOrCreateConstantIndexOp(b, loc, size),
                      getValueOrCreateConstantIndexOp(b, loc, stride),
                      tensor::DimOp::create(b, loc, tensor, d)));
  assertAll(b, loc, valid,
            describe(slice, insert ? "the slice runs out of the destination"
                                   : "the slice runs out of the source"));
  if (!insert)
    return;
  SmallVector<Value> same;
  llvm::SmallBitVector dropped = insert.getDroppedDims();
  int64_t sourceDim = 0;
  for (auto [d, size] : llvm::enumerate(sizes)) {
    if (dropped.test(d))
      continue;
    same.push_back(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        tensor::DimOp::create(b, loc, insert.getSource(), sourceDim++),
        getValueOrCreateConstantIndexOp(b, loc, size)));
  }
  assertAll(b, loc, same,
            describe(slice, "the inserted tensor's sizes differ from the "
                            "slice's"));
}

class InsertRuntimeChecksPass
    : public impl::InsertRuntimeChecksBase<InsertRuntimeChecksPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (auto enabled =
            module->getAttrOfType<BoolAttr>("lighthouse.runtime_checks");
        enabled && !enabled.getValue())
      return;
    // Collected first: checks are ops of the same kinds.
    SmallVector<Operation *> verifiable, others;
    SmallVector<linalg::GenericOp> generics;
    bool sizeless = false;
    module.walk([&](Operation *op) {
      if (op->getParentOfType<linalg::LinalgOp>())
        return; // In a body: the gathers' checks below.
      sizeless |= failed(checkStaticSizes(op));
      if (isa<tensor::ConcatOp, tensor::PadOp, tensor::ReshapeOp,
              tensor::ExpandShapeOp, tensor::EmptyOp, tensor::DimOp,
              tensor::ExtractSliceOp, tensor::InsertSliceOp>(op))
        others.push_back(op);
      // Slices: checkSlice, which bounds their offsets too.
      if (isa<RuntimeVerifiableOpInterface>(op) &&
          !isa<tensor::ExtractSliceOp>(op))
        verifiable.push_back(op);
      if (auto generic = dyn_cast<linalg::GenericOp>(op))
        generics.push_back(generic);
    });
    if (sizeless)
      return signalPassFailure();
    for (Operation *op : verifiable) {
      OpBuilder b(op);
      cast<RuntimeVerifiableOpInterface>(op).generateRuntimeVerification(
          b, op->getLoc(), describe);
    }
    for (Operation *op : others) {
      if (auto concat = dyn_cast<tensor::ConcatOp>(op))
        checkConcat(concat);
      else if (auto pad = dyn_cast<tensor::PadOp>(op)) {
        if (failed(checkPad(pad)))
          return signalPassFailure();
      } else if (auto reshape = dyn_cast<tensor::ReshapeOp>(op))
        checkReshape(reshape);
      else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
        checkExpandShape(expand);
      else if (auto empty = dyn_cast<tensor::EmptyOp>(op))
        checkAllocationSize(empty);
      else if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op))
        checkSlice(cast<OffsetSizeAndStrideOpInterface>(op));
      else if (auto dim = dyn_cast<tensor::DimOp>(op)) {
        // Past its check, which fails: a size of a dimension the tensor does
        // not have is never used, and left in place it would be read at that
        // dimension by later folds (memref.dim of an allocation).
        std::optional<int64_t> index = dim.getConstantIndex();
        auto type = dyn_cast<RankedTensorType>(dim.getSource().getType());
        if (index && type && (*index < 0 || *index >= type.getRank())) {
          OpBuilder b(dim);
          dim.replaceAllUsesWith(
              arith::ConstantIndexOp::create(b, dim.getLoc(), 0).getResult());
          dim.erase();
        }
      }
    }
    for (linalg::GenericOp generic : generics)
      for (tensor::ExtractOp extract : checkGathers(generic)) {
        // Checked where it is, which only a sequential loop makes a
        // ValueError (lighthouse-lower-runtime-checks).
        OpBuilder b(extract);
        cast<RuntimeVerifiableOpInterface>(extract.getOperation())
            .generateRuntimeVerification(b, extract.getLoc(), describe);
      }
  }
};

} // namespace

} // namespace lighthouse
