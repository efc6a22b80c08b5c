"""`python -m lighthouse.extras.tools.import_onnx`, run as torch-mlir's users run
`torch_mlir.tools.import_onnx`: as a command, and as `main(parse_arguments(...))`,
on real ONNX files; the IR it writes, and its errors."""

import re
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip(
    "onnx", reason="needs lighthouse[onnx] (build_tools/setup.sh installs it)"
)
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

import models  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.external_data_helper import convert_model_to_external_data  # noqa: E402
from lighthouse.extras.tools.import_onnx import __main__ as import_onnx  # noqa: E402

TOOL = "lighthouse.extras.tools.import_onnx"


def saved(model, path, **external):
    if external:
        convert_model_to_external_data(model, all_tensors_to_one_file=True, **external)
    onnx.save(model, path)
    return path


def imported(*argv) -> str:
    """The IR the tool writes for `argv` (its arguments but -o), through main()."""
    output = argv[0].parent / "out.mlir"
    import_onnx.main(import_onnx.parse_arguments([str(a) for a in argv] + ["-o", str(output)]))
    return output.read_text()


def test_command_prints_the_models_torch_onnx_ir(tmp_path):
    model = saved(models.onnx_dense_softmax(17), tmp_path / "dense.onnx")
    result = subprocess.run(
        [sys.executable, "-m", TOOL, str(model)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "func.func @dense_softmax(%arg0: !torch.vtensor<[?,8],f32>)" in text
    for op in ("MatMul", "Add", "Relu", "Softmax"):
        assert f'torch.operator "onnx.{op}"(' in text
    assert "torch.onnx_meta.opset_version = 17 : si64" in text
    # Shape inference gave the intermediate values their shapes.
    assert re.search(
        r'torch.operator "onnx.Relu"\(%\w+\) : \(!torch.vtensor<\[\?,4\],f32>\) -> '
        r"!torch.vtensor<\[\?,4\],f32>",
        text,
    )


def test_external_data_in_a_data_dir(tmp_path):
    model = models.onnx_dense_softmax(17)
    (tmp_path / "weights").mkdir()
    path = saved(model, tmp_path / "dense.onnx", location="weights/data.bin", size_threshold=0)
    # The model moves away from its data: --data-dir says where the data is.
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    path = path.rename(moved / "dense.onnx")
    text = imported(path, "--data-dir", tmp_path)
    assert "dense_resource<W>" in text and "dense_resource<B>" in text
    with pytest.raises(FileNotFoundError, match="external data"):
        imported(path)


def test_opset_version_and_clear_domain(tmp_path):
    model = models.onnx_dense_softmax(17)
    model.graph.node[2].domain = "ai.onnx"  # ONNX's default domain, spelled out
    path = saved(model, tmp_path / "dense.onnx")
    text = imported(path, "--opset-version", "18", "--clear-domain")
    assert "torch.onnx_meta.opset_version = 18 : si64" in text
    assert 'torch.operator "onnx.Relu"(' in text


def test_function_expansion_allowlist(tmp_path):
    graph = helper.make_graph(
        [helper.make_node("GreaterOrEqual", ["a", "b"], ["y"])],
        "greater_equal",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [3, 4]) for n in "ab"],
        [helper.make_tensor_value_info("y", TensorProto.BOOL, [3, 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    path = saved(model, tmp_path / "ge.onnx")
    plain = imported(path)
    assert 'torch.operator "onnx.GreaterOrEqual"(' in plain and "func.func private" not in plain
    expanded = imported(path, "--disable-function-expansion-allowlist")
    assert "func.func private" in expanded and "GreaterOrEqual" in expanded
    assert (
        'torch.operator "onnx.Greater"(' in expanded and 'torch.operator "onnx.Equal"(' in expanded
    )
    assert 'torch.operator "onnx.Or"(' in expanded


def test_a_model_over_the_protobuf_limit_goes_through_files(tmp_path, monkeypatch):
    """ONNX checks and infers shapes of a model over 2 GB only from files; the
    limit lowered, a small model takes that path, its files kept in --temp-dir."""
    large = np.arange(4096, dtype=np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(large, "c")),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("Neg", ["r"], ["y"]),
        ],
        "large",
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])],
    )
    path = saved(helper.make_model(graph), tmp_path / "large.onnx")
    monkeypatch.setattr(onnx.checker, "MAXIMUM_PROTOBUF", 4096)
    temps = tmp_path / "temps"
    temps.mkdir()
    text = imported(path, "--temp-dir", temps, "--keep-temps")
    # Shapes inferred from the files: Relu's result is static.
    assert re.search(
        r'torch.operator "onnx.Relu"\(%\w+\) : \(!torch.vtensor<\[4096\],f32>\) -> '
        r"!torch.vtensor<\[4096\],f32>",
        text,
    )
    (kept,) = temps.iterdir()
    assert {p.name for p in kept.iterdir()} >= {"model.onnx", "inferred.onnx", "model.data"}
    imported(path, "--temp-dir", temps)
    assert len(list(temps.iterdir())) == 1  # Without --keep-temps, nothing more is left.


def test_errors_are_named(tmp_path):
    missing = subprocess.run(
        [sys.executable, "-m", TOOL, str(tmp_path / "none.onnx")], capture_output=True, text=True
    )
    assert missing.returncode == 1
    assert "import_onnx: FileNotFoundError: no ONNX model at" in missing.stderr
    (tmp_path / "bad.onnx").write_bytes(b"not a protobuf")
    bad = subprocess.run(
        [sys.executable, "-m", TOOL, str(tmp_path / "bad.onnx")], capture_output=True, text=True
    )
    assert bad.returncode == 1
    assert "is not a valid ONNX model" in bad.stderr
    assert "Traceback" not in bad.stderr
