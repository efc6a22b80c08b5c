//===- CPUSchedule.cpp - Tiling and vectorization for CPUs ----------------===//
//
// `lighthouse-cpu-schedule` tiles each eligible linalg.matmul on tensors twice,
// for the cache (blocks of C, columns outer, that stay in L2 while K
// streams) and for the registers (a block of C held in vector registers
// across the loop over K), and vectorizes the register tile into outer
// products, i.e. FMAs on vectors of N; a large B is first copied into
// panels in the order the register tiles read it, and large matmuls are
// split across threads. A chain of elementwise ops
// consuming a matmul's result (bias, activation) is computed per block of C,
// inside the matmul's loops, while the block is in cache. 2-D NCHW
// convolutions and poolings with a stride of 1 or 2 along the rows are tiled
// into blocks of channels by one or two output rows of pixels for the
// register kernel of WindowRows.h; others into single output rows,
// decomposed into 1-D windows and vectorized along the row; either is split
// across threads by images when the batch is large, else within the image
// when one image is. Elementwise
// generics are vectorized along their innermost dimension, and split across
// threads when large. The schedule is a transform-dialect script built per
// module, so each op gets tile sizes that fit its shape.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Codegen/CPU/Passes.h"
#include "lighthouse/Transforms/Vectorizable.h"

#include "WindowRows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/FormatVariadic.h"

#include <thread>

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_CPUSCHEDULE
#include "lighthouse/Codegen/CPU/Passes.h.inc"

namespace {

constexpr llvm::StringLiteral kScheduleAttr = "lighthouse.cpu_schedule";
/// On a convolution or pooling copy that runs when the batch is large enough
/// to split across threads (see versionOnBatchSize).
constexpr llvm::StringLiteral kThreadedAttr = "lighthouse.cpu_threaded";
/// On a convolution or pooling computed by the register kernel of
/// WindowRows.h, and on the blocks it is tiled into.
constexpr llvm::StringLiteral kWindowRowsAttr = "lighthouse.cpu_window_rows";
/// On the elementwise consumers of a scheduled matmul: their position in the
/// chain of consumers (1 for the one reading the matmul's result).
constexpr llvm::StringLiteral kConsumerAttr = "lighthouse.cpu_consumer";

/// Multiply-adds below which a matmul runs on one thread: waking the others
/// costs tens of microseconds, as much as ~2M multiply-adds on one core.
constexpr int64_t kMinThreadedWork = int64_t(1) << 21;
/// Elements below which an elementwise op runs on one thread. Measured on a
/// batch norm + ReLU over 128K floats: ~20 us on one thread, ~50 us on two
/// (waking the other thread costs more than it saves); over 512K floats,
/// ~175 us on one, ~125 us on two.
constexpr int64_t kMinThreadedElements = int64_t(1) << 19;

/// When a matmul copies B into panels (see matmulSchedule): from this many
/// floats of B per thread, read in place, B no longer stays in L2 (2 MB a
/// core on the machines measured) and its rows span more pages than the
/// TLB holds. Measured with bench/matmul.py on two threads, in panels vs in
/// place: 512^3 (128K floats a thread) 0.71-0.74 vs 0.73-0.78 of torch's
/// speed; 1024^3 (512K) 0.76-0.77 vs 0.44-0.50; 2048^3 0.81-0.84 vs
/// 0.34-0.55.
constexpr int64_t kMinPackedFloats = int64_t(1) << 18;
/// And from this many rows of A per thread: the copy costs about as much as
/// 5/M of the matmul.
constexpr int64_t kMinPackedRows = 64;

/// Tile sizes for one matmul: how threads split C, then [M, N, K] for the
/// cache and for the registers.
struct MatmulTiles {
  /// The dimension of C split across threads (0: M, 1: N), and each
  /// thread's part of it; -1: one thread.
  int threadDim = -1;
  int64_t threadPart = 0;
  /// Whether C starts as a linalg.fill, which each thread then does for its
  /// part of C (each block of C, when consumers are fused).
  bool fillsC = false;
  /// Whether M is dynamic: its loop is then peeled into whole register tiles
  /// and a partial one.
  bool dynamicRows = false;
  /// Whether B is copied into panels, one per column of blocks of C.
  bool packsB = false;
  /// The zeros of A's, B's and C's element types, as attributes in the
  /// schedule's text (the pads that copy B take one per operand).
  std::string zeros;
  SmallVector<int64_t, 3> cache, registers;
};

/// The tile sizes for `matmul`, or none when its shape does not divide into
/// full register tiles (partial tiles would not vectorize without masks).
/// Cache tiles shrink to divide the shape.
static std::optional<MatmulTiles> tilesFor(linalg::MatmulOp matmul,
                                           ArrayRef<int64_t> cacheTiles,
                                           ArrayRef<int64_t> registerTiles,
                                           int64_t threads, bool packB) {
  if (!matmul.hasPureTensorSemantics())
    return std::nullopt;
  auto lhs = dyn_cast<RankedTensorType>(matmul.getDpsInputs()[0].getType());
  auto rhs = dyn_cast<RankedTensorType>(matmul.getDpsInputs()[1].getType());
  if (!lhs || !rhs || lhs.getRank() != 2 || rhs.getRank() != 2 ||
      lhs.isDynamicDim(1) || !rhs.hasStaticShape())
    return std::nullopt;
  // Default indexing maps only: C(m, n) += A(m, k) * B(k, n).
  if (matmul.getIndexingMapsArray() !=
      matmul.getDefaultIndexingMaps(matmul.getContext()))
    return std::nullopt;
  int64_t sizes[3] = {lhs.getDimSize(0), rhs.getDimSize(1), lhs.getDimSize(1)};
  MatmulTiles tiles;
  // A dynamic M (a batch, say) is tiled for the registers only, on one
  // thread.
  tiles.dynamicRows = lhs.isDynamicDim(0);
  if (tiles.dynamicRows)
    sizes[0] = registerTiles[0];
  tiles.fillsC = matmul.getDpsInits()[0].getDefiningOp<linalg::FillOp>() &&
                 matmul.getDpsInits()[0].hasOneUse();
  // Threads split N or M, each into whole register tiles. Each thread reads
  // all of A and its columns of B, or all of B and its rows of A: split N
  // when it is the larger (a B copied into panels is then copied once in
  // all, each thread its own columns), else M.
  if (threads > 1 && !tiles.dynamicRows &&
      sizes[0] * sizes[1] * sizes[2] >= kMinThreadedWork) {
    int order[2] = {1, 0};
    if (sizes[0] > sizes[1])
      std::swap(order[0], order[1]);
    for (int dim : order) {
      if (sizes[dim] % (threads * registerTiles[dim]))
        continue;
      tiles.threadDim = dim;
      tiles.threadPart = sizes[dim] / threads;
      sizes[dim] = tiles.threadPart;
      break;
    }
  }
  for (int i = 0; i < 3; ++i) {
    int64_t registers = registerTiles[i];
    if (sizes[i] % registers)
      return std::nullopt;
    // The largest multiple of the register tile up to the cache tile that
    // divides the size.
    int64_t cache = std::min(cacheTiles[i], sizes[i]) / registers * registers;
    while (cache > 0 && sizes[i] % cache)
      cache -= registers;
    if (cache == 0)
      return std::nullopt;
    tiles.cache.push_back(cache);
    tiles.registers.push_back(registers);
  }
  tiles.packsB = packB && !tiles.dynamicRows && sizes[0] >= kMinPackedRows &&
                 sizes[1] * sizes[2] >= kMinPackedFloats;
  if (!tiles.packsB)
    return tiles;
  // The pads that copy B take a zero of each operand's element type; types
  // without a zero attribute (complex) read B in place.
  Builder builder(matmul.getContext());
  SmallVector<std::string, 3> zeros;
  for (Type type : matmul->getOperandTypes()) {
    Attribute zero = builder.getZeroAttr(getElementTypeOrSelf(type));
    if (!zero) {
      tiles.packsB = false;
      return tiles;
    }
    llvm::raw_string_ostream(zeros.emplace_back()) << zero;
  }
  tiles.zeros = llvm::join(zeros, ", ");
  return tiles;
}

/// Whether `generic`, reading `use` (a matmul's result, or the previous
/// consumer's), can be computed tile by tile inside the matmul's loops: it
/// is elementwise over the same 2-D iteration space and reads `use` element
/// for element, and its result does not depend on its init.
static bool isTileableConsumer(linalg::GenericOp generic, OpOperand &use) {
  auto linalgOp = cast<linalg::LinalgOp>(generic.getOperation());
  // Claimed by the schedule of another matmul it reads (x @ W1 + h @ W2).
  if (generic->hasAttr(kScheduleAttr))
    return false;
  if (!generic.hasPureTensorSemantics() || generic.getNumResults() != 1 ||
      generic.getNumLoops() != 2 || !linalg::isElementwise(linalgOp) ||
      !linalgOp.hasOnlyProjectedPermutations() || !generic.isDpsInput(&use) ||
      !generic.getMatchingIndexingMap(&use).isIdentity() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity() ||
      generic.getResult(0).getType() != use.get().getType() ||
      generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
    return false;
  return !staysScalar(generic);
}

/// The elementwise generics that consume `matmul`'s result one after the
/// other (bias, activation, residual), each the only user of the previous
/// result: the schedule computes them per block of C, while it is in cache,
/// instead of in passes of their own over all of C.
static SmallVector<linalg::GenericOp>
elementwiseConsumers(linalg::MatmulOp matmul) {
  SmallVector<linalg::GenericOp> consumers;
  Value current = matmul.getResult(0);
  while (current.hasOneUse()) {
    OpOperand &use = *current.use_begin();
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!generic || !isTileableConsumer(generic, use))
      break;
    consumers.push_back(generic);
    current = generic.getResult(0);
  }
  return consumers;
}

static std::string sizes(ArrayRef<int64_t> values) {
  return llvm::join(
      llvm::map_range(values, [](int64_t v) { return std::to_string(v); }),
      ", ");
}

/// The handle types that follow the tiled op's in the results of a
/// tile_using_for making `loops` loops: ", !transform.any_op" per loop.
static std::string loopHandleTypes(size_t loops) {
  std::string types;
  for (size_t i = 0; i < loops; ++i)
    types += ", !transform.any_op";
  return types;
}

/// The elements of a row of `size` vectorized at a time: all of them up to
/// 64 (a few vector registers), else the largest power of two from 64 down
/// to 8 that divides the row; 0 when that is under 8. Small vectors keep the
/// code small: LLVM's time grows with the code it gets.
static int64_t rowVectorWidth(int64_t size) {
  int64_t width = size;
  if (width > 64) {
    width = 64;
    while (width >= 8 && size % width)
      width /= 2;
  }
  return width < 8 ? 0 : width;
}

/// The transform ops that tile and vectorize the matmul marked with
/// kScheduleAttr = `index`, and its `consumers` elementwise generics, marked
/// with the same index and kConsumerAttr = their position (1, 2, ...). The
/// root, the last consumer or else the matmul, is tiled for threads, then
/// into blocks of C, columns outer and rows inner; the ops it depends on are
/// fused into those loops, producer after producer. In a block, the matmul
/// loops over K, then over register tiles. With `packsB`, the columns of B a
/// column of blocks reads are copied, before its rows, into panels of one
/// register tile's width laid out in the order the register tiles read them
/// (the pad of the register tile's B, hoisted out of five loops): every block
/// of rows then reads B in order, a page at a time, rather than one row of
/// B per page.
static std::string matmulSchedule(size_t index, const MatmulTiles &tile,
                                  size_t consumers) {
  // Each op's handles are suffixed with `index`, formatted in as {0}.
  auto format = [&](const char *text, auto &&...values) {
    return llvm::formatv(text, index, values...).str();
  };
  std::string block = format(R"mlir(
    %matched{0} = transform.structured.match ops{{["linalg.matmul"]}
        attributes{{{1} = {0} : i64} in %root : (!transform.any_op) -> !transform.any_op
    %func{0} = transform.get_parent_op %matched{0} {{op_name = "func.func"}
        : (!transform.any_op) -> !transform.any_op
)mlir",
                             kScheduleAttr);
  // With a dynamic M, sizes in the fused loops are read off the producers'
  // results (tensor.dim): before each fusion they are made to read the
  // operands' instead, or the producer would be cloned whole into the loop.
  std::string resolveSizes;
  if (tile.dynamicRows && consumers)
    resolveSizes = format(R"mlir(
    transform.apply_patterns to %func{0} {{
      transform.apply_patterns.memref.resolve_ranked_shaped_type_result_dims
    } : !transform.any_op)mlir");
  for (size_t i = 1; i <= consumers; ++i)
    block += format(R"mlir(
    %consumer{0}_{1} = transform.structured.match ops{{["linalg.generic"]}
        attributes{{{2} = {0} : i64, {3} = {1} : i64} in %root : (!transform.any_op) -> !transform.any_op
)mlir",
                    i, kScheduleAttr, kConsumerAttr);
  if (tile.fillsC)
    block += format(R"mlir(
    %fill{0} = transform.get_producer_of_operand %matched{0}[2]
        : (!transform.any_op) -> !transform.any_op
)mlir");
  std::string root =
      consumers ? format("%consumer{0}_{1}", consumers) : format("%matched{0}");
  // What the root depends on, each op the producer of the one before: the
  // other consumers, last first, the matmul (unless it is the root), and
  // the fill of C.
  SmallVector<std::string> producers;
  for (size_t i = consumers; i > 1; --i)
    producers.push_back(format("%consumer{0}_{1}", i - 1));
  if (consumers)
    producers.push_back(format("%matched{0}"));
  if (tile.fillsC)
    producers.push_back(format("%fill{0}"));
  // Fuses `producers` into `loop`, one after the other; they then name the
  // fused ops.
  auto fuseProducersInto = [&](std::string loop, llvm::StringRef stage) {
    std::string script;
    for (auto [i, producer] : llvm::enumerate(producers)) {
      std::string fused = format("%{1}{0}_{2}", stage, i);
      std::string fusedLoop = format("%{1}_loop{0}_{2}", stage, i);
      script += resolveSizes + format(R"mlir(
    {1}, {2} = transform.structured.fuse_into_containing_op {3} into {4}
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir",
                                      fused, fusedLoop, producer, loop);
      producer = fused;
      loop = fusedLoop;
    }
    return script;
  };
  if (tile.threadDim >= 0) {
    // An scf.forall over parts of C, one per thread; each thread computes
    // its part of everything fused, the fill of C included.
    SmallVector<int64_t> part = {0, 0};
    part[tile.threadDim] = tile.threadPart;
    block += format(R"mlir(
    %threads{0}, %forall{0} = transform.structured.tile_using_forall {1}
        tile_sizes [{2}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir",
                    root, sizes(part));
    block += fuseProducersInto(format("%forall{0}"), "thread");
    root = format("%threads{0}");
  }
  // Blocks of C: columns outer, rows inner (a dynamic M is not tiled).
  SmallVector<int64_t> blockTiles = {tile.dynamicRows ? 0 : tile.cache[0],
                                     tile.cache[1]};
  size_t blockLoops = blockTiles[0] ? 2 : 1;
  block +=
      format(R"mlir(
    %block{0}, %bl{0}:{2} = transform.structured.tile_using_for {1} tile_sizes [{3}]{5}
        : (!transform.any_op) -> (!transform.any_op{4})
)mlir",
             root, blockLoops, sizes(blockTiles), loopHandleTypes(blockLoops),
             blockLoops == 2 ? " interchange = [1, 0]" : "");
  std::string innerBlockLoop = format("%bl{0}#{1}", blockLoops - 1);
  block += fuseProducersInto(innerBlockLoop, "cache");
  std::string matmul =
      consumers ? producers[consumers - 1] : format("%block{0}");
  // The consumers in a block: rows of vectors.
  std::string consumerTiling;
  if (int64_t width = consumers ? rowVectorWidth(tile.cache[1]) : 0) {
    SmallVector<std::string> inBlock = {format("%block{0}")};
    inBlock.append(producers.begin(), producers.begin() + consumers - 1);
    for (auto [i, consumer] : llvm::enumerate(inBlock))
      consumerTiling += format(R"mlir(
    %rows{0}_{1}, %rowl{0}_{1}:2 = transform.structured.tile_using_for {2} tile_sizes [1, {3}]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %rows{0}_{1} : !transform.any_op
)mlir",
                               i, consumer, width);
  }
  block += format(R"mlir(
    %kblock{0}, %kl{0} = transform.structured.tile_using_for {1} tile_sizes [0, 0, {2}]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %regs{0}, %rl{0}:3 = transform.structured.tile_using_for %kblock{0} tile_sizes [{3}]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
)mlir",
                  matmul, tile.cache[2], sizes(tile.registers));
  std::string registerTile = format("%regs{0}");
  if (tile.packsB) {
    // B's slice, taken in the rows loop, moves above it, and slices of
    // slices become one, so that the pad of B reads what is defined above
    // the five loops it is hoisted out of (registers, K, rows of blocks).
    block += format(R"mlir(
    transform.apply_licm to %bl{0}#1 : !transform.any_op
    transform.apply_patterns to %func{0} {{
      transform.apply_patterns.tensor.merge_consecutive_insert_extract_slice
    } : !transform.any_op
    %padded{0}, %pad{0}, %copy{0} = transform.structured.pad %regs{0} {{
        padding_values = [{3}],
        padding_dimensions = [0, 1, 2], nofold_flags = [0, 1, 0],
        copy_back_op = "none"}
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %panelCopy{0} = transform.get_producer_of_operand %padded{0}[1]
        : (!transform.any_op) -> !transform.any_op
    %panels{0} = transform.structured.hoist_pad %panelCopy{0} by 5 loops
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %panels{0} vector_sizes [{1}, {2}]
        : !transform.any_op
)mlir",
                    tile.registers[2], tile.registers[1], tile.zeros);
    registerTile = format("%padded{0}");
  }
  if (!tile.dynamicRows)
    return block +
           format(R"mlir(
    transform.structured.vectorize {1} : !transform.any_op
)mlir",
                  registerTile) +
           consumerTiling;
  // Rows of a dynamic count: the loop over register tiles of rows is peeled
  // into whole tiles, vectorized, and a last partial one, left to loops.
  return block +
         format(R"mlir(
    %rows{0} = transform.cast %rl{0}#0 : !transform.any_op to !transform.op<"scf.for">
    %whole{0}, %partial{0} = transform.loop.peel %rows{0}
        : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    %full{0} = transform.structured.match ops{{["linalg.matmul"]} in %whole{0}
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %full{0} vector_sizes [{1}] : !transform.any_op
)mlir",
                sizes(tile.registers)) +
         consumerTiling;
}

/// Whether `op` is a 2-D convolution or pooling in NCHW layout, which the
/// schedule tiles as windowPlan says.
static bool isWindowOp(Operation *op) {
  return isa<linalg::Conv2DNchwFchwOp, linalg::PoolingNchwMaxOp,
             linalg::PoolingNchwSumOp>(op);
}

/// The tile sizes of one output row of a block of channels for the
/// convolution or pooling `op`, or none for shapes the schedule does not
/// handle.
static std::optional<SmallVector<int64_t>> windowTiles(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return std::nullopt;
  // Static but for the batch, which is tiled by 1.
  auto output = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
  if (!isStaticButBatch(output) ||
      !llvm::all_of(op.getDpsInputs(), [&](Value input) {
        return isStaticButBatch(input.getType()) ||
               cast<ShapedType>(input.getType()).hasStaticShape();
      }))
    return std::nullopt;
  int64_t channels = output.getDimSize(1), width = output.getDimSize(3);
  int64_t channelTile = channels <= 16 ? channels : channels % 8 == 0 ? 8 : 0;
  int64_t widthTile = width <= 64 ? width : width % 16 == 0 ? 16 : 0;
  if (!channelTile || !widthTile)
    return std::nullopt;
  // Iteration spaces: conv (n, f, oh, ow, c, kh, kw), pooling (n, c, oh, ow,
  // kh, kw); 1-D windows need unit oh and kh.
  if (isa<linalg::Conv2DNchwFchwOp>(op))
    return SmallVector<int64_t>{1, channelTile, 1, widthTile, 0, 1, 0};
  return SmallVector<int64_t>{1, channelTile, 1, widthTile, 1, 0};
}

/// How the schedule computes a convolution or pooling: its tile sizes, and
/// whether each tile is a block of the register kernel of WindowRows.h or
/// is decomposed into 1-D windows that linalg vectorizes.
struct WindowPlan {
  SmallVector<int64_t> tiles;
  bool rowKernel;
};

/// A loop of an op split across threads: in `threads` parts, or in parts
/// of `part` iterations when set.
struct ThreadSplit {
  unsigned loop;
  int64_t threads;
  int64_t part = 0;
};

static std::optional<WindowPlan> windowPlan(linalg::LinalgOp op) {
  if (std::optional<WindowRowTile> block = windowRowTile(op)) {
    // Iteration spaces: conv (n, f, oh, ow, c, kh, kw), pooling (n, c, oh,
    // ow, kh, kw); the block's loops, the others untiled.
    SmallVector<int64_t> tiles(op.getNumLoops(), 0);
    tiles[0] = 1;
    tiles[1] = block->channels;
    tiles[2] = block->rows;
    tiles[3] = block->pixels;
    return WindowPlan{tiles, /*rowKernel=*/true};
  }
  if (std::optional<SmallVector<int64_t>> tiles = windowTiles(op))
    return WindowPlan{*tiles, /*rowKernel=*/false};
  return std::nullopt;
}

/// The transform ops that tile the convolution or pooling `op` marked with
/// kScheduleAttr = `index` as `plan` says; tiles for linalg's vectorizer are
/// decomposed into 1-D windows and vectorized along the row, blocks of the
/// register kernel are left to vectorizeWindowRows. With `split`, its loop is
/// first split across that many threads.
static std::string windowSchedule(size_t index, linalg::LinalgOp op,
                                  const WindowPlan &plan,
                                  std::optional<ThreadSplit> split) {
  std::string splitOps, parts = "%window";
  if (split) {
    SmallVector<int64_t> counts(op.getNumLoops(), 0);
    counts[split->loop] = split->part ? split->part : split->threads;
    splitOps = llvm::formatv(R"mlir(
    %parts{0}, %wforall{0} = transform.structured.tile_using_forall %window{0}
        {1} [{2}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir",
                             index, split->part ? "tile_sizes" : "num_threads",
                             sizes(counts))
                   .str();
    parts = "%parts";
  }
  size_t loops = llvm::count_if(plan.tiles, [](int64_t t) { return t; });
  std::string vectorize;
  if (!plan.rowKernel)
    vectorize = llvm::formatv(R"mlir(
    %windows1d{0} = transform.structured.decompose %rows{0}
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %windows1d{0} : !transform.any_op
)mlir",
                              index)
                    .str();
  return llvm::formatv(
             R"mlir(
    %window{0} = transform.structured.match ops{{["{1}"]}
        attributes{{{2} = {0} : i64} in %root : (!transform.any_op) -> !transform.any_op
{4}
    %rows{0}, %wl{0}:{6} = transform.structured.tile_using_for {5}{0} tile_sizes [{3}]
        : (!transform.any_op) -> (!transform.any_op{7})
{8})mlir",
             index, op->getName().getStringRef(), kScheduleAttr,
             sizes(plan.tiles), splitOps, parts, loops, loopHandleTypes(loops),
             vectorize)
      .str();
}

/// Multiply-adds (or comparisons) per image of a convolution or pooling:
/// its static iteration space but the batch.
static int64_t workPerImage(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t work = 1;
  for (int64_t range : ArrayRef(ranges).drop_front())
    work *= ShapedType::isDynamic(range) ? 1 : range;
  return work;
}

/// The images from which a convolution or pooling is split across
/// `threads` threads: enough work for each, and an image for each.
static int64_t minThreadedBatch(linalg::LinalgOp op, int64_t threads) {
  int64_t perImage = std::max<int64_t>(workPerImage(op), 1);
  return std::max(threads, (kMinThreadedWork + perImage - 1) / perImage);
}

/// How the convolution or pooling `op`, tiled as `plan` says, is split
/// across `threads` threads: by images when the batch holds enough work for
/// each; else, when one image does (batch 1 of a large network), by blocks
/// of output channels (if they divide evenly among the threads) or by output
/// rows, whichever has each thread read less, rows in parts of
/// ceil(rows / threads) (then `plan`'s blocks of rows are kept only if they
/// divide every part: blocks must be static); else not at all.
static std::optional<ThreadSplit>
windowSplit(linalg::LinalgOp op, WindowPlan &plan, int64_t threads) {
  if (threads < 2)
    return std::nullopt;
  auto output = cast<ShapedType>(op.getDpsInits()[0].getType());
  if (op->hasAttr(kThreadedAttr) ||
      (!output.isDynamicDim(0) &&
       output.getDimSize(0) >= minThreadedBatch(op, threads)))
    return ThreadSplit{/*loop=*/0, threads};
  if (workPerImage(op) < kMinThreadedWork)
    return std::nullopt;
  // Loops 1 and 2 are the output channels and rows of a convolution
  // (n, f, oh, ...) and of a pooling (n, c, oh, ...). Each thread reads the
  // whole image and its part of the filters, or its part of the image and
  // the whole filters: the split reading less is taken.
  auto elements = [](Value value) {
    ArrayRef<int64_t> shape = cast<ShapedType>(value.getType()).getShape();
    return llvm::product_of(shape.drop_front());
  };
  int64_t image = elements(op.getDpsInputs()[0]),
          filters =
              elements(op.getDpsInputs()[1]) *
              cast<ShapedType>(op.getDpsInputs()[1].getType()).getDimSize(0);
  int64_t rows = output.getDimSize(2);
  bool channelsDivide = output.getDimSize(1) % (threads * plan.tiles[1]) == 0;
  if (channelsDivide &&
      (rows < 2 || image + filters / threads <= image / threads + filters))
    return ThreadSplit{/*loop=*/1, threads};
  if (rows < 2)
    return std::nullopt;
  int64_t part = llvm::divideCeil(rows, std::min(threads, rows));
  if (rows % part != 0 || part % plan.tiles[2] != 0)
    plan.tiles[2] = 1;
  return ThreadSplit{/*loop=*/2, threads, part};
}

/// Replaces each convolution and pooling with a dynamic batch by two copies
/// in an scf.if on the batch size: the one taken from minThreadedBatch
/// images on is marked with kThreadedAttr, to be split across threads by
/// images; the other is split within images when one image holds enough
/// work (windowSplit), else runs on one thread, as small batches of small
/// images wake no thread.
static void versionOnBatchSize(ModuleOp module, int64_t threads) {
  SmallVector<linalg::LinalgOp> windows;
  module.walk([&](linalg::LinalgOp op) {
    if (isWindowOp(op) &&
        cast<ShapedType>(op.getDpsInits()[0].getType()).isDynamicDim(0) &&
        windowPlan(op))
      windows.push_back(op);
  });
  for (linalg::LinalgOp op : windows) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    Value batch = tensor::DimOp::create(builder, loc, op.getDpsInits()[0], 0);
    Value large =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, batch,
                              arith::ConstantIndexOp::create(
                                  builder, loc, minThreadedBatch(op, threads)));
    auto branch = scf::IfOp::create(builder, loc, op->getResultTypes(), large,
                                    /*withElseRegion=*/true);
    for (Block *block : {branch.thenBlock(), branch.elseBlock()}) {
      builder.setInsertionPointToStart(block);
      Operation *copy = builder.clone(*op);
      if (block == branch.thenBlock())
        copy->setAttr(kThreadedAttr, builder.getUnitAttr());
      scf::YieldOp::create(builder, loc, copy->getResults());
    }
    op->replaceAllUsesWith(branch.getResults());
    op->erase();
  }
}

/// For the elementwise linalg.generic marked with kScheduleAttr = `index`
/// (all loops parallel, the innermost static; operands read element for
/// element or broadcast): every loop but the innermost tiled by 1, the
/// innermost by up to 64 elements (a few vector registers), which becomes
/// vectors. Small vectors keep the code small: LLVM's time grows with the
/// code it gets. A static op of kMinThreadedElements or more is first split
/// across `threads` threads along its outermost loop of `threads` iterations
/// or more. Returns none for ops it does not handle.
static std::optional<std::string>
elementwiseSchedule(size_t index, linalg::GenericOp op, int64_t threads) {
  auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
  if (!op.hasPureTensorSemantics() || op.getNumResults() != 1 ||
      !linalg::isElementwise(linalgOp))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty() || ShapedType::isDynamic(ranges.back()))
    return std::nullopt;
  int64_t width = rowVectorWidth(ranges.back());
  // The loop split across threads: the outermost with an iteration for
  // each (not the batch, at batch 1), but the innermost, which is vectorized.
  auto splitLoop =
      llvm::find_if(ArrayRef(ranges).drop_back(),
                    [&](int64_t range) { return range >= threads; });
  bool threaded = threads > 1 && splitLoop != ranges.end() - 1 &&
                  llvm::none_of(ranges, ShapedType::isDynamic) &&
                  llvm::product_of(ranges) >= kMinThreadedElements;
  // Operands read through a unit dimension (per-channel constants of shape
  // Cx1x1), once vectorized, are read element by element into each row:
  // measured 20x slower on a batch norm than the loops LLVM vectorizes. Such
  // ops are only split across threads.
  bool vectorize = width && linalgOp.hasOnlyProjectedPermutations();
  if (!vectorize && !threaded)
    return std::nullopt;
  std::string split, rows = "%ew";
  if (threaded) {
    // Parts of ceil(range / threads) iterations: no thread gets an empty one.
    SmallVector<int64_t> partSizes(ranges.size(), 0);
    partSizes[splitLoop - ranges.begin()] =
        llvm::divideCeil(*splitLoop, threads);
    split = llvm::formatv(R"mlir(
    %ewparts{0}, %ewforall{0} = transform.structured.tile_using_forall %ew{0}
        tile_sizes [{1}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir",
                          index, sizes(partSizes))
                .str();
    rows = "%ewparts";
  }
  std::string vectorizeRows;
  SmallVector<int64_t> tiles(ranges.size(), 1);
  tiles.back() = width;
  if (vectorize)
    vectorizeRows = llvm::formatv(R"mlir(
    %rows{0}, %el{0}:{1} = transform.structured.tile_using_for {2}{0} tile_sizes [{3}]
        : (!transform.any_op) -> (!transform.any_op{4})
    transform.structured.vectorize %rows{0} : !transform.any_op
)mlir",
                                  index, ranges.size(), rows, sizes(tiles),
                                  loopHandleTypes(ranges.size()))
                        .str();
  return llvm::formatv(R"mlir(
    %ew{0} = transform.structured.match ops{{["linalg.generic"]}
        attributes{{{1} = {0} : i64} in %root : (!transform.any_op) -> !transform.any_op
{2}{3})mlir",
                       index, kScheduleAttr, split, vectorizeRows)
      .str();
}

/// The transform script applying `blocks`, then lowering what they
/// vectorized into FMAs.
static std::string buildSchedule(ArrayRef<std::string> blocks) {
  // Each op's block runs in a sequence of its own whose silenceable failures
  // (an op the vectorizer turns down, say) are suppressed: that op is left
  // as far as its block got, tiled loops at worst, and the others go on.
  std::string body;
  for (const std::string &block : blocks)
    body += R"mlir(
    transform.sequence %root : !transform.any_op failures(suppress) {
    ^bb0(%scope: !transform.any_op):)mlir" +
            llvm::join(llvm::split(block, "%root"), "%scope") + R"mlir(
    }
)mlir";
  return llvm::formatv(
      R"mlir(
module attributes {{transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}) {{
{0}
    %funcs = transform.structured.match ops{{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    // First fold the broadcasts and transposes of the vectorized matmuls into
    // vector.contract, then lower those to FMAs on rows of N.
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    // Keep what each loop reads and writes back at the same place (the block
    // of C of a register tile) in registers across the loop; the places
    // compare equal once their offsets are one value each.
    transform.apply_cse to %funcs : !transform.any_op
    %loops = transform.structured.match ops{{["scf.for"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    transform.yield
  }
}
)mlir",
      body);
}

class CPUSchedulePass : public impl::CPUScheduleBase<CPUSchedulePass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto positive = [](int64_t size) { return size > 0; };
    if (cacheTiles.size() != 3 || registerTiles.size() != 3 ||
        !llvm::all_of(cacheTiles, positive) ||
        !llvm::all_of(registerTiles, positive)) {
      module.emitError("lighthouse-cpu-schedule: cache-tiles and "
                       "register-tiles take three positive sizes each (M, "
                       "N, K)");
      return signalPassFailure();
    }
    SmallVector<std::string> blocks;
    Builder builder(module.getContext());
    int64_t threadCount =
        threads > 0 ? threads
                    : static_cast<int64_t>(std::thread::hardware_concurrency());
    if (threadCount > 1)
      versionOnBatchSize(module, threadCount);
    auto mark = [&](Operation *op, std::string block) {
      op->setAttr(kScheduleAttr, builder.getI64IntegerAttr(blocks.size()));
      blocks.push_back(std::move(block));
    };
    module.walk([&](linalg::LinalgOp op) {
      if (staysScalar(op))
        return;
      if (op->hasAttr(kScheduleAttr))
        return; // A consumer fused into its matmul's schedule.
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation())) {
        if (auto tiles = tilesFor(matmul, cacheTiles, registerTiles,
                                  threadCount, packB)) {
          SmallVector<linalg::GenericOp> consumers =
              elementwiseConsumers(matmul);
          if (!fuseConsumers)
            consumers.clear();
          for (auto [i, consumer] : llvm::enumerate(consumers)) {
            consumer->setAttr(kScheduleAttr,
                              builder.getI64IntegerAttr(blocks.size()));
            consumer->setAttr(kConsumerAttr, builder.getI64IntegerAttr(i + 1));
          }
          mark(op, matmulSchedule(blocks.size(), *tiles, consumers.size()));
        }
      } else if (isWindowOp(op)) {
        std::optional<WindowPlan> plan = windowPlan(op);
        if (!plan)
          return;
        std::optional<ThreadSplit> split = windowSplit(op, *plan, threadCount);
        if (plan->rowKernel)
          op->setAttr(kWindowRowsAttr, builder.getUnitAttr());
        mark(op, windowSchedule(blocks.size(), op, *plan, split));
      } else if (auto generic =
                     dyn_cast<linalg::GenericOp>(op.getOperation())) {
        if (auto block =
                elementwiseSchedule(blocks.size(), generic, threadCount))
          mark(op, *block);
      }
    });
    if (blocks.empty())
      return;

    OwningOpRef<ModuleOp> schedule =
        parseSourceString<ModuleOp>(buildSchedule(blocks), module.getContext());
    if (!schedule) {
      module.emitError("lighthouse-cpu-schedule: invalid schedule");
      return signalPassFailure();
    }
    auto entry =
        schedule->lookupSymbol<transform::NamedSequenceOp>("__transform_main");
    LogicalResult applied = transform::applyTransforms(
        module, entry, /*extraMapping=*/{}, transform::TransformOptions(),
        /*enforceToplevelTransformOp=*/false);
    // The blocks of convolutions and poolings tiled for the register kernel;
    // one whose tiling failed keeps its shape, which the kernel turns down:
    // loops.
    SmallVector<linalg::LinalgOp> rowBlocks;
    module.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kWindowRowsAttr))
        rowBlocks.push_back(op);
    });
    IRRewriter rewriter(module.getContext());
    for (linalg::LinalgOp block : rowBlocks)
      (void)vectorizeWindowRows(rewriter, block);
    module.walk([](Operation *op) {
      op->removeAttr(kWindowRowsAttr);
      op->removeAttr(kScheduleAttr);
      op->removeAttr(kConsumerAttr);
      op->removeAttr(kThreadedAttr);
    });
    if (failed(applied))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
