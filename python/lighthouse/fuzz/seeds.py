"""The programs `lighthouse.fuzz` starts from: linalg-on-tensors IR as
text, and small ONNX models, each compiling and running as written so that
most mutants are one step away from a program lighthouse takes."""

from typing import Callable, Dict

__all__ = ["MLIR_SEEDS", "ONNX_SEEDS"]

# Between them: linalg named ops (contractions, convolution, pooling,
# elementwise, transpose, broadcast, reduce) and generics, tensor ops
# (extract, insert, slices, pad, concat, dim, reshapes, from_elements),
# arith and math in bodies, scf loops and branches, static and dynamic shapes,
# and sizes and indices read from inputs, which runtime checks must catch.
MLIR_SEEDS: Dict[str, str] = {
    "matmul": """
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%init : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
""",
    "batch_matmul_dynamic": """
func.func @main(%a: tensor<?x4x5xf32>, %b: tensor<?x5x2xf32>) -> tensor<?x4x2xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4x5xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%n) : tensor<?x4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x4x2xf32>) -> tensor<?x4x2xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x4x5xf32>, tensor<?x5x2xf32>) outs(%init : tensor<?x4x2xf32>) -> tensor<?x4x2xf32>
  return %r : tensor<?x4x2xf32>
}
""",
    "conv_pool": """
func.func @main(%x: tensor<1x6x6x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x2x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %pe = tensor.empty() : tensor<1x2x2x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%c, %window : tensor<1x4x4x4xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %p : tensor<1x2x2x4xf32>
}
""",
    "elementwise_named": """
func.func @main(%a: tensor<3x5xf32>, %b: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %e = tensor.empty() : tensor<3x5xf32>
  %s = linalg.add ins(%a, %b : tensor<3x5xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %m = linalg.mul ins(%s, %a : tensor<3x5xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %x = linalg.exp ins(%m : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %r = linalg.max ins(%x, %b : tensor<3x5xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
""",
    "transpose_broadcast_reduce": """
func.func @main(%a: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<3xf32> {
  %et = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%et : tensor<3x2xf32>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<3x2xf32>
  %b = linalg.broadcast ins(%v : tensor<3xf32>) outs(%eb : tensor<3x2xf32>) dimensions = [1]
  %es = tensor.empty() : tensor<3x2xf32>
  %s = linalg.sub ins(%t, %b : tensor<3x2xf32>, tensor<3x2xf32>) outs(%es : tensor<3x2xf32>) -> tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.reduce ins(%s : tensor<3x2xf32>) outs(%init : tensor<3xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %y = arith.addf %x, %acc : f32
      linalg.yield %y : f32
    }
  return %r : tensor<3xf32>
}
""",
    "generic_softmax_rows": """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x6xf32>) outs(%m0 : tensor<4xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %v = arith.maximumf %in, %acc : f32
      linalg.yield %v : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x6xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<4x6xf32>, tensor<4xf32>) outs(%e2 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %mx: f32, %out: f32):
      %d = arith.subf %in, %mx : f32
      %v = math.exp %d : f32
      linalg.yield %v : f32
  } -> tensor<4x6xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x6xf32>) outs(%s0 : tensor<4xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %v = arith.addf %in, %acc : f32
      linalg.yield %v : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<4x6xf32>, tensor<4xf32>) outs(%e2 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %sum: f32, %out: f32):
      %v = arith.divf %in, %sum : f32
      linalg.yield %v : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
""",
    "generic_index_select": """
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%a: tensor<3x4xi32>, %b: tensor<3x4xi32>) -> tensor<3x4xi32> {
  %e = tensor.empty() : tensor<3x4xi32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<3x4xi32>, tensor<3x4xi32>) outs(%e : tensor<3x4xi32>) {
    ^bb0(%x: i32, %y: i32, %out: i32):
      %i = linalg.index 1 : index
      %ii = arith.index_cast %i : index to i32
      %lt = arith.cmpi slt, %x, %y : i32
      %s = arith.select %lt, %x, %y : i32
      %t = arith.muli %s, %ii : i32
      %u = arith.shli %t, %ii : i32
      linalg.yield %u : i32
  } -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}
""",
    "math_casts": """
#map = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xi1>) {
  %e = tensor.empty() : tensor<8xf32>
  %eb = tensor.empty() : tensor<8xi1>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e, %eb : tensor<8xf32>, tensor<8xi1>) {
    ^bb0(%v: f32, %o: f32, %ob: i1):
      %t = math.tanh %v : f32
      %a = math.absf %v : f32
      %s = math.sqrt %a : f32
      %l = math.log1p %s : f32
      %k = arith.fptosi %l : f32 to i32
      %f = arith.sitofp %k : i32 to f32
      %p = math.powf %t, %f : f32
      %c = arith.cmpf olt, %p, %v : f32
      linalg.yield %p, %c : f32, i1
  } -> (tensor<8xf32>, tensor<8xi1>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi1>
}
""",
    "tensor_extract_insert": """
func.func @main(%a: tensor<4x5xf32>, %i: tensor<2xi64>) -> tensor<4x5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i0 = tensor.extract %i[%c0] : tensor<2xi64>
  %i1 = tensor.extract %i[%c1] : tensor<2xi64>
  %r0 = arith.index_cast %i0 : i64 to index
  %r1 = arith.index_cast %i1 : i64 to index
  %v = tensor.extract %a[%r0, %r1] : tensor<4x5xf32>
  %w = arith.mulf %v, %v : f32
  %r = tensor.insert %w into %a[%c1, %c0] : tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}
""",
    "slices_concat": """
func.func @main(%a: tensor<6x4xf32>, %b: tensor<2x4xf32>) -> tensor<5x4xf32> {
  %s = tensor.extract_slice %a[1, 0] [3, 4] [2, 1] : tensor<6x4xf32> to tensor<3x4xf32>
  %d = tensor.insert_slice %b into %a[2, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<6x4xf32>
  %t = tensor.extract_slice %d[0, 0] [2, 4] [1, 1] : tensor<6x4xf32> to tensor<2x4xf32>
  %c = tensor.concat dim(0) %s, %t : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  return %c : tensor<5x4xf32>
}
""",
    "dynamic_slices": """
func.func @main(%a: tensor<?x?xf32>, %o: tensor<2xi64>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %o0 = tensor.extract %o[%c0] : tensor<2xi64>
  %off = arith.index_cast %o0 : i64 to index
  %n = arith.subi %d0, %off : index
  %s = tensor.extract_slice %a[%off, 0] [%n, %d1] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %c = tensor.concat dim(1) %s, %s : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
""",
    "pad": """
func.func @main(%a: tensor<3x4xf32>, %h: tensor<1xi64>) -> tensor<?x6xf32> {
  %zero = arith.constant 0.5 : f32
  %c0 = arith.constant 0 : index
  %h0 = tensor.extract %h[%c0] : tensor<1xi64>
  %high = arith.index_cast %h0 : i64 to index
  %r = tensor.pad %a low[1, 2] high[%high, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<3x4xf32> to tensor<?x6xf32>
  return %r : tensor<?x6xf32>
}
""",
    "reshapes": """
func.func @main(%a: tensor<2x6xf32>, %s: tensor<3xi64>) -> (tensor<12xf32>, tensor<?x?x?xf32>) {
  %e = tensor.expand_shape %a [[0], [1, 2]] output_shape [2, 2, 3] : tensor<2x6xf32> into tensor<2x2x3xf32>
  %c = tensor.collapse_shape %e [[0, 1, 2]] : tensor<2x2x3xf32> into tensor<12xf32>
  %r = tensor.reshape %c(%s) : (tensor<12xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return %c, %r : tensor<12xf32>, tensor<?x?x?xf32>
}
""",
    "dim_from_elements": """
func.func @main(%a: tensor<?x3xf32>) -> (tensor<2xi64>, tensor<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x3xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x3xf32>
  %dims = tensor.from_elements %d0, %d1 : tensor<2xindex>
  %x = tensor.extract %a[%c0, %c1] : tensor<?x3xf32>
  %y = arith.negf %x : f32
  %m = tensor.from_elements %x, %y, %y, %x : tensor<2x2xf32>
  %di = arith.index_cast %dims : tensor<2xindex> to tensor<2xi64>
  return %di, %m : tensor<2xi64>, tensor<2x2xf32>
}
""",
    "scf_loop": """
func.func @main(%a: tensor<8xf32>, %n: tensor<1xi32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %n0 = tensor.extract %n[%c0] : tensor<1xi32>
  %steps = arith.index_cast %n0 : i32 to index
  %ub = arith.minsi %steps, %c8 : index
  %r = scf.for %i = %c0 to %ub step %c1 iter_args(%t = %a) -> (tensor<8xf32>) {
    %v = tensor.extract %t[%i] : tensor<8xf32>
    %w = arith.addf %v, %v : f32
    %u = tensor.insert %w into %t[%i] : tensor<8xf32>
    scf.yield %u : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
""",
    "scf_if": """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %p: tensor<1xi1>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %cond = tensor.extract %p[%c0] : tensor<1xi1>
  %r = scf.if %cond -> (tensor<4xf32>) {
    %e = tensor.empty() : tensor<4xf32>
    %s = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  } else {
    scf.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
""",
    "constants_integer": """
func.func @main(%a: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %k = arith.constant dense<[[1, -2, 3], [4, 5, -6]]> : tensor<2x3xi64>
  %e = tensor.empty() : tensor<2x3xi64>
  %s = linalg.add ins(%a, %k : tensor<2x3xi64>, tensor<2x3xi64>) outs(%e : tensor<2x3xi64>) -> tensor<2x3xi64>
  %m = linalg.mul ins(%s, %s : tensor<2x3xi64>, tensor<2x3xi64>) outs(%e : tensor<2x3xi64>) -> tensor<2x3xi64>
  return %m : tensor<2x3xi64>
}
""",
}


def _model(nodes, inputs, outputs, initializers=(), opset=17):
    from onnx import TensorProto, helper, numpy_helper

    def info(name, spec):
        dtype, shape = spec
        return helper.make_tensor_value_info(name, getattr(TensorProto, dtype), shape)

    graph = helper.make_graph(
        [helper.make_node(op, ins, outs, **attributes) for op, ins, outs, attributes in nodes],
        "main",
        [info(name, spec) for name, spec in inputs.items()],
        [info(name, spec) for name, spec in outputs.items()],
        [numpy_helper.from_array(array, name) for name, array in initializers],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _conv_relu_pool():
    import numpy as np

    weights = np.linspace(-1, 1, 4 * 2 * 3 * 3, dtype=np.float32).reshape(4, 2, 3, 3)
    return _model(
        [
            ("Conv", ["x", "w"], ["c"], {"pads": [1, 1, 1, 1], "strides": [1, 1]}),
            ("Relu", ["c"], ["r"], {}),
            ("MaxPool", ["r"], ["y"], {"kernel_shape": [2, 2], "strides": [2, 2]}),
        ],
        {"x": ("FLOAT", [1, 2, 6, 6])},
        {"y": ("FLOAT", [1, 4, 3, 3])},
        [("w", weights)],
    )


def _matmul_add_softmax():
    import numpy as np

    return _model(
        [
            ("MatMul", ["x", "w"], ["m"], {}),
            ("Add", ["m", "b"], ["a"], {}),
            ("Softmax", ["a"], ["y"], {"axis": -1}),
        ],
        {"x": ("FLOAT", ["N", 8])},
        {"y": ("FLOAT", ["N", 5])},
        [
            ("w", np.linspace(-1, 1, 40, dtype=np.float32).reshape(8, 5)),
            ("b", np.arange(5, dtype=np.float32)),
        ],
    )


def _gemm():
    import numpy as np

    return _model(
        [("Gemm", ["a", "b", "c"], ["y"], {"alpha": 0.5, "beta": 2.0, "transB": 1})],
        {"a": ("FLOAT", [3, 4]), "b": ("FLOAT", [6, 4])},
        {"y": ("FLOAT", [3, 6])},
        [("c", np.ones((1, 6), dtype=np.float32))],
    )


def _reshape_transpose():
    import numpy as np

    return _model(
        [
            ("Reshape", ["x", "shape"], ["r"], {}),
            ("Transpose", ["r"], ["t"], {"perm": [2, 0, 1]}),
            ("Tanh", ["t"], ["y"], {}),
        ],
        {"x": ("FLOAT", [2, 12])},
        {"y": ("FLOAT", [4, 2, 3])},
        [("shape", np.array([2, 3, 4], dtype=np.int64))],
    )


def _concat_slice():
    import numpy as np

    return _model(
        [
            ("Concat", ["a", "b"], ["c"], {"axis": 1}),
            ("Slice", ["c", "starts", "ends", "axes", "steps"], ["y"], {}),
        ],
        {"a": ("FLOAT", [2, 3]), "b": ("FLOAT", [2, 4])},
        {"y": ("FLOAT", [2, 3])},
        [
            ("starts", np.array([1], dtype=np.int64)),
            ("ends", np.array([7], dtype=np.int64)),
            ("axes", np.array([1], dtype=np.int64)),
            ("steps", np.array([2], dtype=np.int64)),
        ],
    )


def _gather():
    return _model(
        [
            ("Gather", ["data", "indices"], ["g"], {"axis": 0}),
            ("Sigmoid", ["g"], ["y"], {}),
        ],
        {"data": ("FLOAT", [5, 3]), "indices": ("INT64", [4])},
        {"y": ("FLOAT", [4, 3])},
    )


def _reduce_sum():
    import numpy as np

    return _model(
        [
            ("ReduceSum", ["x", "axes"], ["s"], {"keepdims": 1}),
            ("Sub", ["x", "s"], ["y"], {}),
        ],
        {"x": ("FLOAT", [3, 4, 5])},
        {"y": ("FLOAT", [3, 4, 5])},
        [("axes", np.array([1, -1], dtype=np.int64))],
    )


def _cast_where():
    return _model(
        [
            ("Less", ["a", "b"], ["l"], {}),
            ("Cast", ["a"], ["i"], {"to": 7}),
            ("Cast", ["i"], ["f"], {"to": 1}),
            ("Where", ["l", "f", "b"], ["y"], {}),
        ],
        {"a": ("FLOAT", [4, 3]), "b": ("FLOAT", [1, 3])},
        {"y": ("FLOAT", [4, 3])},
    )


def _unsqueeze_expand():
    import numpy as np

    return _model(
        [
            ("Unsqueeze", ["x", "axes"], ["u"], {}),
            ("Expand", ["u", "shape"], ["e"], {}),
            ("ReduceMax", ["e"], ["y"], {"axes": [0], "keepdims": 0}),
        ],
        {"x": ("FLOAT", [3])},
        {"y": ("FLOAT", [2, 3])},
        [
            ("axes", np.array([0, 1], dtype=np.int64)),
            ("shape", np.array([4, 2, 3], dtype=np.int64)),
        ],
    )


def _layer_norm_pool():
    import numpy as np

    return _model(
        [
            ("LayerNormalization", ["x", "scale", "bias"], ["n"], {"axis": -1, "epsilon": 1e-5}),
            ("AveragePool", ["n"], ["p"], {"kernel_shape": [2], "pads": [0, 1]}),
            ("Flatten", ["p"], ["y"], {"axis": 1}),
        ],
        {"x": ("FLOAT", [2, 3, 4])},
        {"y": ("FLOAT", [2, 12])},
        [("scale", np.ones(4, dtype=np.float32)), ("bias", np.zeros(4, dtype=np.float32))],
    )


def _integer_ops():
    import numpy as np

    return _model(
        [
            ("Mul", ["a", "k"], ["m"], {}),
            ("Abs", ["m"], ["b"], {}),
            ("ArgMax", ["b"], ["y"], {"axis": 1, "keepdims": 0}),
            ("Pad", ["a", "pads", "value"], ["z"], {"mode": "constant"}),
        ],
        {"a": ("INT32", [2, 5])},
        {"y": ("INT64", [2]), "z": ("INT32", [3, 7])},
        [
            ("k", np.array([-3], dtype=np.int32)),
            ("pads", np.array([0, 1, 1, 1], dtype=np.int64)),
            ("value", np.array(7, dtype=np.int32)),
        ],
    )


#: Builders of small ONNX models (onnx.helper), by name; each builds a
#: `ModelProto` that lighthouse compiles as written.
ONNX_SEEDS: Dict[str, Callable] = {
    "conv_relu_pool": _conv_relu_pool,
    "matmul_add_softmax": _matmul_add_softmax,
    "gemm": _gemm,
    "reshape_transpose": _reshape_transpose,
    "concat_slice": _concat_slice,
    "gather": _gather,
    "reduce_sum": _reduce_sum,
    "cast_where": _cast_where,
    "unsqueeze_expand": _unsqueeze_expand,
    "layer_norm_pool": _layer_norm_pool,
    "integer_ops": _integer_ops,
}
