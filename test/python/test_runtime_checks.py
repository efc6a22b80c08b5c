"""Compiled code checks the sizes and indices it is given before using them
(lighthouse-insert-runtime-checks): out-of-range indices and sizes that do
not agree raise ValueError naming the op, on both pipelines, instead of
reading or writing out of bounds; `runtime_checks=False` leaves them out."""

import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)
onnx = pytest.importorskip(
    "onnx", reason="needs lighthouse[onnx] (build_tools/setup.sh installs it)"
)

import lighthouse  # noqa: E402
from lighthouse.compiler import compile_module  # noqa: E402

PIPELINES = ["loops", "default"]


class Index(torch.nn.Module):
    def forward(self, x, i):
        return x[i]


class Concatenate(torch.nn.Module):
    def forward(self, x, y):
        return torch.cat([x, y], 1)


class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Embedding(10, 4)

    def forward(self, i):
        return self.table(i)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_index_out_of_range_raises(pipeline):
    x = torch.randn(6, 3)
    compiled = lighthouse.compile(Index(), (x, torch.tensor([0, 1])), pipeline=pipeline)
    for rows in ([0, 5], [0, -6], [-1, 2]):
        torch.testing.assert_close(compiled(x, torch.tensor(rows)), x[torch.tensor(rows)])
    for rows in ([0, 10**8], [0, 6], [0, -7]):
        with pytest.raises(
            ValueError, match=r"tensor.extract at .*test_runtime_checks.py.*: index out of bounds"
        ):
            compiled(x, torch.tensor(rows))


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_embedding_index_out_of_range_raises(pipeline):
    model = Embed()
    compiled = lighthouse.compile(model, (torch.tensor([[1, 2]]),), pipeline=pipeline)
    with pytest.raises(ValueError, match="index out of bounds"):
        compiled(torch.tensor([[1, 10]]))
    with torch.no_grad():
        torch.testing.assert_close(compiled(torch.tensor([[9, 0]])), model(torch.tensor([[9, 0]])))


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_concatenation_of_batches_that_differ_raises(pipeline):
    # torch.export assumes the batches equal; the signature cannot say so.
    batch = torch.export.Dim("batch")
    compiled = lighthouse.compile(
        Concatenate(),
        (torch.randn(2, 3), torch.randn(2, 4)),
        dynamic_shapes={"x": {0: batch}, "y": {0: batch}},
        pipeline=pipeline,
    )
    x, y = torch.randn(5, 3), torch.randn(5, 4)
    torch.testing.assert_close(compiled(x, y), torch.cat([x, y], 1))
    for rows in ((3, 5), (5, 3)):
        with pytest.raises(ValueError, match="tensor.concat .*operands of different sizes"):
            compiled(torch.randn(rows[0], 3), torch.randn(rows[1], 4))


ADD = """
func.func @main(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}"""


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_operands_of_different_sizes_raise(pipeline):
    compiled = compile_module(ADD, pipeline=pipeline)
    a = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(compiled(a, a), 2 * a)
    with pytest.raises(
        ValueError, match="linalg.generic.* is incompatible with inferred dimension size"
    ):
        compiled(a, np.ones(1000, np.float32))


# A slice at an offset and stride given at run time, inserted back at a
# size given at run time, and padded to a static size by a pad given at run
# time: each must stay inside its tensor or make the size its type states.
SLICES_AND_PADS = """
func.func @main(%a: tensor<8xf32>, %b: tensor<?xf32>, %at: index, %step: index, %to: index,
                %n: index, %high: index) -> (tensor<3xf32>, tensor<8xf32>, tensor<12xf32>) {
  %s = tensor.extract_slice %a[%at] [3] [%step] : tensor<8xf32> to tensor<3xf32>
  %i = tensor.insert_slice %b into %a[%to] [%n] [%step] : tensor<?xf32> into tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1] high[%high] {
  ^bb0(%k: index):
    tensor.yield %zero : f32
  } : tensor<8xf32> to tensor<12xf32>
  return %s, %i, %p : tensor<3xf32>, tensor<8xf32>, tensor<12xf32>
}"""


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_slices_and_pads_given_at_run_time_are_checked(pipeline):
    compiled = compile_module(SLICES_AND_PADS, pipeline=pipeline)
    a, b = np.arange(8, dtype=np.float32), np.array([-1, -2], np.float32)
    s, i, p = compiled(a, b, 0, 3, 0, 2, 3)
    np.testing.assert_array_equal(s, a[0:9:3])
    np.testing.assert_array_equal(i, [-1, 1, 2, -2, 4, 5, 6, 7])
    np.testing.assert_array_equal(p, np.pad(a, (1, 3)))
    # Backwards from offset 7 by 3: reads 7, 4, 1 and writes 7, 4.
    s, i, _ = compiled(a, b, 7, -3, 7, 2, 3)
    np.testing.assert_array_equal(s, [7, 4, 1])
    np.testing.assert_array_equal(i, [0, 1, 2, 3, -2, 5, 6, -1])
    cases = [
        ((a, b, 0, 4, 0, 2, 3), "tensor.extract_slice at .*: the slice runs out of the source"),
        ((a, b, 8, 1, 0, 2, 3), "tensor.extract_slice at .*: the slice runs out of the source"),
        ((a, b, 7, -(2**31), 0, 2, 3), "tensor.extract_slice at .*: the slice runs out of"),
        ((a, b, 2**63 - 1, 1, 0, 2, 3), "the slice runs out of the source"),
        ((a, b, 0, 1, 7, 2, 3), "tensor.insert_slice at .*: the slice runs out of the destination"),
        ((a, b, 0, 1, 0, 3, 3), "tensor.insert_slice at .*: the inserted tensor's sizes differ"),
        (
            (a, b, 0, 1, 0, -1, 3),
            "tensor.insert_slice at .*: the slice runs out of the destination",
        ),
        ((a, b, 0, 1, 0, 2, 4), "tensor.pad at .*: the padded sizes differ from the result type's"),
    ]
    for arguments, message in cases:
        with pytest.raises(ValueError, match=message):
            compiled(*arguments)


# Rows gathered at run time, then read by an op whose result states one row:
# the sizes the op's check proves must not reach the gather before it.
GATHER_THEN_ONE_ROW = """
#rows = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%ids: tensor<?xi64>, %table: tensor<16x4xf32>) -> tensor<1x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %ids, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %gathered = linalg.generic {indexing_maps = [#rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<?xi64>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%i: i64, %out: f32):
    %row = arith.index_cast %i : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<16x4xf32>
    linalg.yield %v : f32
  } -> tensor<?x4xf32>
  %o = tensor.empty() : tensor<1x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gathered : tensor<?x4xf32>) outs(%o : tensor<1x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}"""


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_sizes_a_check_proves_are_not_assumed_before_it(pipeline):
    # Canonicalization gave the gather the one row the exp states, and it
    # wrote 200,000 rows into a buffer of one (SIGSEGV). In a process of its
    # own, so that a write out of bounds fails this test alone.
    script = f"""
import numpy as np
from lighthouse.compiler import compile_module
compiled = compile_module({GATHER_THEN_ONE_ROW!r}, pipeline={pipeline!r})
table = np.arange(64, dtype=np.float32).reshape(16, 4) / 64
np.testing.assert_allclose(compiled(np.array([3]), table)[0], np.exp(table[3]), rtol=1e-6)
try:
    compiled(np.full(200_000, 5), table)
except ValueError as error:
    print(error)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "is incompatible with inferred dimension size" in result.stdout


def _onnx_model(node, inputs, outputs, initializers=()):
    from onnx import helper

    graph = helper.make_graph([node], "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_onnx_declared_shapes_are_checked(pipeline):
    from onnx import TensorProto, helper, numpy_helper

    # An all-dynamic input whose output is declared static.
    relu = _onnx_model(
        helper.make_node("Relu", ["x"], ["y"]),
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "A", "N", "A"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 4, 4])],
    )
    compiled = lighthouse.compile_onnx(relu, pipeline=pipeline)
    assert compiled(np.ones((1, 4, 4, 4), np.float32)).shape == (1, 4, 4, 4)
    with pytest.raises(ValueError, match="tensor.cast.*size mismatch"):
        compiled(np.ones((2, 2, 2, 2), np.float32))

    # A convolution whose input channels are dynamic, its weights' are not.
    weights = numpy_helper.from_array(np.ones((2, 3, 3, 3), np.float32), "w")
    conv = _onnx_model(
        helper.make_node("Conv", ["x", "w"], ["y"]),
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "C", 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2, 6, 6])],
        [weights],
    )
    compiled = lighthouse.compile_onnx(conv, pipeline=pipeline)
    assert compiled(np.ones((1, 3, 8, 8), np.float32)).shape == (1, 2, 6, 6)
    with pytest.raises(ValueError, match="linalg.conv_2d_nchw_fchw.*incompatible"):
        compiled(np.ones((1, 4, 8, 8), np.float32))


def test_checks_can_be_left_out():
    x = torch.randn(6, 3)
    checked = lighthouse.compile(Index(), (x, torch.tensor([0, 1])), dump_ir=True)
    unchecked = lighthouse.compile(
        Index(), (x, torch.tensor([0, 1])), dump_ir=True, runtime_checks=False
    )
    assert "index out of bounds" in checked.ir["llvm"]
    assert "index out of bounds" not in unchecked.ir["llvm"]
    rows = torch.tensor([5, 0])
    torch.testing.assert_close(unchecked(x, rows), x[rows])


FILL = """
func.func @main(%size: tensor<1xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n64 = tensor.extract %size[%c0] : tensor<1xi64>
  %n = arith.index_cast %n64 : i64 to index
  %e = tensor.empty(%n) : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %r = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}"""


def test_allocation_that_fails_raises_memory_error():
    compiled = compile_module(FILL)
    # 2^62 bytes: more than any address space, whatever the overcommit policy.
    with pytest.raises(MemoryError, match=r"ran out of memory: 46116860184273879\d\d bytes"):
        compiled(np.array([1 << 60], np.int64))
    np.testing.assert_array_equal(compiled(np.array([3], np.int64)), np.ones(3, np.float32))


class ExpThenIndex(torch.nn.Module):
    def forward(self, x, i):
        return torch.exp(x)[i]


def _resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_failed_calls_free_what_they_allocated():
    # exp(x), 8 MB, is allocated before the index is checked; the failed
    # call frees it (50 calls would otherwise keep 400 MB).
    x = torch.randn(1 << 21, 1)
    compiled = lighthouse.compile(ExpThenIndex(), (x, torch.tensor([0])))
    bad = torch.tensor([1 << 22])
    for _ in range(3):
        with pytest.raises(ValueError, match="index out of bounds"):
            compiled(x, bad)
    before = _resident_bytes()
    for _ in range(50):
        with pytest.raises(ValueError, match="index out of bounds"):
            compiled(x, bad)
    assert _resident_bytes() - before < 50 << 20
    torch.testing.assert_close(compiled(x, torch.tensor([5])), torch.exp(x)[torch.tensor([5])])
