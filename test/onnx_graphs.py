"""ONNX models of a few nodes built with onnx.helper, and the checks of
what lighthouse compiles of them against ONNX's reference evaluator or
onnxruntime: shared by the tests of the ONNX ingress's graph passes and
rules (test/python/ingress/onnx/). Needs lighthouse[onnx]: its tests skip
themselves first when onnx is not there."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lighthouse


def constant(name, value):
    return helper.make_node(
        "Constant", [], [name], value=numpy_helper.from_array(np.array(value, np.int64))
    )


def model(nodes, inputs, outputs, opset=18, initializers=()):
    graph = helper.make_graph(
        nodes,
        "folded",
        [helper.make_tensor_value_info(name, kind, shape) for name, kind, shape in inputs],
        [helper.make_tensor_value_info(name, kind, shape) for name, kind, shape in outputs],
        list(initializers),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def vector(name, shape, kind=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, kind, shape)


def op_types(proto):
    return [node.op_type for node in proto.graph.node]


def reference(proto, *inputs):
    names = [value.name for value in proto.graph.input]
    return ReferenceEvaluator(proto).run(None, dict(zip(names, inputs)))[0]


def check_compiled(proto, *inputs):
    names = [value.name for value in proto.graph.input]
    expected = ReferenceEvaluator(proto).run(None, dict(zip(names, inputs)))[0]
    np.testing.assert_allclose(
        lighthouse.compile_onnx(proto)(*inputs), expected, rtol=1e-5, atol=1e-6
    )


def check_against_onnxruntime(proto, inputs):
    ort = pytest.importorskip("onnxruntime")
    names = [value.name for value in proto.graph.input]
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, dict(zip(names, inputs)))
    got = lighthouse.compile_onnx(proto)(*inputs)
    for value, want in zip(got if isinstance(got, tuple) else (got,), expected, strict=True):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


def random_inputs(proto, seed=5):
    """Inputs for `proto`'s graph inputs: floats, and small integers."""
    rng = np.random.default_rng(seed)
    values = []
    for value in proto.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
        if np.issubdtype(dtype, np.floating):
            values.append(rng.standard_normal(shape).astype(dtype))
        else:
            values.append(rng.integers(-3 if dtype.kind == "i" else 0, 4, shape).astype(dtype))
    return values


def one_node_model(node, inputs, outputs, opset, constants):
    """A model of `node` alone, of an op lighthouse defines (a case of the
    rules' tests `test_ops_lighthouse_defines_match_onnxruntime`): its
    `constants` initializers, floats as float32 and integers as int64 but
    zero points (named z...), which take the inputs' integer type, int8."""
    initializers = [
        numpy_helper.from_array(
            np.array(value, np.float32 if isinstance(value, float) else np.int64), key
        )
        for key, value in constants.items()
    ]
    for tensor in initializers:  # Zero points of the inputs' integer type.
        if tensor.name.startswith("z"):
            tensor.data_type = TensorProto.INT8
            tensor.ClearField("int64_data")
            tensor.raw_data = np.array(constants[tensor.name], np.int8).tobytes()
    return model([node], inputs, outputs, opset=opset, initializers=initializers)


def check_one_node(node, inputs, outputs, opset, constants):
    """The `one_node_model` of a case compiled and checked against onnxruntime
    on `random_inputs`."""
    proto = one_node_model(node, inputs, outputs, opset, constants)
    check_against_onnxruntime(proto, random_inputs(proto))
