//===- Contraction.cpp - Matmuls for CPUs ---------------------------------===//
//
// The contraction family: C(m, n) += A(m, k) * B(k, n), a linalg.matmul or a
// generic of the same form. Its strategy, `contraction.blocked`, tiles C
// twice, for the cache (blocks of C, columns outer, that stay in L2 while K
// streams) and for the registers (a block of C held in vector registers
// across the loop over K), and vectorizes the register tile into outer
// products, i.e. FMAs on vectors of N; a large B is first copied into panels
// in the order the register tiles read it, and large matmuls are split
// across threads. A chain of elementwise ops consuming the matmul's result
// (bias, activation) is computed per block of C, inside the matmul's loops,
// while the block is in cache.
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"
#include "TransformBuilders.h"

#include "lighthouse/Transforms/Utils/Vectorizable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/TransformOps/MemRefTransformOps.h"
#include "mlir/Dialect/SCF/TransformOps/SCFTransformOps.h"
#include "mlir/Dialect/Tensor/TransformOps/TensorTransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace lighthouse::cpu {

/// When a matmul copies B into panels: from half of L2 in floats of B per
/// thread, read in place (2^18 floats with the 2 MB L2 of the machines
/// measured), B no longer stays in L2 and its rows span more pages than the
/// TLB holds. Measured with bench/matmul.py on two threads, in panels vs in
/// place: 512^3 (128K floats a thread) 0.71-0.74 vs 0.73-0.78 of torch's
/// speed; 1024^3 (512K) 0.76-0.77 vs 0.44-0.50; 2048^3 0.81-0.84 vs
/// 0.34-0.55.
static int64_t minPackedFloats(const CPUTarget &target) {
  return target.l2Bytes / 2 / 4;
}
/// And from this many rows of A per thread: the copy costs about as much as
/// 5/M of the matmul.
constexpr int64_t kMinPackedRows = 64;

bool isCanonicalMatmul(linalg::LinalgOp op, bool batched) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  using Loops = SmallVector<unsigned, 2>;
  unsigned first = batched ? 1 : 0;
  if (failed(dims) || dims->batch != (batched ? Loops{0} : Loops{}) ||
      dims->m != Loops{first + kM} || dims->n != Loops{first + kN} ||
      dims->k != Loops{first + kK})
    return false;
  MLIRContext *context = op.getContext();
  auto map = [&](unsigned row, unsigned column) {
    SmallVector<AffineExpr> results;
    if (batched)
      results.push_back(getAffineDimExpr(0, context));
    results.push_back(getAffineDimExpr(first + row, context));
    results.push_back(getAffineDimExpr(first + column, context));
    return AffineMap::get(first + 3, 0, results, context);
  };
  return op.getIndexingMapsArray() ==
         SmallVector<AffineMap>{map(kM, kK), map(kK, kN), map(kM, kN)};
}

bool isElementwiseConsumer(linalg::GenericOp generic, Type element) {
  auto linalgOp = cast<linalg::LinalgOp>(generic.getOperation());
  OpOperand *init = generic.getDpsInitOperand(0);
  return generic.hasPureTensorSemantics() && generic.getNumResults() == 1 &&
         linalg::isElementwise(linalgOp) &&
         linalgOp.hasOnlyProjectedPermutations() &&
         generic.getMatchingIndexingMap(init).isIdentity() &&
         getElementTypeOrSelf(generic.getResult(0).getType()) == element &&
         !generic.payloadUsesValueFromOperand(init);
}

/// Whether `generic`, reading `use` (a matmul's result, or the previous
/// consumer's), can be computed tile by tile inside the matmul's loops: it
/// is elementwise over the same 2-D iteration space and reads `use` element
/// for element, and its result does not depend on its init.
static bool isTileableConsumer(linalg::GenericOp generic, OpOperand &use) {
  return isElementwiseConsumer(generic, getElementTypeOrSelf(use.get())) &&
         generic.getNumLoops() == 2 && generic.isDpsInput(&use) &&
         generic.getMatchingIndexingMap(&use).isIdentity() &&
         generic.getResult(0).getType() == use.get().getType() &&
         !staysScalar(generic);
}

/// The elementwise generics that consume `matmul`'s result one after the
/// other (bias, activation, residual), each the only user of the previous
/// result, and not claimed by another matmul (x @ W1 + h @ W2): the
/// strategy computes them per block of C, while it is in cache, instead of
/// in passes of their own over all of C.
static SmallVector<Operation *> elementwiseConsumers(linalg::LinalgOp matmul) {
  SmallVector<Operation *> consumers;
  Value current = matmul->getResult(0);
  while (current.hasOneUse()) {
    OpOperand &use = *current.use_begin();
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!generic || generic->hasAttr(kStrategyAttrName) ||
        !isTileableConsumer(generic, use))
      break;
    consumers.push_back(generic);
    current = generic.getResult(0);
  }
  return consumers;
}

/// Whether `value` is a constant, or a slice or reshape of one.
static bool readsConstant(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (matchPattern(value, m_Constant()))
      return true;
    if (!isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp>(op))
      return false;
    value = op->getOperand(0);
  }
  return false;
}

SmallVector<int64_t> registerTilesOf(ArrayRef<int64_t> sizes,
                                     const SelectionContext &context) {
  SmallVector<int64_t> tiles(context.registerTiles.begin(),
                             context.registerTiles.end());
  int64_t rows = sizes[kM];
  // An N of one f32 vector register where padding it to the tile's two
  // would grow the work past kMaxPaddedWork (16 columns, twice the work:
  // MobileNet-V2's 12544x32 by 32x16 ran as loops): tiles of one vector's
  // columns and twice the rows, the same accumulators. Elsewhere the 8x32
  // tile reads fewer operands per multiply-add (10 loads per 16, not 17).
  int64_t vector = context.target.vectorBits / 32;
  if (tiles[kN] == 2 * vector && !ShapedType::isDynamic(sizes[kN]) &&
      sizes[kN] % vector == 0 &&
      llvm::alignTo(sizes[kN], tiles[kN]) > kMaxPaddedWork * sizes[kN] &&
      !ShapedType::isDynamic(rows) && rows >= 2 * tiles[kM])
    return {2 * tiles[kM], vector, tiles[kK]};
  if (ShapedType::isDynamic(rows) || rows >= tiles[kM])
    return tiles;
  // As many columns as keep the sums in the registers of a whole tile's,
  // in whole tiles' columns, dividing N.
  int64_t columns =
      std::max(tiles[kM] * tiles[kN] / rows / tiles[kN], int64_t(1)) *
      tiles[kN];
  while (columns > tiles[kN] && sizes[kN] % columns)
    columns -= tiles[kN];
  return {rows, columns, tiles[kK]};
}

std::optional<Strategy> selectContraction(linalg::LinalgOp op,
                                          const SelectionContext &context,
                                          SmallVectorImpl<Operation *> &fused) {
  if (!op.hasPureTensorSemantics() || !isCanonicalMatmul(op))
    return std::nullopt;
  auto lhs = dyn_cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  auto rhs = dyn_cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  if (!lhs || !rhs || lhs.isDynamicDim(1) || !rhs.hasStaticShape())
    return std::nullopt;
  int64_t sizes[3] = {lhs.getDimSize(0), rhs.getDimSize(1), lhs.getDimSize(1)};
  SmallVector<int64_t> registerTiles = registerTilesOf(sizes, context);
  Strategy strategy(StrategyKind::ContractionBlocked);
  // A dynamic M (a batch, say) is tiled for the registers only, on one
  // thread.
  strategy.peelRows = lhs.isDynamicDim(0);
  if (strategy.peelRows)
    sizes[kM] = registerTiles[kM];
  strategy.fillC = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>() &&
                   op.getDpsInits()[0].hasOneUse();
  // Threads split N or M, each into whole register tiles. Each thread reads
  // all of A and its columns of B, or all of B and its rows of A: split N
  // when it is the larger (a B copied into panels is then copied once in
  // all, each thread its own columns), else M.
  int64_t threads = context.target.threads;
  if (threads > 1 && !strategy.peelRows &&
      sizes[kM] * sizes[kN] * sizes[kK] >= kMinThreadedWork) {
    unsigned order[2] = {kN, kM};
    if (sizes[kM] > sizes[kN])
      std::swap(order[0], order[1]);
    for (unsigned dim : order) {
      if (sizes[dim] % (threads * registerTiles[dim]))
        continue;
      strategy.threads.assign(2, 0);
      strategy.threads[dim] = sizes[dim] / threads;
      sizes[dim] = strategy.threads[dim];
      break;
    }
  }
  for (unsigned i : {kM, kN, kK}) {
    int64_t registers = registerTiles[i];
    if (sizes[i] % registers)
      return std::nullopt;
    // The largest multiple of the register tile up to the cache tile that
    // divides the size.
    int64_t cache =
        std::min(context.cacheTiles[i], sizes[i]) / registers * registers;
    while (cache > 0 && sizes[i] % cache)
      cache -= registers;
    if (cache == 0)
      return std::nullopt;
    strategy.cache.push_back(cache);
    strategy.registers.push_back(registers);
  }
  // Blocks of C: a dynamic M is not tiled.
  if (strategy.peelRows)
    strategy.cache[kM] = 0;
  // The pads that copy B take a zero of each operand's element type; types
  // without a zero attribute (complex) read B in place. A constant B is laid
  // out at compile time instead (constant-b-in-column-blocks): a block of
  // it is contiguous, its rows at most a block of C's columns apart.
  Builder builder(op.getContext());
  strategy.packB =
      context.packB && !strategy.peelRows && sizes[kM] >= kMinPackedRows &&
      !readsConstant(op.getDpsInputs()[1]) &&
      sizes[kN] * sizes[kK] >= minPackedFloats(context.target) &&
      llvm::all_of(op->getOperandTypes(), [&](Type type) {
        return builder.getZeroAttr(getElementTypeOrSelf(type)) != nullptr;
      });
  // Consumers computed per block of C pay when the block is in cache. With
  // a dynamic M a block spans every row (M is not tiled), and is out of
  // cache when they run: fused, a Linear(256, 256) with bias, ReLU and a
  // residual over 127-row sequences of a dynamic batch ran at 0.62x eager's
  // speed, unfused at 1.47x (static: 1.54x), 1 thread.
  if (context.fuseConsumers && !strategy.peelRows) {
    SmallVector<Operation *> consumers = elementwiseConsumers(op);
    strategy.consumers = consumers.size();
    fused.append(consumers);
    // The consumers in a block: rows of vectors.
    if (int64_t width =
            consumers.empty() ? 0 : rowVectorWidth(strategy.cache[kN]))
      strategy.vector = {1, width};
  }
  return strategy;
}

LogicalResult verifyContraction(Operation *op, const Strategy &strategy) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !isCanonicalMatmul(linalgOp))
    return op->emitError() << "contraction.blocked takes a matmul C(m, n) += "
                              "A(m, k) * B(k, n)";
  if (strategy.registers.size() != 3 || strategy.cache.size() != 3 ||
      llvm::is_contained(strategy.registers, 0))
    return op->emitError() << "contraction.blocked takes 3 cache sizes and 3 "
                              "nonzero register sizes (M, N, K)";
  Value current = op->getResult(0);
  for (int64_t i = 0; i < strategy.consumers; ++i) {
    if (!current.hasOneUse() ||
        !isa<linalg::GenericOp>(current.use_begin()->getOwner()))
      return op->emitError()
             << "contraction.blocked names " << strategy.consumers
             << " consumers; the chain of single-use generics has " << i;
    current = current.use_begin()->getOwner()->getResult(0);
  }
  return success();
}

/// Fuses `producers` (each the producer of the one before) into `loop`, in
/// order; they then name the fused ops, and the loop is returned. With
/// `resolveSizesIn`, sizes in the loops are first made to read the
/// operands' (with a dynamic M, they are read off the producers' results,
/// tensor.dim, and the producer would be cloned whole into the loop).
static Value fuseProducers(ImplicitLocOpBuilder &b,
                           MutableArrayRef<tx::Handle> producers, Value loop,
                           Value resolveSizesIn) {
  for (tx::Handle &producer : producers) {
    if (resolveSizesIn)
      tx::applyPatterns(b, resolveSizesIn, [](ImplicitLocOpBuilder &p) {
        transform::ApplyResolveRankedShapedTypeResultDimsPatternsOp::create(p);
      });
    std::tie(producer, loop) = tx::fuseInto(b, producer, loop);
  }
  return loop;
}

/// Rows of a dynamic count: the loop over register tiles of rows is peeled
/// into whole tiles and a last partial one, left to loops, and the whole
/// tiles are vectorized. When the count is a multiple of the tile's rows (a
/// batch of 16-row sequences with 8-row tiles), there is nothing to peel and
/// peeling fails: then every tile is whole, and is vectorized in place.
/// transform.alternatives tries the first on a copy of the function and
/// falls back to the second; so it comes last, as no handle into the
/// function survives it. The tile's rows usually fold to 8; where they
/// still read as min(rows - i, 8) (MLIR did not fold it when the rows were
/// resolved as b * 15 for fused consumers), the tile is vectorized under
/// masks, all true at run time, moved into the transfers' operands: the
/// later lowering of reads that broadcast (A's elements) fails under a mask.
static void vectorizeDynamicRows(const BuildContext &context,
                                 tx::Handle function) {
  ImplicitLocOpBuilder &b = context.builder;
  const Strategy &strategy = context.strategy;
  MLIRContext *mlirContext = b.getContext();
  Type anyOp = transform::AnyOpType::get(mlirContext);
  auto vectorizeMasked = [&](tx::Handle function, tx::Handle tile) {
    tx::vectorize(b, tile, strategy.registers);
    tx::applyPatterns(b, function, [](ImplicitLocOpBuilder &p) {
      transform::ApplyLowerMaskedTransfersPatternsOp::create(p);
    });
  };
  auto alternatives =
      transform::AlternativesOp::create(b, TypeRange(), function, 2);
  auto buildAlternative = [&](unsigned index, auto body) {
    Region &region = alternatives->getRegion(index);
    OpBuilder::InsertionGuard guard(b);
    Block *block = b.createBlock(&region, {}, {anyOp}, {b.getLoc()});
    body(block->getArgument(0),
         matchRoot(b, block->getArgument(0), context.op));
    transform::YieldOp::create(b);
  };
  buildAlternative(0, [&](tx::Handle function, tx::Handle tile) {
    // Register tiles loop over rows, then columns and K where tiled: rows
    // are the outermost of those loops around the tile.
    int64_t rowsLoop = llvm::count_if(strategy.registers,
                                      [](int64_t size) { return size != 0; });
    tx::Handle rows =
        transform::GetParentOp::create(
            b, transform::OperationType::get(mlirContext, "scf.for"), tile,
            /*isolated_from_above=*/nullptr, /*allow_empty_results=*/nullptr,
            b.getStringAttr("scf.for"), /*deduplicate=*/nullptr,
            b.getI64IntegerAttr(rowsLoop))
            .getParent();
    auto peeled = transform::LoopPeelOp::create(b, anyOp, anyOp, rows);
    vectorizeMasked(function, tx::match(b, peeled.getPeeledLoop(),
                                        context.op->getName().getStringRef()));
  });
  buildAlternative(1, vectorizeMasked);
}

/// The root, the last consumer or else the matmul, is tiled for threads,
/// then into blocks of C, columns outer and rows inner; the ops it depends
/// on are fused into those loops, producer after producer. In a block, the
/// matmul loops over K, then over register tiles. With `packB`, the columns
/// of B a column of blocks reads are copied, before its rows, into panels
/// of one register tile's width laid out in the order the register tiles
/// read them (the pad of the register tile's B, hoisted out of five loops):
/// every block of rows then reads B in order, a page at a time, rather than
/// one row of B per page.
void buildContraction(const BuildContext &context) {
  ImplicitLocOpBuilder &b = context.builder;
  const Strategy &strategy = context.strategy;
  tx::Handle matmul = context.root;
  tx::Handle function = tx::parentFunction(b, matmul);
  // What the root depends on, each op the producer of the one before: the
  // other consumers, last first, the matmul (unless it is the root), and
  // the fill of C.
  SmallVector<tx::Handle> chain = {matmul};
  for (int64_t i = 0; i < strategy.consumers; ++i)
    chain.push_back(tx::consumersOf(b, chain.back(), 0));
  tx::Handle root = chain.back();
  SmallVector<tx::Handle> producers(llvm::reverse(ArrayRef(chain).drop_back()));
  if (strategy.fillC)
    producers.push_back(tx::producerOf(b, matmul, 2));
  Value resolveSizesIn =
      strategy.peelRows && strategy.consumers ? function : Value();
  if (!strategy.threads.empty()) {
    // An scf.forall over parts of C, one per thread; each thread computes
    // its part of everything fused, the fill of C included.
    tx::Tiled parts =
        tx::tileForThreads(b, root, ArrayRef(strategy.threads).take_front(2));
    fuseProducers(b, producers, parts.loops[0], resolveSizesIn);
    root = parts.op;
  }
  // Blocks of C: columns outer, rows inner (a dynamic M is not tiled).
  ArrayRef<int64_t> cache = strategy.cache;
  SmallVector<int64_t> interchange;
  if (cache[0])
    interchange = {1, 0};
  tx::Tiled blocks =
      tx::tileWithLoops(b, root, cache.take_front(2), interchange);
  fuseProducers(b, producers, blocks.loops.back(), resolveSizesIn);
  tx::Handle block =
      strategy.consumers ? producers[strategy.consumers - 1] : blocks.op;
  tx::Handle kBlock = tx::tileWithLoops(b, block, {0, 0, cache[2]}).op;
  tx::Tiled registers = tx::tileWithLoops(b, kBlock, strategy.registers);
  tx::Handle registerTile = registers.op;
  if (strategy.packB) {
    // B's slice, taken in the rows loop, moves above it, and slices of
    // slices become one, so that the pad of B reads what is defined above
    // the five loops it is hoisted out of (registers, K, rows of blocks).
    transform::ApplyLoopInvariantCodeMotionOp::create(b, blocks.loops[1]);
    tx::applyPatterns(b, function, [](ImplicitLocOpBuilder &p) {
      transform::ApplyMergeConsecutiveInsertExtractSlicePatternsOp::create(p);
    });
    SmallVector<Attribute> zeros;
    for (Type type : context.op->getOperandTypes())
      zeros.push_back(b.getZeroAttr(getElementTypeOrSelf(type)));
    Type anyOp = transform::AnyOpType::get(b.getContext());
    auto padded = transform::PadOp::create(
        b, anyOp, anyOp, anyOp, registerTile, b.getArrayAttr(zeros),
        b.getI64ArrayAttr({0, 1, 2}), ValueRange(), ArrayRef<int64_t>(),
        b.getI64ArrayAttr({0, 1, 0}), /*transpose_paddings=*/nullptr,
        /*copy_back_op=*/"none");
    tx::Handle panelCopy = tx::producerOf(b, padded.getPadded(), 1);
    tx::Handle panels =
        transform::HoistPadOp::create(b, anyOp, panelCopy, 5).getTransformed();
    tx::vectorize(b, panels, {strategy.registers[kK], strategy.registers[kN]});
    registerTile = padded.getPadded();
  }
  // The consumers in a block, each in rows of vectors.
  if (!strategy.vector.empty()) {
    SmallVector<tx::Handle> inBlock = {blocks.op};
    inBlock.append(producers.begin(),
                   producers.begin() + strategy.consumers - 1);
    for (tx::Handle consumer : inBlock)
      tx::vectorize(b, tx::tileWithLoops(b, consumer, strategy.vector).op);
  }
  if (!strategy.peelRows)
    tx::vectorize(b, registerTile);
  else
    vectorizeDynamicRows(context, function);
}

} // namespace lighthouse::cpu
