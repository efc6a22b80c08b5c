//===- CPUSchedule.cpp - Tiling and vectorization of matmuls for CPUs -----===//
//
// `lighthouse-cpu-schedule` tiles each eligible linalg.matmul on tensors twice,
// for the cache (a block of C that stays in L2 while K streams) and for the
// registers (a block of C held in vector registers), and vectorizes the
// register tile into outer products, i.e. FMAs on vectors of N. The schedule
// is a transform-dialect script built per module, so each matmul gets tile
// sizes that fit its shape.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Pipelines/Pipelines.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/FormatVariadic.h"

#include <thread>

using namespace mlir;

namespace lighthouse {
namespace {

constexpr llvm::StringLiteral kScheduleAttr = "lighthouse.cpu_schedule";

/// Tile sizes for one matmul: the rows of M each thread takes (0: one
/// thread), then [M, N, K] for the cache and for the registers.
struct MatmulTiles {
  int64_t threadRows = 0;
  SmallVector<int64_t, 3> cache, registers;
};

/// The tile sizes for `matmul`, or none when its shape does not divide into
/// full tiles (partial tiles would not vectorize without masks).
static std::optional<MatmulTiles> tilesFor(linalg::MatmulOp matmul,
                                           ArrayRef<int64_t> cacheTiles,
                                           ArrayRef<int64_t> registerTiles,
                                           int64_t threads) {
  if (!matmul.hasPureTensorSemantics())
    return std::nullopt;
  auto lhs = dyn_cast<RankedTensorType>(matmul.getDpsInputs()[0].getType());
  auto rhs = dyn_cast<RankedTensorType>(matmul.getDpsInputs()[1].getType());
  if (!lhs || !rhs || !lhs.hasStaticShape() || !rhs.hasStaticShape() ||
      lhs.getRank() != 2 || rhs.getRank() != 2)
    return std::nullopt;
  // Default indexing maps only: C(m, n) += A(m, k) * B(k, n).
  if (matmul.getIndexingMapsArray() !=
      matmul.getDefaultIndexingMaps(matmul.getContext()))
    return std::nullopt;
  int64_t sizes[3] = {lhs.getDimSize(0), rhs.getDimSize(1), lhs.getDimSize(1)};
  MatmulTiles tiles;
  // Threads split M when each gets whole register tiles.
  if (threads > 1 && sizes[0] % (threads * registerTiles[0]) == 0) {
    tiles.threadRows = sizes[0] / threads;
    sizes[0] = tiles.threadRows;
  }
  for (int i = 0; i < 3; ++i) {
    int64_t cache = std::min(cacheTiles[i], sizes[i]);
    if (sizes[i] % registerTiles[i] || cache % registerTiles[i] ||
        sizes[i] % cache)
      return std::nullopt;
    tiles.cache.push_back(cache);
    tiles.registers.push_back(registerTiles[i]);
  }
  return tiles;
}

static std::string sizes(ArrayRef<int64_t> values) {
  return llvm::join(llvm::map_range(values, [](int64_t v) {
                      return std::to_string(v);
                    }),
                    ", ");
}

/// The transform script that tiles and vectorizes the matmuls marked with
/// kScheduleAttr = i, with tiles[i].
static std::string buildSchedule(ArrayRef<MatmulTiles> tiles) {
  std::string body;
  for (auto [index, tile] : llvm::enumerate(tiles)) {
    body += llvm::formatv(
        R"mlir(
    %matched{0} = transform.structured.match ops{{["linalg.matmul"]}
        attributes{{{1} = {0} : i64} in %root : (!transform.any_op) -> !transform.any_op
)mlir",
        index, kScheduleAttr);
    // An scf.forall over blocks of rows, one per thread.
    body += tile.threadRows
                ? llvm::formatv(R"mlir(
    %mm{0}, %forall{0} = transform.structured.tile_using_forall %matched{0}
        tile_sizes [{1}, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir",
                                index, tile.threadRows)
                      .str()
                : llvm::formatv("    %mm{0} = transform.merge_handles %matched{0} "
                                ": !transform.any_op\n",
                                index)
                      .str();
    body += llvm::formatv(
        R"mlir(
    %cache{0}, %cl{0}:3 = transform.structured.tile_using_for %mm{0} tile_sizes [{2}]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %regs{0}, %rl{0}:3 = transform.structured.tile_using_for %cache{0} tile_sizes [{3}]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %regs{0} : !transform.any_op
)mlir",
        index, kScheduleAttr, sizes(tile.cache), sizes(tile.registers));
  }
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
    transform.yield
  }
}
)mlir",
      body);
}

class CPUSchedulePass
    : public PassWrapper<CPUSchedulePass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CPUSchedulePass)

  CPUSchedulePass() = default;
  CPUSchedulePass(const CPUSchedulePass &other) : PassWrapper(other) {}

  StringRef getArgument() const override { return "lighthouse-cpu-schedule"; }
  StringRef getDescription() const override {
    return "Tile matmuls on tensors for the cache and the registers and "
           "vectorize them into outer products";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<transform::TransformDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (cacheTiles.size() != 3 || registerTiles.size() != 3) {
      module.emitError("lighthouse-cpu-schedule: cache-tiles and "
                       "register-tiles take three sizes each (M, N, K)");
      return signalPassFailure();
    }
    SmallVector<MatmulTiles> tiles;
    Builder builder(module.getContext());
    int64_t threadCount =
        threads > 0 ? threads
                    : static_cast<int64_t>(std::thread::hardware_concurrency());
    module.walk([&](linalg::MatmulOp matmul) {
      if (auto chosen =
              tilesFor(matmul, cacheTiles, registerTiles, threadCount)) {
        matmul->setAttr(kScheduleAttr, builder.getI64IntegerAttr(tiles.size()));
        tiles.push_back(*chosen);
      }
    });
    if (tiles.empty())
      return;

    OwningOpRef<ModuleOp> schedule =
        parseSourceString<ModuleOp>(buildSchedule(tiles), module.getContext());
    if (!schedule) {
      module.emitError("lighthouse-cpu-schedule: invalid schedule");
      return signalPassFailure();
    }
    auto entry = schedule->lookupSymbol<transform::NamedSequenceOp>(
        "__transform_main");
    LogicalResult applied = transform::applyTransforms(
        module, entry, /*extraMapping=*/{}, transform::TransformOptions(),
        /*enforceToplevelTransformOp=*/false);
    module.walk([](Operation *op) { op->removeAttr(kScheduleAttr); });
    if (failed(applied))
      signalPassFailure();
  }

private:
  ListOption<int64_t> cacheTiles{
      *this, "cache-tiles",
      llvm::cl::desc("M, N, K tile sizes of the block of C kept in cache"),
      llvm::cl::list_init<int64_t>({128, 1024, 64})};
  ListOption<int64_t> registerTiles{
      *this, "register-tiles",
      llvm::cl::desc("M, N, K tile sizes of the block of C kept in vector "
                     "registers (N a multiple of the vector width)"),
      llvm::cl::list_init<int64_t>({8, 32, 8})};
  Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads that split each matmul's rows (0: one per "
                     "hardware thread; 1: no scf.forall)"),
      llvm::cl::init(0)};
};

} // namespace

void registerCPUSchedulePass() { PassRegistration<CPUSchedulePass>(); }

} // namespace lighthouse
