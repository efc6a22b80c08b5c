"""Calling compiled code: arrays in place and never written, results that own
their buffers or are copies when the compiled code does not own them, failed
runtime checks as exceptions."""

import gc
import subprocess
import sys

import numpy as np
import pytest

from lighthouse.compiler import CompileError, compile_module

# lighthouse-cpu's deallocation pass copies a returned input or constant
# itself; without it, the compiled code returns them as they are, and the
# caller must not take their buffers.
WITHOUT_DEALLOCATION = (
    "builtin.module(func.func(llvm-request-c-wrappers),"
    "func.func(convert-elementwise-to-linalg),"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "convert-bufferization-to-memref,func.func(convert-linalg-to-loops),"
    "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-scf-to-cf,"
    "convert-to-llvm,reconcile-unrealized-casts)"
)
PIPELINES = pytest.mark.parametrize(
    "pipeline", ["default", WITHOUT_DEALLOCATION], ids=["default", "without-deallocation"]
)


def test_inputs_are_not_overwritten():
    compiled = compile_module("""
    func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
      %r = math.exp %a : tensor<4xf32>
      return %r : tensor<4xf32>
    }""")
    a = np.zeros(4, np.float32)
    np.testing.assert_array_equal(compiled(a), np.ones(4))
    np.testing.assert_array_equal(a, np.zeros(4))


@PIPELINES
def test_result_aliasing_an_input_is_a_copy(pipeline):
    compiled = compile_module(
        """
    func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
      return %a : tensor<?xf32>
    }""",
        pipeline=pipeline,
    )
    a = np.arange(4, dtype=np.float32)
    result = compiled(a)
    result[0] = 42
    assert a[0] == 0
    np.testing.assert_array_equal(result, [42, 1, 2, 3])
    # An input without elements, returned as is.
    empty = np.empty(0, np.float32)
    assert compiled(empty).shape == (0,)
    # A read-only input.
    frozen = np.arange(3, dtype=np.float32)
    frozen.flags.writeable = False
    np.testing.assert_array_equal(compiled(frozen), [0, 1, 2])


@PIPELINES
def test_result_of_a_constant_is_a_copy(pipeline):
    compiled = compile_module(
        """
    func.func @main() -> tensor<3xi64> {
      %c = arith.constant dense<[7, 8, 9]> : tensor<3xi64>
      return %c : tensor<3xi64>
    }""",
        pipeline=pipeline,
    )
    first = compiled()
    first[:] = 0
    np.testing.assert_array_equal(compiled(), [7, 8, 9])


@PIPELINES
def test_one_buffer_returned_twice(pipeline):
    compiled = compile_module(
        """
    func.func @main(%a: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
      %r = math.exp %a : tensor<2x2xf32>
      return %r, %r : tensor<2x2xf32>, tensor<2x2xf32>
    }""",
        pipeline=pipeline,
    )
    first, second = compiled(np.zeros((2, 2), np.float32))
    assert first.ctypes.data != second.ctypes.data
    del first
    gc.collect()
    np.testing.assert_array_equal(second, np.ones((2, 2)))


def test_empty_and_boolean_results():
    compiled = compile_module("""
    func.func @main(%a: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xi1>) {
      %zero = arith.constant 0.0 : f32
      %c0 = arith.constant 0 : index
      %n = tensor.dim %a, %c0 : tensor<?x3xf32>
      %e = tensor.empty(%n) : tensor<?x3xi1>
      %positive = linalg.generic {
          indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
          iterator_types = ["parallel", "parallel"]}
          ins(%a : tensor<?x3xf32>) outs(%e : tensor<?x3xi1>) {
        ^bb0(%x: f32, %out: i1):
          %p = arith.cmpf ogt, %x, %zero : f32
          linalg.yield %p : i1
      } -> tensor<?x3xi1>
      %r = math.absf %a : tensor<?x3xf32>
      return %r, %positive : tensor<?x3xf32>, tensor<?x3xi1>
    }""")
    for rows in (0, 2):
        a = np.linspace(-1, 1, rows * 3, dtype=np.float32).reshape(rows, 3)
        absolute, positive = compiled(a)
        assert absolute.shape == positive.shape == (rows, 3)
        assert positive.dtype == np.bool_
        np.testing.assert_array_equal(absolute, np.abs(a))
        np.testing.assert_array_equal(positive, a > 0)
    # A boolean argument.
    negate = compile_module("""
    func.func @main(%a: tensor<3xi1>) -> tensor<3xi1> {
      %true = arith.constant dense<true> : tensor<3xi1>
      %r = arith.xori %a, %true : tensor<3xi1>
      return %r : tensor<3xi1>
    }""")
    np.testing.assert_array_equal(negate(np.array([True, False, True])), [False, True, False])


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_boolean_rows_long_enough_to_vectorize(pipeline):
    compiled = compile_module(
        """
    func.func @main(%a: tensor<4x16xf32>) -> tensor<4x16xi1> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<4x16xi1>
      %positive = linalg.generic {
          indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
          iterator_types = ["parallel", "parallel"]}
          ins(%a : tensor<4x16xf32>) outs(%e : tensor<4x16xi1>) {
        ^bb0(%x: f32, %out: i1):
          %p = arith.cmpf ogt, %x, %zero : f32
          linalg.yield %p : i1
      } -> tensor<4x16xi1>
      return %positive : tensor<4x16xi1>
    }""",
        pipeline=pipeline,
    )
    a = np.linspace(-1, 1, 64, dtype=np.float32).reshape(4, 16)
    np.testing.assert_array_equal(compiled(a), a > 0)


def test_non_contiguous_arguments_are_made_contiguous():
    compiled = compile_module("""
    func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %r = math.exp %a : tensor<2x3xf32>
      return %r : tensor<2x3xf32>
    }""")
    a = np.arange(6, dtype=np.float32).reshape(3, 2).T  # a transposed view
    np.testing.assert_allclose(compiled(a), np.exp(a), rtol=1e-6)
    every_other = np.arange(12, dtype=np.float32).reshape(2, 6)[:, ::2]
    np.testing.assert_allclose(compiled(every_other), np.exp(every_other), rtol=1e-6)
    reversed_rows = np.arange(6, dtype=np.float32).reshape(2, 3)[::-1]
    np.testing.assert_allclose(compiled(reversed_rows), np.exp(reversed_rows), rtol=1e-6)


def test_torch_tensors_in_and_out():
    torch = pytest.importorskip("torch", reason="needs lighthouse[torch]")
    compiled = compile_module("""
    func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %r = arith.addf %a, %b : tensor<2x3xf32>
      return %r : tensor<2x3xf32>
    }""")
    a = torch.ones(2, 3, requires_grad=True)  # passed detached
    b = torch.arange(6, dtype=torch.float32).reshape(3, 2).t()  # not contiguous
    result = compiled(a, b)
    assert isinstance(result, torch.Tensor)
    torch.testing.assert_close(result, a.detach() + b)
    # numpy and torch mixed: torch out.
    assert isinstance(compiled(a.detach().numpy(), b), torch.Tensor)


SUBTRACT_ROW = """
func.func @main(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x3xf32>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x3xf32>, tensor<3xf32>) outs(%e : tensor<?x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %d = arith.subf %x, %y : f32
    linalg.yield %d : f32
  } -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}"""


def test_negative_views_are_resolved():
    torch = pytest.importorskip("torch", reason="needs lighthouse[torch]")
    compiled = compile_module(SUBTRACT_ROW)
    # A negative view reads as the negation of the memory it shares, which
    # DLPack hands over as it is.
    row = torch.tensor([1.0, 2.0, 3.0])
    imaginary = torch.complex(torch.zeros(3), row).conj().imag  # -row, a negative view
    assert imaginary.is_neg()
    for a, b in [
        (torch._neg_view(torch.arange(6.0).reshape(2, 3)), row),
        (torch._neg_view(torch.arange(6.0).reshape(3, 2)).t(), imaginary),  # not contiguous
        (torch._neg_view(torch.empty(0, 3)), imaginary),
    ]:
        torch.testing.assert_close(compiled(a, b), a.resolve_neg() - b.resolve_neg())


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
@pytest.mark.parametrize(
    "make, error",
    [
        (lambda torch, t: t.to(torch.bfloat16), "expected float32 elements, got bfloat16"),
        (
            lambda torch, t: t.to_sparse(),
            "lighthouse takes dense tensors, got a torch.sparse_coo one",
        ),
        (
            lambda torch, t: t.to_sparse_csr(),
            "lighthouse takes dense tensors, got a torch.sparse_csr one",
        ),
        (
            lambda torch, t: torch.complex(t, t).conj(),
            "expected float32 elements, got complex64",
        ),
    ],
    ids=["bfloat16", "sparse-coo", "sparse-csr", "conjugate"],
)
def test_tensors_lighthouse_cannot_pass_are_named(make, error):
    torch = pytest.importorskip("torch", reason="needs lighthouse[torch]")
    compiled = compile_module(SUBTRACT_ROW)
    with pytest.raises(TypeError) as info:
        compiled(make(torch, torch.ones(2, 3)), torch.ones(3))
    assert str(info.value).startswith(f"argument 0: {error}")


CHECKED_ADD = """
func.func @main(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = tensor.dim %b, %c0 : tensor<?xf32>
  %same = arith.cmpi eq, %n, %m : index
  cf.assert %same, "mismatched size for broadcast"
  %r = arith.addf %a, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}"""


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_failed_runtime_check_raises(pipeline, tmp_path):
    from lighthouse.compiler import load

    compiled = compile_module(CHECKED_ADD, pipeline=pipeline)
    compiled.save(tmp_path)
    for function in (compiled, load(tmp_path)):
        with pytest.raises(
            ValueError,
            match="runtime check of the compiled code failed: mismatched size for broadcast",
        ):
            function(np.ones(3, np.float32), np.ones(4, np.float32))
        # The process goes on, and so do calls with good arguments.
        np.testing.assert_array_equal(
            function(np.ones(2, np.float32), np.ones(2, np.float32)), [2, 2]
        )


PARALLEL_CHECK = '''
import numpy as np
from lighthouse.compiler import CompileError, compile_module
compiled = compile_module("""
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %r = scf.forall (%i) in (2) shared_outs(%o = %e) -> (tensor<2xf32>) {
    %x = tensor.extract %a[%i] : tensor<2xf32>
    %ok = arith.cmpf oge, %x, %zero : f32
    cf.assert %ok, "negative input"
    %t = tensor.from_elements %x : tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%i] [1] [1] : tensor<1xf32> into tensor<2xf32>
    }
  }
  return %r : tensor<2xf32>
}""", pipeline="default")
print("good:", compiled(np.array([1, 2], np.float32)), flush=True)
compiled(np.array([1, -2], np.float32))
'''


def test_failed_check_in_a_parallel_loop_aborts_with_its_message():
    """A check in a parallel loop may fail on another thread than the caller's:
    it aborts as cf.assert does, saying why, and does not hang."""
    result = subprocess.run(
        [sys.executable, "-c", PARALLEL_CHECK], capture_output=True, text=True, timeout=120
    )
    assert "good: [1. 2.]" in result.stdout
    assert result.returncode != 0
    assert "negative input" in result.stdout + result.stderr


def test_large_buffers_are_reused_across_calls():
    # The runtime keeps a large buffer freed by one call for the next call
    # of the same size, instead of giving it back to the system.
    from lighthouse.compiler import release_buffers

    compiled = compile_module("""
        func.func @main(%a: tensor<512x512xf32>) -> tensor<512x512xf32> {
          %r = math.exp %a : tensor<512x512xf32>
          return %r : tensor<512x512xf32>
        }""")
    x = np.zeros((512, 512), np.float32)
    release_buffers()
    first = compiled(x)
    address = first.ctypes.data
    del first
    second = compiled(x)
    assert second.ctypes.data == address
    # While `second` lives, its buffer is not handed out again.
    third = compiled(x)
    assert third.ctypes.data != address
    np.testing.assert_array_equal(second, 1.0)
    np.testing.assert_array_equal(third, 1.0)
    release_buffers()
    del second, third


def test_results_of_code_calling_malloc_are_freed_safely():
    # A pipeline of one's own lowers memref.alloc to malloc: its large
    # results go back through the runtime's free, which keeps or frees them.
    compiled = compile_module(
        """
        func.func @main(%a: tensor<256x256xf32>) -> tensor<256x256xf32> {
          %r = math.exp %a : tensor<256x256xf32>
          return %r : tensor<256x256xf32>
        }""",
        pipeline=WITHOUT_DEALLOCATION,
    )
    for _ in range(100):
        # That pipeline does not keep its inputs read-only: a fresh one each time.
        np.testing.assert_array_equal(compiled(np.zeros((256, 256), np.float32)), 1.0)


SCALE = """
func.func @main(%x: tensor<?xf32>, %s: f32, %n: index, %flag: i1) -> (tensor<?xf32>, f32, index, i1) {
  %c0 = arith.constant 0 : index
  %size = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%size) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %p = arith.mulf %v, %s : f32
    linalg.yield %p : f32
  } -> tensor<?xf32>
  %first = tensor.extract %r[%c0] : tensor<?xf32>
  %total = arith.addi %n, %size : index
  %not = arith.xori %flag, %flag : i1
  return %r, %first, %total, %not : tensor<?xf32>, f32, index, i1
}"""


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_scalar_arguments_and_results(pipeline):
    compiled = compile_module(SCALE, pipeline=pipeline)
    assert (
        compiled.signature()
        == "main(float32[?], float32, int64, bool) -> (float32[?], float32, int64, bool)"
    )
    x = np.arange(1, 5, dtype=np.float32)
    for s in (2.5, 3, np.float32(2.5), np.float64(0.5)):
        scaled, first, total, flag = compiled(x, s, 10, True)
        np.testing.assert_allclose(scaled, x * np.float32(s))
        assert isinstance(first, float) and first == np.float32(s)
        assert isinstance(total, int) and total == 14
        assert flag is False
    # 0-d arrays are scalars too.
    scaled, *_ = compiled(x, np.array(2.0, np.float32), np.array(1), np.array(True))
    np.testing.assert_allclose(scaled, 2 * x)


@pytest.mark.parametrize(
    "arguments, error, match",
    [
        ((2.5, 1.5, True), TypeError, r"argument 2: expected a int64 scalar, got 1.5"),
        ((2.5, True, True), TypeError, r"argument 2: expected a int64 scalar, got True"),
        (
            (2.5, 1 << 64, True),
            ValueError,
            r"argument 2: 18446744073709551616 does not fit in int64",
        ),
        (("2.5", 1, True), TypeError, r"argument 1: expected a numpy array or a torch tensor"),
        ((2.5, 1, 1), TypeError, r"argument 3: expected a bool scalar, got 1"),
    ],
)
def test_scalar_arguments_of_another_kind_are_named(arguments, error, match):
    compiled = compile_module(SCALE)
    with pytest.raises(error, match=match):
        compiled(np.ones(3, np.float32), *arguments)


def test_scalar_signature_is_saved_and_loaded(tmp_path):
    from lighthouse import load

    compile_module(SCALE).save(tmp_path / "scale")
    loaded = load(tmp_path / "scale")
    _, first, total, _ = loaded(np.ones(3, np.float32), 4.0, 2, False)
    assert (first, total) == (4.0, 5)


# ===------------------------------------------------------------------------===#
# Unsigned tensors: MLIR's integers are signless (the compiled function takes
# i8), the model says uint8.
# ===------------------------------------------------------------------------===#

UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]


def unsigned_add(dtype):
    """An ONNX model adding two vectors of `dtype`."""
    onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
    from onnx import helper

    element = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["c"])],
        "add",
        [helper.make_tensor_value_info(name, element, [4]) for name in "ab"],
        [helper.make_tensor_value_info("c", element, [4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def unsigned_operands(dtype):
    """Vectors of `dtype` across its range: at and above 2^(bits-1)."""
    info = np.iinfo(dtype)
    half = (info.max >> 1) + 1
    a = np.array([half, info.max, half + 5, 1], dtype)
    b = np.array([half, 1, 7, info.max], dtype)
    return a, b


@pytest.mark.parametrize("dtype", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_unsigned_tensors_cross_as_the_model_declares_them(dtype):
    import lighthouse

    compiled = lighthouse.compile_onnx(unsigned_add(dtype))
    name = np.dtype(dtype).name
    assert compiled.signature() == f"add({name}[4], {name}[4]) -> ({name}[4])"
    assert compiled.arguments == ((np.dtype(dtype), (4,)),) * 2
    assert compiled.results == ((np.dtype(dtype), (4,)),)
    a, b = unsigned_operands(dtype)
    result = compiled(a, b)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, a + b)  # Wraps around, bit for bit.
    # A signed array of the same width is refused, not reinterpreted.
    signed = np.dtype(f"int{8 * np.dtype(dtype).itemsize}")
    with pytest.raises(TypeError, match=f"^argument 1: expected {name} elements, got {signed}$"):
        compiled(a, b.view(signed))


@pytest.mark.parametrize("dtype", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_unsigned_torch_tensors_in_and_out(dtype):
    import lighthouse

    torch = pytest.importorskip("torch", reason="needs lighthouse[torch]")
    compiled = lighthouse.compile_onnx(unsigned_add(dtype))
    a, b = unsigned_operands(dtype)
    result = compiled(torch.from_numpy(a), torch.from_numpy(b))
    assert result.dtype == getattr(torch, np.dtype(dtype).name)
    np.testing.assert_array_equal(result.numpy(), a + b)
    signed = torch.from_numpy(a.view(f"int{8 * np.dtype(dtype).itemsize}"))
    with pytest.raises(TypeError, match=f"^argument 0: expected {np.dtype(dtype)} elements"):
        compiled(signed, torch.from_numpy(b))


def test_unsigned_tensors_of_a_torch_model():
    import lighthouse

    torch = pytest.importorskip("torch", reason="needs lighthouse[torch]")

    class UnsignedOps(torch.nn.Module):
        def forward(self, x, y):
            return x + y, x > y, x.to(torch.float32), x.amax()

    x = torch.tensor([200, 255, 7, 128], dtype=torch.uint8)
    y = torch.tensor([100, 1, 250, 127], dtype=torch.uint8)
    module = UnsignedOps()
    compiled = lighthouse.compile(module, (x, y))
    assert compiled.signature() == (
        "main(uint8[4], uint8[4]) -> (uint8[4], bool[4], float32[4], uint8[])"
    )
    for actual, expected in zip(compiled(x, y), module(x, y)):
        assert actual.dtype == expected.dtype
        torch.testing.assert_close(actual, expected)
    with pytest.raises(TypeError, match="^argument 0: expected uint8 elements, got int8$"):
        compiled(x.view(torch.int8), y)


def test_unsigned_signature_is_saved_loaded_and_cached(tmp_path):
    import json

    import lighthouse
    from lighthouse import load

    lighthouse.compile_onnx(unsigned_add(np.uint8)).save(tmp_path / "add")
    manifest = json.loads((tmp_path / "add" / "manifest.json").read_text())
    assert [a["dtype"] for a in manifest["arguments"]] == ["uint8", "uint8"]
    loaded = load(tmp_path / "add")
    a, b = unsigned_operands(np.uint8)
    assert loaded(a, b).dtype == np.uint8
    with pytest.raises(TypeError, match="^argument 0: expected uint8 elements, got int8$"):
        loaded(a.view(np.int8), b)
    # uint8 and int8 additions are one linalg IR; each has its cache entry.
    cache = tmp_path / "cache"
    signed = unsigned_add(np.int8)
    first = lighthouse.compile_onnx(unsigned_add(np.uint8), cache_dir=cache)
    second = lighthouse.compile_onnx(signed, cache_dir=cache)
    assert "cache-load" not in second.timings
    assert first.results[0][0] == np.uint8 and second.results[0][0] == np.int8
    again = lighthouse.compile_onnx(unsigned_add(np.uint8), cache_dir=cache)
    assert "cache-load" in again.timings and again.results[0][0] == np.uint8


# ===------------------------------------------------------------------------===#
# Element types numpy has no dtype of (bf16, f8E4M3FN ..., i4): arrays of
# ml_dtypes' dtypes (as ONNX gives them) and torch's bfloat16 and float8
# tensors, bit for bit.
# ===------------------------------------------------------------------------===#

ML_DTYPES = {
    "bf16": "bfloat16",
    "f8E4M3FN": "float8_e4m3fn",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2": "float8_e5m2",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
    "i4": "int4",
}

# Takes two vectors; returns the second as it is (a copy) and both concatenated
# (a buffer the compiled code allocated).
SWAP = """
func.func @main(%a: tensor<{n}x{t}>, %b: tensor<{n}x{t}>) -> (tensor<{n}x{t}>, tensor<{m}x{t}>) {{
  %c = tensor.concat dim(0) %b, %a : (tensor<{n}x{t}>, tensor<{n}x{t}>) -> tensor<{m}x{t}>
  return %b, %c : tensor<{n}x{t}>, tensor<{m}x{t}>
}}"""


def ml_dtype(name):
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="needs ml_dtypes (lighthouse[onnx])")
    return np.dtype(getattr(ml_dtypes, name))


def every_value(name):
    """Every value of ml_dtypes' `name`: each bit pattern (NaNs, infinities,
    subnormals, -0 included), each of -8 ... 7 for int4."""
    dtype = ml_dtype(name)
    if name in ("int4", "uint4"):
        low = -8 if name == "int4" else 0
        return np.arange(low, low + 16).astype(dtype)
    return np.arange(1 << (8 * dtype.itemsize)).astype(f"uint{8 * dtype.itemsize}").view(dtype)


def bits(array):
    return array.view(f"uint{8 * array.dtype.itemsize}")


def swap(element, n, **options):
    return compile_module(SWAP.format(n=n, m=2 * n, t=element), **options)


@pytest.mark.parametrize("element", ML_DTYPES)
def test_ml_dtypes_arrays_cross_bit_for_bit(element):
    name = ML_DTYPES[element]
    a = every_value(name)
    b = a[::-1]  # Not contiguous: copied once.
    n = a.size
    compiled = swap(element, n)
    assert (
        compiled.signature() == f"main({name}[{n}], {name}[{n}]) -> ({name}[{n}], {name}[{2 * n}])"
    )
    assert compiled.arguments == ((a.dtype, (n,)),) * 2
    first, both = compiled(a, b)
    assert first.dtype == both.dtype == a.dtype
    np.testing.assert_array_equal(bits(first), bits(b))
    np.testing.assert_array_equal(bits(both), bits(np.concatenate([b, a])))
    # An array of another dtype of the same width is refused, not reinterpreted.
    standin = bits(a).dtype
    with pytest.raises(TypeError, match=f"^argument 1: expected {name} elements, got {standin}$"):
        compiled(a, bits(b))
    with pytest.raises(TypeError, match=f"^argument 0: expected {name} elements, got float32$"):
        compiled(a.astype(np.float32), b)


I4_LAYOUT = """
#map = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<16xi8>, %b: tensor<16xi4>) -> (tensor<16xi4>, tensor<16xi8>) {
  %e4 = tensor.empty() : tensor<16xi4>
  %t = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<16xi8>) outs(%e4 : tensor<16xi4>) {
  ^bb0(%x: i8, %o: i4):
    %y = arith.trunci %x : i8 to i4
    linalg.yield %y : i4
  } -> tensor<16xi4>
  %e8 = tensor.empty() : tensor<16xi8>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%b : tensor<16xi4>) outs(%e8 : tensor<16xi8>) {
  ^bb0(%x: i4, %o: i8):
    %y = arith.extsi %x : i4 to i8
    linalg.yield %y : i8
  } -> tensor<16xi8>
  return %t, %s : tensor<16xi4>, tensor<16xi8>
}"""


# I4_LAYOUT with strategies given in the module that vectorize its i4 ops,
# as lighthouse's own strategies do not.
I4_VECTORS = I4_LAYOUT.replace(
    " {\n  ^bb0",
    ' attrs = {lighthouse.strategy = {kind = "elementwise.rows", vector = array<i64: 16>}}'
    " {\n  ^bb0",
)


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_int4_elements_take_a_byte_each_as_in_llvm(pipeline):
    # LLVM stores an i4 in a byte of its own, upper bits zero, as ml_dtypes'
    # int4 arrays hold them; it packs vectors of i4 (two a byte), which the
    # default pipeline's strategies leave scalar.
    compiled = compile_module(I4_LAYOUT, pipeline=pipeline)
    wide = np.array([-128, -9, -8, -1, 0, 1, 7, 8, 15, 16, 23, 100, 127, 0x5A, -0x5B, 3], np.int8)
    narrow = every_value("int4")
    truncated, extended = compiled(wide, narrow)
    assert truncated.dtype == ml_dtype("int4")
    np.testing.assert_array_equal(bits(truncated), wide.view(np.uint8) & 0x0F)
    np.testing.assert_array_equal(truncated.astype(np.int8), ((wide.astype(np.int16) + 8) & 15) - 8)
    np.testing.assert_array_equal(bits(narrow), np.arange(-8, 8) & 0x0F)
    np.testing.assert_array_equal(extended, np.arange(-8, 8, dtype=np.int8))


def test_vectors_of_int4_are_refused():
    assert I4_VECTORS.count("lighthouse.strategy") == 2
    with pytest.raises(
        CompileError,
        match=r"made vector loads or stores of i4 \('llvm.store' at loc\(\"-\":8:10\), 2 in all\)",
    ):
        compile_module(I4_VECTORS)


@pytest.mark.xfail(
    strict=True, raises=AssertionError, reason="LLVM packs vectors of i4, 2 elements a byte"
)
def test_vectors_of_int4_would_be_wrong(monkeypatch):
    from lighthouse.compiler import pipelines

    monkeypatch.setattr(pipelines, "_sub_byte_vector_element", lambda t: None)
    wide = np.arange(-8, 8, dtype=np.int8)
    truncated, extended = compile_module(I4_VECTORS)(wide, every_value("int4"))
    np.testing.assert_array_equal(truncated.astype(np.int8), wide)
    np.testing.assert_array_equal(extended, wide)


FLOAT_TORCH_DTYPES = [e for e in ML_DTYPES if e != "i4"]


@pytest.mark.parametrize("element", FLOAT_TORCH_DTYPES)
def test_bfloat16_and_float8_torch_tensors_in_and_out(element):
    torch = pytest.importorskip("torch", reason="needs lighthouse[torch]")
    name = ML_DTYPES[element]
    dtype = getattr(torch, name)
    values = bits(every_value(name))
    standin = getattr(torch, values.dtype.name)
    # torch has few ops of these dtypes (and of uint16): made and compared as
    # numpy's bits. b is not contiguous.
    a = torch.from_numpy(values).view(dtype)
    b = torch.from_numpy(np.stack([values[::-1], values], axis=1))[:, 0].view(dtype)
    assert not b.is_contiguous()
    compiled = swap(element, values.size)
    first, both = compiled(a, b)
    assert first.dtype == both.dtype == dtype
    np.testing.assert_array_equal(first.view(standin).numpy(), values[::-1])
    np.testing.assert_array_equal(
        both.view(standin).numpy(), np.concatenate([values[::-1], values])
    )
    with pytest.raises(TypeError, match=f"^argument 0: expected {name} elements, got float32$"):
        compiled(a.float(), b)
    with pytest.raises(
        TypeError, match=f"^argument 1: expected {name} elements, got {values.dtype}$"
    ):
        compiled(a, b.view(standin))


def test_torch_has_no_int4_tensors_to_pass():
    torch = pytest.importorskip("torch", reason="needs lighthouse[torch]")
    compiled = swap("i4", 16)
    message = (
        "^argument 0: expected int4 elements, which torch has no tensors of that lighthouse "
        r"can pass \(torch.int4 is a placeholder\): pass a numpy array of ml_dtypes.int4, "
        "got a tensor of {}$"
    )
    for tensor in (torch.zeros(16, dtype=torch.int8), torch.empty(16, dtype=torch.int4)):
        with pytest.raises(TypeError, match=message.format(str(tensor.dtype)[6:])):
            compiled(tensor, tensor)
    # Nor results: the call would give torch tensors.
    to_int4 = compile_module("""
    func.func @main(%a: tensor<4xi8>) -> tensor<4xi4> {
      %t = arith.trunci %a : tensor<4xi8> to tensor<4xi4>
      return %t : tensor<4xi4>
    }""")
    with pytest.raises(TypeError, match=r"^result 0 is of int4, which torch has no tensors of"):
        to_int4(torch.zeros(4, dtype=torch.int8))
    assert to_int4(np.array([1, -1, 8, 7], np.int8)).astype(np.int8).tolist() == [1, -1, -8, 7]


def test_ml_dtypes_is_named_when_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    with pytest.raises(
        ImportError,
        match=r"^lighthouse passes tensors of bfloat16 as numpy arrays of ml_dtypes.bfloat16: "
        "install the ml_dtypes package",
    ):
        swap("bf16", 4)
    # Signatures without such types do not need it.
    compile_module(SUBTRACT_ROW)


def test_ml_dtypes_are_saved_and_loaded(tmp_path):
    import json

    from lighthouse import load

    compiled = swap("bf16", 4)
    compiled.save(tmp_path / "swap")
    manifest = json.loads((tmp_path / "swap" / "manifest.json").read_text())
    assert [a["dtype"] for a in manifest["arguments"]] == ["bfloat16", "bfloat16"]
    loaded = load(tmp_path / "swap")
    assert loaded.signature() == compiled.signature()
    a = np.array([1.5, -2, np.inf, np.nan], ml_dtype("bfloat16"))
    first, both = loaded(a, a[::-1])
    np.testing.assert_array_equal(bits(both), bits(np.concatenate([a[::-1], a])))


def uint4_model():
    """An ONNX model passing a uint4 vector through, and widening it to uint8."""
    pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [
            helper.make_node("Identity", ["a"], ["same"]),
            helper.make_node("Cast", ["a"], ["wide"], to=TensorProto.UINT8),
        ],
        "g",
        [helper.make_tensor_value_info("a", TensorProto.UINT4, [16])],
        [
            helper.make_tensor_value_info("same", TensorProto.UINT4, [16]),
            helper.make_tensor_value_info("wide", TensorProto.UINT8, [16]),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def test_uint4_tensors_cross_as_the_model_declares_them():
    import lighthouse

    compiled = lighthouse.compile_onnx(uint4_model())
    assert compiled.signature() == "g(uint4[16]) -> (uint4[16], uint8[16])"
    a = every_value("uint4")
    same, wide = compiled(a)
    assert same.dtype == a.dtype
    np.testing.assert_array_equal(bits(same), bits(a))
    np.testing.assert_array_equal(wide, np.arange(16, dtype=np.uint8))
    with pytest.raises(TypeError, match="^argument 0: expected uint4 elements, got int4$"):
        compiled(a.view(ml_dtype("int4")))
