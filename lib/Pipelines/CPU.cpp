//===- CPU.cpp - Pipelines from linalg on tensors to LLVM for CPUs --------===//

#include "lighthouse/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace lighthouse {

// The pipelines are spelled in the textual pipeline syntax: each step then
// names the registered pass that a user would name in lh-opt, and options
// read as they do on a command line.
static void appendPipeline(OpPassManager &pm, llvm::StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error("lighthouse: invalid built-in pipeline");
}

/// canonicalize, without the linalg pattern that gives each operand of an op
/// the static sizes another of its operands states
/// (InferStaticShapeOfOperands): only the op's runtime check proves them, and
/// the pattern carries them into the ops computing the operands, which run
/// before that check. The ONNX form of GPT-2 for any batch and length states
/// its sum of embeddings as [b, 1, 768]; the position embeddings' gather before
/// it got a 1 x 768 buffer and wrote 128 rows into it.
static constexpr llvm::StringLiteral kCanonicalize =
    "canonicalize{disable-patterns=\"(anonymous namespace)::"
    "InferStaticShapeOfOperands\"}";

/// Bufferizes and lowers to the LLVM dialect. With `openmp`, scf.forall loops
/// (one iteration per thread) run on the OpenMP runtime; without, one after
/// the other.
static void buildLoweringToLLVM(OpPassManager &pm, bool openmp) {
  appendPipeline(
      pm,
      // C wrappers for the functions of the input only: library functions
      // declared later (libm's) have none.
      "func.func(llvm-request-c-wrappers),"
      // Failed runtime checks return to the caller: after the C wrappers, so
      // that the runtime's declaration gets none.
      "lighthouse-lower-runtime-checks,"
      // Elementwise arith/math ops on whole tensors become linalg.generic,
      // which bufferizes.
      "func.func(convert-elementwise-to-linalg),"
      // Tensors to buffers, across function boundaries; plain memrefs at the
      // boundaries so that callers pass and receive dense arrays, and keep
      // their inputs.
      "lighthouse-read-only-arguments,"
      // Padded tensors are computed in place, not copied into the padding:
      // the op computing a tensor inserted into a larger one (a padded
      // image, a concatenation) writes into the larger one's buffer. Sizes
      // read off results (tensor.dim) are first read off operands, or the
      // insertion point would not be found.
      "func.func(lighthouse-pads-in-place)");
  appendPipeline(pm, kCanonicalize);
  appendPipeline(
      pm, "eliminate-empty-tensors,"
          // A loop may yield a tensor not computed in place of the one it
          // carries (a recurrent layer over a sequence length given at run
          // time): it gets a buffer of its own instead of failing.
          "one-shot-bufferize{bufferize-function-boundaries "
          "function-boundary-type-conversion=identity-layout-map "
          "allow-return-allocs-from-loops},"
          "canonicalize,"
          // Frees what is not returned; returned buffers belong to the caller.
          "buffer-deallocation-pipeline,"
          "convert-bufferization-to-memref,"
          // Strided copies (into padded images, ...) as loops LLVM vectorizes.
          "lighthouse-strided-copies-to-loops,"
          "scf-forall-to-parallel");
  if (openmp)
    appendPipeline(pm, "convert-scf-to-openmp");
  appendPipeline(
      pm,
      // Reductions innermost are scalar loops; a contiguous output
      // dimension innermost is a loop LLVM vectorizes.
      "func.func(lighthouse-contiguous-innermost-loop,"
      "convert-linalg-to-loops),"
      // LLVM optimizes many small functions faster than one large one; and
      // a nest repeated on other weights (a model's layers) is one function,
      // which the passes from here on and LLVM see once.
      "lighthouse-outline-loop-nests,"
      // Vector code (from a schedule that vectorized) down to 1-D vectors.
      "func.func(convert-vector-to-scf{full-unroll=true},"
      // A row's partial results combined as a tree, not lane by lane.
      "lighthouse-single-row-reductions,"
      "lower-vector-multi-reduction,"
      // Rows of 7 or 14 floats (convolutions of 7x7 and 14x14 images) read
      // and written by one masked move each, not split in powers of two.
      "lighthouse-odd-transfers-as-masked),"
      // Expansions into several dynamic sizes, which expand-strided-metadata
      // does not take, as casts.
      "func.func(lighthouse-expand-shapes-as-casts),"
      "expand-strided-metadata,"
      "lower-affine,"
      // Buffers come from lighthouse's runtime, which keeps large ones for
      // the next call (lighthouse-c/Runtime.h).
      "finalize-memref-to-llvm{use-generic-functions=true},"
      "convert-scf-to-cf,"
      // f32 tanh, erf, exp and log as polynomials that vectorize, not a
      // libm call per element; math ops with an LLVM intrinsic use it, the
      // others call libm.
      "lighthouse-approximate-math,"
      "func.func(convert-math-to-llvm),"
      "convert-math-to-libm,"
      // The strategies that vectorize a reduction reassociate it already:
      // its lanes are combined as a tree too.
      "convert-vector-to-llvm{reassociate-fp-reductions=true},"
      "convert-to-llvm,"
      "reconcile-unrealized-casts");
}

/// What both pipelines do first, on linalg: dynamic sizes and indices are
/// checked before they are used, what torch-mlir left in its tm_tensor
/// dialect becomes loops, shifts by the bit width or more get the results
/// torch and ONNX define, powers by small constants are multiplications,
/// transposed convolutions skip the zeros they are
/// lowered with, constant weights are transposed
/// once, here, rather than on every call, weights shared across a batch are
/// not copied per batch element, unused results are not computed, operands
/// indexed through a constant lose their unit dimensions, and chains of
/// elementwise ops are one op.
static constexpr llvm::StringLiteral kLinalgRewrites =
    "lighthouse-insert-runtime-checks,lighthouse-lower-tm-tensor,"
    "lighthouse-define-wide-shifts,lighthouse-simplify-powers,"
    "lighthouse-convolutions-by-phase,"
    "lighthouse-fold-constant-transposes,lighthouse-flatten-batch-matmuls,"
    "lighthouse-drop-dead-results,lighthouse-drop-unit-dims,"
    "lighthouse-fuse-elementwise,lighthouse-splats-as-fills";

void buildCPULoopsPipeline(OpPassManager &pm) {
  appendPipeline(pm, kLinalgRewrites);
  appendPipeline(pm, kCanonicalize);
  buildLoweringToLLVM(pm, /*openmp=*/false);
}

LogicalResult buildCPUSchedulePipeline(OpPassManager &pm,
                                       llvm::StringRef selectionOptions,
                                       llvm::raw_ostream &errors) {
  // The forms are rewritten for the context the strategies are selected
  // for: both passes take the same options.
  std::string options = ("{" + selectionOptions + "}").str();
  return parsePassPipeline("lighthouse-cpu-prepare-forms" + options +
                               ",lighthouse-cpu-select-strategy" + options +
                               ",lighthouse-cpu-apply-strategy",
                           pm, errors);
}

LogicalResult buildCPUDefaultPipeline(OpPassManager &pm,
                                      llvm::StringRef selectionOptions,
                                      llvm::raw_ostream &errors) {
  appendPipeline(pm, kLinalgRewrites);
  appendPipeline(pm, kCanonicalize);
  // The host, once, here: the code generator's passes read the target only
  // from the module and their options.
  appendPipeline(pm, "lighthouse-cpu-set-target");
  if (failed(buildCPUSchedulePipeline(pm, selectionOptions, errors)))
    return failure();
  appendPipeline(pm, kCanonicalize);
  appendPipeline(pm, "cse");
  buildLoweringToLLVM(pm, /*openmp=*/true);
  return success();
}

void buildCPUDefaultPipeline(OpPassManager &pm) {
  if (failed(buildCPUDefaultPipeline(pm, "", llvm::errs())))
    llvm::report_fatal_error("lighthouse: invalid built-in pipeline");
}

/// Registers `name`, built by `build` from the options it is given, which
/// are handed on to lighthouse-cpu-prepare-forms and
/// lighthouse-cpu-select-strategy, so that they are declared once, on those
/// passes.
static void registerWithSelectionOptions(
    llvm::StringRef name, llvm::StringRef description,
    LogicalResult (*build)(OpPassManager &, llvm::StringRef,
                           llvm::raw_ostream &)) {
  registerPassPipeline(
      name, description,
      [name,
       build](OpPassManager &pm, llvm::StringRef options,
              llvm::function_ref<LogicalResult(const llvm::Twine &)> onError) {
        std::string errors;
        llvm::raw_string_ostream stream(errors);
        if (failed(build(pm, options, stream)))
          return onError(name + ": " + errors);
        return success();
      },
      [](llvm::function_ref<void(const detail::PassOptions &)>) {});
}

void registerPipelines() {
  registerWithSelectionOptions(
      "lighthouse-cpu",
      "lighthouse's CPU pipeline (lighthouse.compile's `default`): the "
      "host as the target, lighthouse-cpu-schedule, then lowered as "
      "lighthouse-cpu-loops does, with threads on OpenMP; takes "
      "the selection options of lighthouse-cpu-select-strategy "
      "(target, threads, cache-tiles, register-tiles, pack-b, "
      "fuse-consumers)",
      buildCPUDefaultPipeline);
  // The default's name until it became `lighthouse-cpu`, kept for a
  // release.
  registerWithSelectionOptions(
      "lighthouse-cpu-fast",
      "The former name of lighthouse-cpu, kept for a release",
      buildCPUDefaultPipeline);
  PassPipelineRegistration<>(
      "lighthouse-cpu-loops",
      "lighthouse's reference CPU pipeline (lighthouse.compile's `loops`): "
      "linalg on tensors to the LLVM dialect, every op as loops on one "
      "thread, with C wrappers for public functions",
      buildCPULoopsPipeline);
  registerWithSelectionOptions(
      "lighthouse-cpu-schedule",
      "lighthouse's CPU code generator: lighthouse-cpu-prepare-forms, "
      "lighthouse-cpu-select-strategy, then lighthouse-cpu-apply-strategy; "
      "takes the selection options of the first two",
      buildCPUSchedulePipeline);
}

} // namespace lighthouse
