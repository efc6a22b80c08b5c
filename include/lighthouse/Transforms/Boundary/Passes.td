//===- Passes.td - lighthouse's call boundary and checks ---*- tablegen -*-===//
//
// lighthouse's passes at the boundary of the compiled code: its arguments
// and results, and the runtime checks of sizes and indices that return to
// the caller.
// mlir-tblgen generates their base classes and one registration function,
// `registerLighthouseBoundaryTransformsPasses`. Each description shows a
// small example; each pass's lit test (test/Transforms/Boundary) has more.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_TRANSFORMS_BOUNDARY_PASSES
#define LIGHTHOUSE_TRANSFORMS_BOUNDARY_PASSES

include "mlir/Pass/PassBase.td"

def InsertRuntimeChecks
    : Pass<"lighthouse-insert-runtime-checks", "::mlir::ModuleOp"> {
  let summary = "Check dynamic sizes and indices at run time before they are "
    "used";
  let description = [{
    Inserts `cf.assert`s (a `ValueError` in Python, through
    `lighthouse-lower-runtime-checks`) so that compiled code does not read or
    write out of bounds on sizes or indices it is given:
    - MLIR's runtime verification of every op that has it, outside the
      bodies of linalg ops: the sizes of a linalg op's operands against its
      loop ranges (an elementwise op on two dynamic batches), casts to
      static sizes (an ONNX model's declared output shape), slices, inserts,
      extracts;
    - `tensor.concat`: its operands' sizes along the other dimensions;
    - `tensor.extract` in a linalg body at indices computed there (gathers,
      embeddings, `x[i]`): the indices are computed again in loops before
      the op, over the dimensions they vary along, and checked there, so
      the op itself keeps no check (one in a parallel loop would abort).
    Messages name the op and where it comes from (the model's source line,
    an ONNX node's name). With static sizes, canonicalization folds most
    checks away. A module with `lighthouse.runtime_checks = false` is left
    as it is.

    ```mlir
    // before: x[i]
    %r = linalg.generic {indexing_maps = [(d0, d1) -> (d0), (d0, d1) -> (d0, d1)], ...}
        ins(%i : tensor<2xi64>) outs(%e : tensor<2x3xf32>) {
    ^bb0(%in: i64, %out: f32):
      %row = arith.index_cast %in : i64 to index
      %col = linalg.index 1 : index
      %v = tensor.extract %x[%row, %col] : tensor<6x3xf32>
      linalg.yield %v : f32
    } -> tensor<2x3xf32>
    // after: also, before the generic
    scf.for %d0 = %c0 to %c2 step %c1 {
      %in = tensor.extract %i[%d0] : tensor<2xi64>
      %row = arith.index_cast %in : i64 to index
      %ok = arith.cmpi ult, %row, %c6 : index
      %ok1 = arith.cmpi ult, %c0, %c3 : index
      %both = arith.andi %ok, %ok1 : i1
      cf.assert %both, "tensor.extract at model.py:12: index out of bounds"
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def LowerRuntimeChecks
    : Pass<"lighthouse-lower-runtime-checks", "::mlir::ModuleOp"> {
  let summary = "Turn cf.assert into a call of lighthouse's runtime that "
    "returns to the caller";
  let description = [{
    Turns each `cf.assert` into a call of `lighthouseRuntimeCheckFailed`
    (lighthouse-c/Runtime.h) when its condition does not hold; the runtime
    returns to the caller of the compiled code with the message instead of
    aborting the process. Each distinct message becomes one global. Asserts
    in parallel loops keep aborting.

    ```mlir
    // before
    %same = arith.cmpi eq, %n, %m : index
    cf.assert %same, "sizes differ"
    // after
    llvm.mlir.global private constant @lighthouse_check("sizes differ\00")
    func.func private @lighthouseRuntimeCheckFailed(!llvm.ptr)
    ...
    %same = arith.cmpi eq, %n, %m : index
    %true = arith.constant true
    %failed = arith.xori %same, %true : i1
    scf.if %failed {
      %message = llvm.mlir.addressof @lighthouse_check : !llvm.ptr
      func.call @lighthouseRuntimeCheckFailed(%message) : (!llvm.ptr) -> ()
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect"
  ];
}

def ReadOnlyArguments
    : Pass<"lighthouse-read-only-arguments", "::mlir::ModuleOp"> {
  let summary = "Mark the tensor arguments of public functions read-only for "
    "bufferization";
  let description = [{
    Marks the tensor arguments of public functions
    `bufferization.writable = false`, so that one-shot bufferization gives
    results buffers of their own instead of writing into the caller's
    inputs. Private functions are unchanged.

    ```mlir
    // before
    func.func @exp(%a: tensor<4xf32>) -> tensor<4xf32>
    // after
    func.func @exp(%a: tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32>
    ```
  }];
}

def ScalarsAsTensors
    : Pass<"lighthouse-scalars-as-tensors", "::mlir::ModuleOp"> {
  let summary = "Pass the scalar arguments and results of public functions "
    "as 0-d tensors";
  let description = [{
    lighthouse's calling convention passes buffers only. Each integer, float
    or index argument of a public function becomes a 0-d tensor read with
    `tensor.extract` on entry, and each such result one made with
    `tensor.from_elements`; index values cross as i64. `compile_module` and
    `lighthouse.compile` run it on functions with scalars, so that a Python
    number is an argument like any other.

    ```mlir
    // before
    func.func @scale(%x: tensor<4xf32>, %s: f32) -> f32
    // after
    func.func @scale(%x: tensor<4xf32>, %t: tensor<f32>) -> tensor<f32> {
      %s = tensor.extract %t[] : tensor<f32>
      ...
      %r = tensor.from_elements %v : tensor<f32>
      return %r : tensor<f32>
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"
  ];
}

#endif // LIGHTHOUSE_TRANSFORMS_BOUNDARY_PASSES
