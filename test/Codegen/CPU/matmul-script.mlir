// RUN: lh-opt %s --lighthouse-cpu-prepare-forms --lighthouse-cpu-select-strategy | FileCheck %s --check-prefix=STRATEGY
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms --lighthouse-cpu-select-strategy --lighthouse-cpu-apply-strategy=print-script=1 2>&1 >/dev/null | FileCheck %s

// The schedule of a canonical matmul, 256x256x256 f32 on the avx512 preset
// with 2 threads, as the transform script lighthouse-cpu-apply-strategy
// builds for its strategy: split across the threads by columns of 128 (the
// fill of C fused into each thread's part), blocks of C of 128x128 in
// cache, columns of blocks outer, K by 256, register tiles of 8x32x8
// vectorized; then the vectorized contractions lowered to FMAs, the block
// of C kept in registers across the loop over K.

// STRATEGY: linalg.matmul {lighthouse.strategy = {cache = array<i64: 128, 128, 256>, fill_c, kind = "contraction.blocked", registers = array<i64: 8, 32, 8>, threads = array<i64: 0, 128>}}

// CHECK:      module attributes {transform.with_named_sequence} {
// CHECK-NEXT:   transform.named_sequence @__transform_main(%arg0: !transform.any_op) {
// CHECK-NEXT:     transform.sequence %arg0 : !transform.any_op failures(suppress) {
// CHECK-NEXT:     ^bb0(%arg1: !transform.any_op):
// CHECK-NEXT:       %2 = transform.structured.match ops{["linalg.matmul"]} attributes {lighthouse.strategy_root = 0 : i64} in %arg1 : (!transform.any_op) -> !transform.any_op
// CHECK-NEXT:       %3 = get_parent_op %2 {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
// CHECK-NEXT:       %4 = get_producer_of_operand %2[2] : (!transform.any_op) -> !transform.any_op
// CHECK-NEXT:       %tiled_op, %forall_op = transform.structured.tile_using_forall %2 tile_sizes [0, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
// CHECK-NEXT:       %fused_op, %new_containing_op = transform.structured.fuse_into_containing_op %4 into %forall_op : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
// CHECK-NEXT:       %tiled_linalg_op, %loops:2 = transform.structured.tile_using_for %tiled_op tile_sizes [128, 128] interchange = [1, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
// CHECK-NEXT:       %fused_op_0, %new_containing_op_1 = transform.structured.fuse_into_containing_op %fused_op into %loops#1 : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
// CHECK-NEXT:       %tiled_linalg_op_2, %loops_3 = transform.structured.tile_using_for %tiled_linalg_op tile_sizes [0, 0, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
// CHECK-NEXT:       %tiled_linalg_op_4, %loops_5:3 = transform.structured.tile_using_for %tiled_linalg_op_2 tile_sizes [8, 32, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
// CHECK-NEXT:       transform.structured.vectorize %tiled_linalg_op_4 : !transform.any_op
// CHECK-NEXT:     }
// CHECK-NEXT:     %0 = transform.structured.match ops{["func.func"]} in %arg0 : (!transform.any_op) -> !transform.any_op
// CHECK-NEXT:     transform.apply_patterns to %0 {
// CHECK-NEXT:       transform.apply_patterns.vector.reduction_to_contract
// CHECK-NEXT:       transform.apply_patterns.vector.transfer_permutation_patterns
// CHECK-NEXT:       transform.apply_patterns.canonicalization
// CHECK-NEXT:     } : !transform.any_op
// CHECK-NEXT:     transform.apply_patterns to %0 {
// CHECK-NEXT:       transform.apply_patterns.vector.lower_contraction
// CHECK-NEXT:       transform.apply_patterns.vector.lower_outerproduct
// CHECK-NEXT:       transform.apply_patterns.canonicalization
// CHECK-NEXT:     } : !transform.any_op
// CHECK-NEXT:     transform.apply_cse to %0 : !transform.any_op
// CHECK-NEXT:     %1 = transform.structured.match ops{["scf.for"]} in %arg0 : (!transform.any_op) -> !transform.any_op
// CHECK-NEXT:     transform.loop.hoist_loop_invariant_subsets %1 : !transform.any_op
// CHECK-NEXT:     transform.apply_patterns to %0 {
// CHECK-NEXT:       transform.apply_patterns.canonicalization
// CHECK-NEXT:     } : !transform.any_op
// CHECK-NEXT:     transform.apply_cse to %0 : !transform.any_op
// CHECK-NEXT:     transform.yield
// CHECK-NEXT:   }
// CHECK-NEXT: }

module attributes {lighthouse.target = {l2_bytes = 2097152 : i64, threads = 2 : i64, vector_bits = 512 : i64, vector_registers = 32 : i64}} {
  func.func @matmul(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
    return %r : tensor<256x256xf32>
  }
}
