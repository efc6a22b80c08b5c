//===- OpFamilies.h - The op families of the CPU code generator -*- C++ -*-===//
//
// Each op family has a file of its own holding its policy (`select...`: the
// strategy for one op of the family, or none to leave it to loops) and the
// builders of its strategy kinds (`build...`: the transform ops that apply a
// strategy to one op), and a file of the rewrites of its ops into the forms
// its policy takes (`<Family>Rewrites.cpp`, run by
// lighthouse-cpu-prepare-forms). The family table (`opFamilies`, in
// OpFamilies.cpp) is all that dispatches to them: selection asks the
// families' policies, application their checks and builders, the forms pass
// runs their rewrites. Adding a family is a file here, a row in the table,
// and a test.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_LIB_CODEGEN_CPU_OPFAMILIES_H
#define LIGHTHOUSE_LIB_CODEGEN_CPU_OPFAMILIES_H

#include "lighthouse/Codegen/CPU/Strategy.h"
#include "lighthouse/Codegen/CPU/Target.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <optional>

namespace lighthouse::cpu {

/// What every policy and every form reads: the target and the selection
/// options.
struct SelectionContext {
  CPUTarget target;
  /// Contractions: M, N, K tile sizes of blocks in cache and in registers.
  llvm::SmallVector<int64_t, 3> cacheTiles, registerTiles;
  bool packB = true;
  bool fuseConsumers = true;
};

/// The context that the selection options of `pass`
/// (lighthouse-cpu-prepare-forms or lighthouse-cpu-select-strategy) give:
/// the target `target` names, else `module`'s; the register tiles by default
/// 8 rows by two f32 vector registers by 8 of K. An error on `module` when
/// the options or the module's target are malformed.
mlir::FailureOr<SelectionContext> resolveSelectionContext(
    mlir::ModuleOp module, llvm::StringRef pass, llvm::StringRef target,
    int64_t threads, llvm::ArrayRef<int64_t> cacheTiles,
    llvm::ArrayRef<int64_t> registerTiles, bool packB, bool fuseConsumers);

/// Matches, in `scope`, the op with a strategy that `root` is while the
/// script runs (or the op that tiling left of it): by its name and its
/// position among the roots, which lighthouse-cpu-apply-strategy records on
/// it. A builder matches its root again where handles into the function do
/// not survive (transform.alternatives clones the function).
mlir::Value matchRoot(mlir::ImplicitLocOpBuilder &b, mlir::Value scope,
                      mlir::Operation *root);

/// What every builder gets: the handle of the op its strategy is on (the
/// root of the transforms), the op itself (read for what the strategy leaves
/// to the IR: the op's name, its element types), and the strategy.
struct BuildContext {
  mlir::ImplicitLocOpBuilder &builder;
  mlir::Value root;
  mlir::Operation *op;
  const Strategy &strategy;
};

/// When a form runs: every form of a stage before those of the next, the
/// forms of a stage in the family table's order.
enum class FormStage {
  /// Variants of ops rewritten into the ops the policies take (a batch of
  /// matmuls into 2-D ones, a 3-D convolution into 2-D ones, loops read
  /// contiguously collapsed).
  Ops,
  /// The rows of the reductions the first stage left: chained, split.
  Rows,
  /// Sizes fitted to the strategies, on the ops as they are then selected:
  /// padded to whole register tiles, dynamic batches versioned.
  Sizes,
};

/// A rewrite of ops into a form their family's policy takes, run by
/// lighthouse-cpu-prepare-forms before selection.
struct Form {
  /// Its name in lighthouse-cpu-prepare-forms's `skip` option.
  llvm::StringLiteral name;
  FormStage stage;
  void (*run)(mlir::ModuleOp module, const SelectionContext &context);
};

/// An op family: a row of the family table.
struct OpFamily {
  llvm::StringLiteral name;
  /// Whether the family's policy is asked about `op`. Selection asks each
  /// family that takes an op, in table order, until one chooses a strategy.
  bool (*takes)(mlir::linalg::LinalgOp op);
  /// The policy; `fused` receives the ops computed inside the loops of the
  /// strategy chosen, which get none of their own.
  std::optional<Strategy> (*select)(
      mlir::linalg::LinalgOp op, const SelectionContext &context,
      llvm::SmallVectorImpl<mlir::Operation *> &fused);
  /// The strategy kinds the family's builder applies.
  llvm::ArrayRef<StrategyKind> kinds;
  /// Checks, beyond what every strategy is checked for, that a strategy of
  /// one of `kinds` fits `op`; none when there is nothing more to check.
  mlir::LogicalResult (*verify)(mlir::Operation *op, const Strategy &strategy);
  void (*build)(const BuildContext &context);
  /// What runs after the transforms (a register kernel), if anything.
  void (*afterTransforms)(mlir::ModuleOp module, const CPUTarget &target);
  llvm::ArrayRef<Form> forms;
};

/// Whether `op` has no iterations: a static loop of size 0 (a sum over
/// rows of no columns, a pooling window of no columns). No strategy takes
/// it (the tile sizes of its loops are computed from their ranges); its
/// results are its inits, which lighthouse-cpu-prepare-forms puts in its
/// place (replaceOpsOfNoIterations).
bool hasNoIterations(mlir::linalg::LinalgOp op);
/// Replaces each linalg op on tensors of no iterations by its inits.
void replaceOpsOfNoIterations(mlir::ModuleOp module);

/// The family table, in the order selection asks the families.
llvm::ArrayRef<OpFamily> opFamilies();
/// The family whose builder applies `kind`; none for StrategyKind::Fused,
/// which is built with its producer's strategy.
const OpFamily *familyOf(StrategyKind kind);

/// Multiply-adds below which a contraction or convolution runs on one
/// thread: waking the others costs tens of microseconds, as much as ~2M
/// multiply-adds on one core.
constexpr int64_t kMinThreadedWork = int64_t(1) << 21;

/// The most a matmul's work may grow when padded to whole register tiles.
/// On irregular sizes the blocked code ran 8-10x faster than the loops
/// (1000^3: 0.08x -> 0.88x eager's speed, for 2.4% more multiply-adds), so
/// half as much work again still pays; a matrix-vector product (M = 1: 8x
/// the work) is left to the loops LLVM vectorizes.
constexpr double kMaxPaddedWork = 1.5;

/// The loops of C(m, n) += A(m, k) * B(k, n) in a matmul's iteration space.
constexpr unsigned kM = 0, kN = 1, kK = 2;

// Steps of the rewrites into the forms the policies take (RewriteSteps.cpp).

/// Tiles `loop` of `op` by 1, into an scf.for or, `acrossThreads`, an
/// scf.forall, replacing `op`: the op of one iteration.
mlir::FailureOr<mlir::linalg::LinalgOp>
tileLoopByOne(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
              unsigned loop, bool acrossThreads);
/// Replaces `op`, whose `loops` have one iteration each, by a generic
/// without them (its operands reshaped).
void dropUnitLoops(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                   llvm::ArrayRef<unsigned> loops);

// Contractions (Contraction.cpp; their rewrites into its forms,
// ContractionRewrites.cpp).

/// Whether `op` is a contraction in the canonical form the blocked strategy
/// takes: one M, N and K loop, in that order, and A, B, C read as (m, k),
/// (k, n), (m, n); with `batched`, a batch loop first, which every operand
/// reads first.
bool isCanonicalMatmul(mlir::linalg::LinalgOp op, bool batched = false);
/// Whether `generic` is an elementwise generic on tensors of one result of
/// `element`s, a matmul's (the strategy fuses no conversion), reading each
/// operand through a projected permutation, its init as it is and not in
/// its payload: a consumer the contraction strategy can compute per block
/// of C once it reads the matmul's matrix.
bool isElementwiseConsumer(mlir::linalg::GenericOp generic, mlir::Type element);
/// `fused` receives the consumers computed inside the contraction's loops,
/// which get no strategy of their own.
std::optional<Strategy>
selectContraction(mlir::linalg::LinalgOp op, const SelectionContext &context,
                  llvm::SmallVectorImpl<mlir::Operation *> &fused);
/// The register tile (M, N, K) of a matmul of `sizes`: the context's, but
/// for a static M smaller than its rows (a Linear layer at batch 1 to 7),
/// which is a tile of all M rows by as many columns as keep the sums within
/// the registers of the context's (8 x 32 floats of AVX-512: 4 rows by 64,
/// 1 by 256) and divide N. Such a matmul then reads B once, not once per
/// row: Linear(2048, 2048) at batch 4 ran as loops at 0.31x onnxruntime's
/// speed, 1 thread.
llvm::SmallVector<int64_t> registerTilesOf(llvm::ArrayRef<int64_t> sizes,
                                           const SelectionContext &context);
/// M, N, K of `sizes` rounded up to whole register tiles, or none when that
/// grows the work by more than half, or for an empty matmul (a size of 0:
/// nothing to compute, and no slice of it to take): the sizes
/// padToRegisterTiles gives a matmul for the blocked strategy.
std::optional<llvm::SmallVector<int64_t>>
paddedSizes(llvm::ArrayRef<int64_t> sizes, const SelectionContext &context);
/// Pads the operands of each matmul whose static sizes are not multiples of
/// the register tile with zeros to the next multiples, when that grows its
/// work by at most half, and computes it on the padded operands (the
/// result is a slice of the padded one): the blocked strategy then takes it.
void padToRegisterTiles(mlir::ModuleOp module, const SelectionContext &context);
/// Computes the elementwise consumers of each matmul's result (a bias and
/// an activation) on its matrix where they read it through a reshape into
/// more dimensions (a pointwise convolution's pixels as NHWC images) or a
/// slice of its result padded to register tiles (then on the padded
/// matrix, their constant operands padded now), so that the contraction
/// strategy computes them per block of C while it is in cache.
void consumersOnMatrices(mlir::ModuleOp module,
                         const SelectionContext &context);
/// Splits each batch of matmuls of static sizes into a loop over the batch
/// of 2-D matmuls (generics of the matmul's form, which the blocked
/// strategy takes, padded or not), the loop an scf.forall across the
/// threads when the batch holds work for them.
void splitBatchMatmuls(mlir::ModuleOp module, const SelectionContext &context);
/// Rewrites each matmul of static sizes with a constant B into a loop, over
/// the threads when it holds work for them, of matmuls of all rows by one
/// block of B's columns, the blocks laid out one after another at compile
/// time. With fewer rows than a register tile's (a Linear layer at batch 1
/// to 7), a block is one register tile's columns: a tile loops over all of
/// K, and reading B in place it read a few hundred floats of each row, a
/// page apart. With more, a block is up to a block of C's columns in cache
/// (256), and is read in place instead of copied into panels on every call:
/// 128 x 768 x 2304 went from 221 to 234-250 GFLOPS, and B's rows are no
/// longer N floats apart (3072 floats, 12 KB, read 8 rows at a time, fell
/// on the same cache sets: 153 GFLOPS read in place).
void constantBInColumnBlocks(mlir::ModuleOp module,
                             const SelectionContext &context);
mlir::LogicalResult verifyContraction(mlir::Operation *op,
                                      const Strategy &strategy);
void buildContraction(const BuildContext &context);

// Convolutions and poolings (Convolution.cpp; their rewrites into its forms,
// ConvolutionRewrites.cpp).

/// Rewrites 1-D NCW convolutions into 2-D NCHW ones of height 1, 3-D NCDHW
/// ones of static sizes into loops over output and filter depths of 2-D
/// NCHW ones (generics), and grouped 2-D NGCHW ones of static sizes into
/// loops over the groups of 2-D NCHW ones; the outer loop an scf.forall
/// across the threads from 2M multiply-adds.
void convolutionsAs2D(mlir::ModuleOp module, const SelectionContext &context);
/// Rewrites 2-D NCHW convolutions into a matmul of the image's patches, a
/// row of C x KH x KW per output pixel, by the filter, between
/// rearrangements of the image and of the output: those whose windows tile
/// the image without overlap (stride = kernel, above 2: ViT's 16x16
/// patches) or are one per image, O(image + output) copies for O(image x F)
/// multiply-adds; and those whose output rows would leave a quarter of the
/// register kernel's lanes idle (7 of 16), with F of a register's f32 lanes
/// or more, whose patches are gathered, O(output x C x KH x KW) copies.
void patchesAsMatmuls(mlir::ModuleOp module, const SelectionContext &context);
/// Rewrites 2-D NCHW convolutions whose window is one pixel along a strided
/// dimension (ResNet's 1x1 stride-2 shortcuts) into a copy of every
/// stride-th pixel, O(image / stride), and an unstrided convolution of it,
/// which the register kernel takes without picking pixels out of spans
/// twice a block's width.
void stridedPointsAsSlices(mlir::ModuleOp module);
/// Rewrites 2-D NCHW depthwise convolutions that the channels-last strategy
/// takes (channelsLastTiles) into NHWC ones between transposes of the image
/// and of the output, the filter transposed at compile time: vectors along
/// the channels, where the register kernel's run along output rows, which
/// leave lanes idle or break into remainders on the small images of
/// MobileNet's and EfficientNet's later stages.
void depthwiseChannelsLast(mlir::ModuleOp module,
                           const SelectionContext &context);
/// Rewrites dense 2-D NCHW convolutions of a constant filter that the
/// channels-last strategy takes (channelsLastConvolutionTiles) and
/// patchesAsMatmuls does not into NHWC ones between transposes of the image
/// and of the output, the filter transposed at compile time, in a loop over
/// blocks of output channels whose filters are packed contiguously at
/// compile time: each step broadcasts an input element into FMAs on a
/// block's channels, where the register kernel's vectors run along output
/// rows, whose widths (56, 28, 14) leave lanes idle.
void convolutionsChannelsLast(mlir::ModuleOp module,
                              const SelectionContext &context);
/// Rewrites 2-D NCHW depthwise convolutions into generics whose loops are in
/// a pooling's order, (n, c, oh, ow, kh, kw), the order the strategies tile
/// (linalg's named op has (n, oh, ow, c, kh, kw)).
void depthwiseAsChannelWindows(mlir::ModuleOp module);
/// Replaces each convolution and pooling with a dynamic batch that a
/// strategy takes by two copies in an scf.if on the batch size: the one
/// taken from minThreadedBatch images on is split across threads by images
/// (selection reads the branch's condition); the other is split within
/// images when one image holds enough work, else runs on one thread, as
/// small batches of small images wake no thread.
void versionOnBatchSize(mlir::ModuleOp module, const SelectionContext &context);
/// Splits each convolution and pooling that neither strategy takes only
/// because of its output rows' width (2047 columns: no block of 8 to 16
/// divides them) into one over the largest multiple of a register's f32
/// lanes and one over the rest, which each strategy then takes.
void splitWindowRemainders(mlir::ModuleOp module,
                           const SelectionContext &context);
/// The strategy's kind and its tiles of registers, without threads: blocks
/// of the register kernel when it takes `op`, else rows of 1-D windows (with
/// `rowWidth`, as if the output rows were that wide); none when neither
/// takes it.
std::optional<Strategy>
windowPlan(mlir::linalg::LinalgOp op, const CPUTarget &target,
           std::optional<int64_t> rowWidth = std::nullopt);
/// Pixels of an output row that the channels-last depthwise strategy
/// computes at once (channelsLastTiles).
constexpr int64_t kChannelsLastPixels = 8;
/// The register tiles of the channels-last strategy of a depthwise
/// convolution in NHWC, static but for its batch, with output rows of
/// `width` pixels of `channels` channels of `element`: a block of up to
/// kChannelsLastPixels pixels of one output row by a register of channels
/// (half a register where whole ones do not divide the channels), decomposed
/// into 1-D windows and vectorized along the channels; none when neither
/// divides the channels.
std::optional<llvm::SmallVector<int64_t>>
channelsLastTiles(int64_t width, int64_t channels, mlir::Type element,
                  const CPUTarget &target);
/// Output channels of a block of the channels-last strategy of dense
/// convolutions: two registers' lanes of `element` where they divide
/// `channels`, else one; 0 when neither does.
int64_t channelsLastFilterBlock(int64_t channels, mlir::Type element,
                                const CPUTarget &target);
/// The fewest pixels of a block of that strategy: fewer leave each weight
/// vector read for too few multiply-adds (a row of 13 pixels, in blocks of
/// one).
constexpr int64_t kMinChannelsLastPixels = 4;
/// Input channels that strategy unrolls at each window point: 8 and 16 ran
/// alike (ResNet-18's 3x3 layers).
constexpr int64_t kChannelsLastDepth = 8;
/// The register tiles of the channels-last strategy of a dense NHWC
/// convolution of output rows of `width` pixels, `outputChannels` and
/// `inputChannels`: a block of up to kChannelsLastPixels pixels of one
/// output row by channelsLastFilterBlock output channels, decomposed into
/// 1-D windows and vectorized along the output channels, each input element
/// broadcast; none when the block's channels or pixels do not divide.
std::optional<llvm::SmallVector<int64_t>>
channelsLastConvolutionTiles(int64_t width, int64_t outputChannels,
                             int64_t inputChannels, mlir::Type element,
                             const CPUTarget &target);
/// Multiply-adds (or comparisons) per image of a convolution or pooling:
/// its static iteration space but the batch.
int64_t workPerImage(mlir::linalg::LinalgOp op);
/// The images from which a convolution or pooling is split across
/// `threads` threads: enough work for each, and an image for each.
int64_t minThreadedBatch(mlir::linalg::LinalgOp op, int64_t threads);
std::optional<Strategy> selectConvolution(mlir::linalg::LinalgOp op,
                                          const SelectionContext &context);
mlir::LogicalResult verifyConvolution(mlir::Operation *op,
                                      const Strategy &strategy);
void buildConvolution(const BuildContext &context);
/// Runs the register kernel on the blocks of ConvolutionRows strategies.
void runConvolutionKernels(mlir::ModuleOp module, const CPUTarget &target);

// Row reductions (Reduction.cpp; their rewrites into its form,
// ReductionRewrites.cpp).

/// Elements reduced at once along a row: up to 64 (4 AVX-512 registers of
/// f32, 8 of f64), so that independent accumulators hide the latency of the
/// adds.
constexpr int64_t kRowVectorFloats = 64;
/// The narrowest vector of partial results (one AVX2 register of f32).
constexpr int64_t kMinRowVector = 8;

/// Whether `op` reduces rows, of any type and with any combiner: a generic
/// on tensors reducing its innermost loop alone into one result indexed by
/// the rows in order (rowsMap).
bool reducesRows(mlir::linalg::LinalgOp op);
/// Whether some input of `op` is read along its innermost loop, innermost:
/// rows that are contiguous in memory.
bool readsRowsContiguously(mlir::linalg::LinalgOp op);
/// Whether `op` is a reduction of its innermost loop the policy takes, but
/// for the vector width: a generic of static sizes reducing rows
/// (reducesRows) of floats (and 32- or 64-bit integers) into an f32, f64,
/// i32 or i64 result, read contiguously, with a combiner that has a vector
/// reduction.
bool isRowReduction(mlir::linalg::LinalgOp op);
/// The indexing map of a result indexed by the rows of `op`: its loops but
/// the innermost, in order, (d0, ..., dn-2).
mlir::AffineMap rowsMap(mlir::linalg::LinalgOp op);

/// Collapses the innermost reduced loops of a reduction into one when every
/// operand reads them as its innermost dimensions (a mean over H x W, a
/// group norm's statistics over C/G x H x W, the sum of a whole tensor), the
/// form the policy takes.
void collapseReducedLoops(mlir::ModuleOp module);
/// Runs each chain of row reductions and of the elementwise ops that read
/// their results (a softmax: the row's maximum, exp(x - max), its sum, the
/// division; a norm's mean, variance and normalization) in a loop over
/// blocks of rows, across the threads when the chain's last op would be,
/// the chain's ops fused into it: each block's rows are read from memory
/// once, not once an op.
void rowChainsInRowLoops(mlir::ModuleOp module,
                         const SelectionContext &context);
/// Splits each reduction the policy takes but for rows that no vector width
/// divides into reductions of a multiple of 64 elements, then of 8, each
/// continuing the one before, and one of the rest (under 8), which stays a
/// loop: rows of 49 (a mean over 7 x 7) or 197 (ViT's tokens) are then
/// reduced in vectors.
void splitRowRemainders(mlir::ModuleOp module);
/// Rewrites each reduction of a row to its maximum (minimum) and the index
/// of its first occurrence (argmax, max over a dimension), which no
/// vectorizer takes (the index's update reads the running maximum), into
/// row reductions: the maximum, then the least index holding it; and the
/// original op when some row holds a NaN (its index then depends on where
/// the NaN is).
void indexReductionsAsRowReductions(mlir::ModuleOp module);
std::optional<Strategy> selectReduction(mlir::linalg::LinalgOp op,
                                        const SelectionContext &context);
mlir::LogicalResult verifyReduction(mlir::Operation *op,
                                    const Strategy &strategy);
void buildReduction(const BuildContext &context);

/// The permutations (linalg.transpose's) between the convolution forms'
/// layouts: NCHW into NHWC, and back.
constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};
constexpr int64_t kFromChannelsLast[] = {0, 3, 1, 2};
/// A dense filter's permutation from F x C x KH x KW to KH x KW x C x F, and
/// the loop of a channels-last convolution's output channels (n, oh, ow, f,
/// kh, kw, c).
constexpr int64_t kFilterChannelsLast[] = {2, 3, 1, 0};
constexpr unsigned kChannelsLastOutputChannels = 3;
/// The most ops between two convolutions that comesFrom and goesTo follow:
/// a norm's four and an activation's one or two (MobileNet-V3: hardswish),
/// a residual sum, a pad.
constexpr int kMaxOpsBetweenLayouts = 8;
/// Whether `value` is computed by an op that `is` through at most `ops`
/// elementwise ops and pads (an elementwise op's operands read in its loops'
/// order: the transposes move past those); goesTo, whether it reaches one
/// through such ops.
bool comesFrom(mlir::Value value, int ops,
               llvm::function_ref<bool(mlir::Operation *)> is);
bool goesTo(mlir::Value value, int ops,
            llvm::function_ref<bool(mlir::Operation *)> is);
/// Whether `use` reaches an op that `is`: its user, or through it (a pad or
/// an elementwise op reading it in its loops' order) within `ops` ops.
bool useGoesTo(mlir::OpOperand &use, int ops,
               llvm::function_ref<bool(mlir::Operation *)> is);
/// Whether `op` is a transpose by `permutation`.
bool isTransposeBy(mlir::Operation *op, llvm::ArrayRef<int64_t> permutation);
/// `value` with its dimensions permuted (linalg.transpose: dimension i of
/// the result is `permutation[i]` of `value`), static; a constant (a
/// filter), reshaped or not, permuted now, once.
mlir::Value transposed(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, llvm::ArrayRef<int64_t> permutation);
/// Moves each transpose past the elementwise ops whose full operands are
/// all transposes alike (the ops then compute in the layout before them)
/// and above the constant pads of transposes, so that transposes meet their
/// inverses and fold away: the NHWC layout of the convolution forms carried
/// from one convolution to the next (TransposeRewrites.cpp).
void transposesToTheirInverses(mlir::ModuleOp module);

// Transposes of the innermost dimension (Transpose.cpp).
std::optional<Strategy> selectTranspose(mlir::linalg::TransposeOp op,
                                        const SelectionContext &context);
mlir::LogicalResult verifyTranspose(mlir::Operation *op,
                                    const Strategy &strategy);
void buildTranspose(const BuildContext &context);

// Elementwise ops (Elementwise.cpp; their rewrite into its form,
// ElementwiseRewrites.cpp).

/// Collapses the innermost loop of each elementwise op whose rows are not a
/// whole number of vector registers (an NCHW image's rows of 28 pixels)
/// with the loops outside it that every operand reads contiguously with it
/// (the image's plane of 784), keeping the first loop of more than one
/// iteration for the threads.
void collapseElementwiseRows(mlir::ModuleOp module,
                             const SelectionContext &context);
std::optional<Strategy> selectElementwise(mlir::linalg::LinalgOp op,
                                          const SelectionContext &context);
void buildElementwise(const BuildContext &context);

/// The thread policy of elementwise ops and reductions (contractions and
/// convolutions split along their blocks): scf.forall tile sizes splitting the
/// outermost of the first `splittable` loops with an iteration per thread,
/// in parts of ceil(range / threads); none (empty) for fewer than 512K
/// iterations in all (waking a thread costs more than it saves), for
/// dynamic loops, or when no loop has enough iterations.
llvm::SmallVector<int64_t> threadParts(llvm::ArrayRef<int64_t> ranges,
                                       unsigned splittable, int64_t threads);

/// The elements of a row of `size` vectorized at a time: all of them up to
/// 64 (a few vector registers), else powerOfTwoWidth. Small vectors keep the
/// code small: LLVM's time grows with the code it gets.
int64_t rowVectorWidth(int64_t size);
/// The widest of 64, 32, 16 and 8 elements that divides `size`; 0 when none
/// does.
int64_t powerOfTwoWidth(int64_t size);

/// The largest divisor of `n` that is at most `bound` (1 when no larger one
/// is).
inline int64_t largestDivisorAtMost(int64_t n, int64_t bound) {
  for (int64_t d = std::min(n, bound); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

} // namespace lighthouse::cpu

#endif // LIGHTHOUSE_LIB_CODEGEN_CPU_OPFAMILIES_H
