//===- Passes.td - lighthouse's CPU code generator ---------*- tablegen -*-===//
//
// The passes of lighthouse's CPU code generator, declared once: mlir-tblgen
// generates their base classes (argument, description, options, dependent
// dialects) and one registration function,
// `registerLighthouseCodegenCPUPasses`.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_CODEGEN_CPU_PASSES
#define LIGHTHOUSE_CODEGEN_CPU_PASSES

include "mlir/Pass/PassBase.td"

def CPUSetTarget : Pass<"lighthouse-cpu-set-target", "::mlir::ModuleOp"> {
  let summary = "Record the CPU that code is generated for on the module";
  let description = [{
    Sets the module's `lighthouse.target` attribute (include/lighthouse/
    Codegen/CPU/Target.h), which strategy selection reads, unless the module
    already has one: the driver fills it from the host once, and a module
    that names its target keeps it.

    ```mlir
    // lh-opt --lighthouse-cpu-set-target="target=avx2 threads=4"
    module {}
    // after
    module attributes {lighthouse.target = {l2_bytes = 1048576 : i64,
        threads = 4 : i64, vector_bits = 256 : i64,
        vector_registers = 16 : i64}} {}
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
      "host (the machine compiling), avx512 or avx2">,
    Option<"threads", "threads", "int64_t", /*default=*/"0",
      "Threads of the target (0: the host's hardware threads for host, "
      "else 1)">,
  ];
}

// The options of the context the forms are rewritten for and the
// strategies selected for: lighthouse-cpu-prepare-forms and
// lighthouse-cpu-select-strategy take them both, and are given the same.
defvar CPUSelectionOptions = [
  Option<"target", "target", "std::string", /*default=*/"",
    "avx512 or avx2 (default: the module's lighthouse.target, else "
    "avx512)">,
  Option<"threads", "threads", "int64_t", /*default=*/"0",
    "Threads that split the columns or rows of large matmuls, the images "
    "of large convolutions and large elementwise ops (0: the target's; "
    "1: no scf.forall)">,
  ListOption<"cacheTiles", "cache-tiles", "int64_t",
    "M, N, K tile sizes of the block of C kept in cache",
    "llvm::cl::list_init<int64_t>({128, 256, 256})">,
  ListOption<"registerTiles", "register-tiles", "int64_t",
    "M, N, K tile sizes of the block of C kept in vector registers (N a "
    "multiple of the vector width; default: 8, two registers, 8)">,
  Option<"packB", "pack-b", "bool", /*default=*/"true",
    "Copy B into panels laid out in the order the register tiles read "
    "them, once per column of blocks of C, when each thread's part of B "
    "fills half of L2 or more and of A has 64 rows or more">,
  Option<"fuseConsumers", "fuse-consumers", "bool", /*default=*/"true",
    "Compute the elementwise consumers of each matmul (bias, activation, "
    "residual) block by block of C, inside the matmul's loops">,
];

def CPUPrepareForms : Pass<"lighthouse-cpu-prepare-forms",
                           "::mlir::ModuleOp"> {
  let summary = "Rewrite linalg ops into the forms the strategy policies "
    "take";
  let description = [{
    Runs, before lighthouse-cpu-select-strategy and with the same selection
    options, the rewrites ("forms") of each op family (lib/Codegen/CPU/
    OpFamilies.h) that turn the variants of its ops into the ops its policy
    takes. Ops of no iterations (a loop of size 0) are first replaced by
    their inits, which is what they compute. Then, in the order they run:

    - `split-batch-matmuls`: a batch of matmuls of static sizes as a loop
      (an scf.forall when the batch holds work for the threads) of 2-D
      matmuls;
    - `convolutions-as-2d`: 1-D NCW convolutions as 2-D ones of height 1,
      3-D NCDHW and grouped NGCHW ones of static sizes as loops of 2-D ones;
    - `depthwise-channels-last`: a depthwise convolution next to a
      pointwise one as an NHWC one between transposes;
    - `convolutions-channels-last`: a dense convolution of a constant
      filter as an NHWC one between transposes, in a loop over blocks of
      output channels whose filters are packed at compile time;
    - `patches-as-matmuls`: a convolution whose windows tile the image
      without overlap (stride = kernel, above 2), or with one window per
      image (a squeeze-and-excitation's), or whose output rows would leave
      a quarter of a register's lanes idle (7 pixels of 16), or a pointwise
      one (strided or not) next to a channels-last one, as a matmul of
      patches (gathered in NHWC for the last two);
    - `strided-points-as-slices`: a convolution whose window is one pixel
      along a strided dimension as an unstrided one of every stride-th
      pixel;
    - `depthwise-as-channel-windows`: depthwise convolutions as generics in
      a pooling's loop order;
    - `transposes-to-their-inverses`: transposes between NCHW and NHWC
      moved past elementwise ops (a residual sum's shortcut transposed into
      NHWC where that pays) and above pads until they meet their inverses
      and fold;
    - `split-window-remainders`: a convolution or pooling that neither
      strategy takes only for its rows' width split in two that each takes;
    - `collapse-reduced-loops`: innermost reduced loops read contiguously
      collapsed into one;
    - `collapse-elementwise-rows`: rows of elementwise ops that are not
      whole registers collapsed with the loops outside them;
    - `row-chains-in-row-loops`: chains of row reductions and the
      elementwise ops reading them (a softmax, a norm) in one loop over
      blocks of rows;
    - `index-reductions-as-row-reductions`: a row's maximum with the index
      of its first occurrence as row reductions;
    - `split-row-remainders`: rows no vector width divides reduced in parts;
    - `pad-to-register-tiles`: matmuls of static sizes padded with zeros to
      whole register tiles when that grows their work by at most half;
    - `version-on-batch-size`: convolutions and poolings with a dynamic
      batch as two copies in an scf.if on the batch size, the one for large
      batches split across threads by images.

    `skip` names forms not to run.

    ```mlir
    // lh-opt --lighthouse-cpu-prepare-forms="target=avx512 threads=1"
    %r = linalg.matmul ins(%a, %b : tensor<250x256xf32>, tensor<256x256xf32>)
                       outs(%c : tensor<250x256xf32>) -> tensor<250x256xf32>
    // after (pad-to-register-tiles)
    %pa = tensor.pad %a low[0, 0] high[6, 0] {...} : ... to tensor<256x256xf32>
    %pc = tensor.pad %c low[0, 0] high[6, 0] {...} : ... to tensor<256x256xf32>
    %m = linalg.matmul ins(%pa, %b : ...) outs(%pc : tensor<256x256xf32>)
    %r = tensor.extract_slice %m[0, 0] [250, 256] [1, 1]
        : tensor<256x256xf32> to tensor<250x256xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
  let options = !listconcat(CPUSelectionOptions, [
    ListOption<"skip", "skip", "std::string",
      "Forms not to run, by name (see the description)">,
  ]);
}

def CPUSelectStrategy : Pass<"lighthouse-cpu-select-strategy",
                             "::mlir::ModuleOp"> {
  let summary = "Choose how each linalg op on tensors is tiled, vectorized "
    "and split across threads";
  let description = [{
    Asks, for each linalg op on tensors, the policies of the op families
    that take it (contractions, convolutions and poolings, reductions,
    elementwise ops, transposes; the family table of lib/Codegen/CPU/
    OpFamilies.h) for a strategy for the module's target, and records the
    first one chosen on the op as `lighthouse.strategy` (include/lighthouse/
    Codegen/CPU/Strategy.h): a kind, naming the builder that applies it, and
    tile sizes per level (threads, cache, registers, vector). Nothing is
    transformed: lighthouse-cpu-prepare-forms, given the same options, first
    rewrites ops into the forms the policies take. Ops no policy takes get
    no strategy, and are left to loops. The target selected for (the
    options' over the module's) is recorded on the module for the passes
    after.

    ```mlir
    // lh-opt --lighthouse-cpu-select-strategy="target=avx512 threads=2"
    %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
                       outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
    // after
    %r = linalg.matmul {lighthouse.strategy = {
             cache = array<i64: 128, 128, 256>, kind = "contraction.blocked",
             registers = array<i64: 8, 32, 8>, threads = array<i64: 0, 128>}}
           ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
           outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
    ```
  }];
  let options = CPUSelectionOptions;
}

def CPUApplyStrategy : Pass<"lighthouse-cpu-apply-strategy",
                            "::mlir::ModuleOp"> {
  let summary = "Tile and vectorize each linalg op as its lighthouse.strategy "
    "says";
  let description = [{
    Builds, for each op carrying a `lighthouse.strategy`, the transform ops
    of its strategy kind (one builder per kind, in the file of its op
    family), applies them, runs the register kernels of the kinds that have
    one, and lowers what was vectorized into FMAs. Each op's transforms run
    in a sequence whose failures are suppressed: an op the vectorizer turns
    down is left as far as its sequence got (tiled loops at worst). The
    strategies are removed afterwards.

    A 64x64x64 matmul with `registers = array<i64: 8, 32, 8>` and
    `cache = array<i64: 64, 64, 64>` (then `canonicalize,cse`; abridged):
    register tiles of C of 8x32, held in vector registers across the loop
    over K, each step of which is 64 FMAs of a broadcast element of A by a
    row of B.

    ```mlir
    // before
    %r = linalg.matmul {lighthouse.strategy = {...}}
           ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
           outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    // after
    %r = scf.for %i = %c0 to %c64 step %c8 iter_args(%ci = %c) -> (tensor<64x64xf32>) {
      %rj = scf.for %j = %c0 to %c64 step %c32 iter_args(%cij = %ci) -> (tensor<64x64xf32>) {
        %tile = tensor.extract_slice %cij[%i, %j] [8, 32] [1, 1]
            : tensor<64x64xf32> to tensor<8x32xf32>
        %acc = vector.transfer_read %tile[%c0, %c0], %poison {in_bounds = [true, true]}
            : tensor<8x32xf32>, vector<8x32xf32>
        %sum = scf.for %k = %c0 to %c64 step %c8 iter_args(%v = %acc) -> (vector<8x32xf32>) {
          %va = vector.transfer_read ... : tensor<8x8xf32>, vector<8x8xf32>
          %vb = vector.transfer_read ... : tensor<8x32xf32>, vector<8x32xf32>
          %b0 = vector.extract %vb[0] : vector<32xf32> from vector<8x32xf32>
          %a00 = vector.extract %va[0, 0] : f32 from vector<8x8xf32>
          %s00 = vector.broadcast %a00 : f32 to vector<32xf32>
          %c0v = vector.extract %v[0] : vector<32xf32> from vector<8x32xf32>
          %f00 = vector.fma %s00, %b0, %c0v : vector<32xf32>
          ...
        }
        // %sum written back into %tile, and %tile into %cij
      }
    }
    ```
  }];
  let options = [
    Option<"printScript", "print-script", "bool", /*default=*/"false",
           "Print the transform script built for the strategies to stderr "
           "before applying it (to debug a strategy's builder)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect",
    "::mlir::transform::TransformDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // LIGHTHOUSE_CODEGEN_CPU_PASSES
