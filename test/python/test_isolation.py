"""lighthouse holds exactly one MLIR and shares nothing with other bindings."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import lighthouse
from lighthouse import ir

MLIR_LIBS = Path(lighthouse.__file__).parent / "_mlir_libs"


def needed_libraries(path):
    out = subprocess.run(
        ["readelf", "-d", str(path)], check=True, capture_output=True, text=True
    ).stdout
    return [line.split("[")[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def test_no_library_of_the_package_needs_a_shared_mlir():
    libraries = sorted(MLIR_LIBS.glob("*.so*"))
    assert any(p.name.startswith("libLighthouseCAPI.so") for p in libraries)
    for library in libraries:
        for needed in needed_libraries(library):
            assert not needed.startswith("libMLIR.so"), f"{library.name} needs {needed}"


def defines_mlir_context(path):
    """Whether the shared library at `path` holds MLIR's core (MLIRContext)."""
    out = subprocess.run(
        ["nm", "-D", "-C", "--defined-only", path], capture_output=True, text=True
    ).stdout
    return "mlir::MLIRContext::MLIRContext(" in out


def test_one_copy_of_mlir_is_loaded_after_jit_execution():
    # A fresh process, so that nothing another test loaded counts.
    script = """
import lighthouse
from lighthouse import ir
from lighthouse.dialects import func, linalg, llvm, transform
from lighthouse.dialects.transform import interpreter
from lighthouse.execution_engine import ExecutionEngine
from lighthouse.passmanager import PassManager
with ir.Context():
    m = ir.Module.parse('func.func @f(%a: i32) -> i32 attributes {llvm.emit_c_interface} { return %a : i32 }')
    PassManager.parse('builtin.module(convert-to-llvm)').run(m.operation)
    ExecutionEngine(m, shared_libs=lighthouse.runtime_library_paths())
print('\\n'.join(sorted({line.split()[-1] for line in open('/proc/self/maps') if '.so' in line})))
"""
    loaded = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    ).stdout.split()
    assert any("libLLVM" in p for p in loaded), "JIT did not load LLVM?"
    assert any("libmlir_c_runner_utils" in p for p in loaded)
    holders = [os.path.basename(p) for p in loaded if defines_mlir_context(p)]
    assert len(holders) == 1 and holders[0].startswith("libLighthouseCAPI.so"), holders
    llvms = [p for p in loaded if os.path.basename(p).startswith("libLLVM")]
    assert len(llvms) == 1, llvms
    # A repaired wheel carries its own libLLVM and must use it.
    bundled = MLIR_LIBS.parent.parent / "lighthouse.libs"
    if bundled.is_dir():
        assert Path(llvms[0]).resolve().parent == bundled.resolve(), llvms


def test_capsules_and_modules_are_under_lighthouse():
    with ir.Context():
        module = ir.Module.parse("func.func @f() { return }")
        capsule = module._CAPIPtr
    assert "lighthouse.ir.Module._CAPIPtr" in repr(capsule)
    assert type(module).__module__.startswith("lighthouse.")


class TestNextToTorchMlir:
    """torch-mlir's wheel carries its own MLIR bindings, in its own namespace."""

    @pytest.fixture
    def torch_mlir_ir(self):
        return pytest.importorskip(
            "torch_mlir.ir", reason="torch-mlir is not installed (build_tools/setup.sh installs it)"
        )

    def test_both_packages_build_ir_in_one_process(self, torch_mlir_ir):
        with torch_mlir_ir.Context():
            theirs = torch_mlir_ir.Module.parse(
                "func.func @from_torch_mlir(%a: f32) -> f32 { return %a : f32 }"
            )
            their_text = str(theirs)
        with ir.Context():
            ours = ir.Module.parse(their_text)
            assert ours.operation.verify()
            our_text = str(ours)
        assert "@from_torch_mlir" in our_text
        with torch_mlir_ir.Context():
            back = torch_mlir_ir.Module.parse(our_text)
            assert str(back) == their_text

    def test_generic_form_crosses_from_lighthouse(self, torch_mlir_ir):
        with ir.Context():
            module = ir.Module.parse("""
            func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
              %r = arith.addf %a, %b : tensor<4xf32>
              return %r : tensor<4xf32>
            }""")
            generic = module.operation.get_asm(print_generic_op_form=True)
        with torch_mlir_ir.Context():
            theirs = torch_mlir_ir.Module.parse(generic)
            assert "arith.addf" in str(theirs)

    def test_objects_do_not_cross_bindings(self, torch_mlir_ir):
        with ir.Context():
            ours = ir.Module.parse("func.func @f() { return }")
            with torch_mlir_ir.Context():
                # Distinct nanobind domains: a lighthouse object is not a
                # torch_mlir one, and its capsule name does not match.
                assert not isinstance(ours, torch_mlir_ir.Module)
                with pytest.raises((TypeError, ValueError)):
                    torch_mlir_ir.Module._CAPICreate(ours._CAPIPtr)
                with pytest.raises(TypeError):
                    torch_mlir_ir.Module.parse(
                        "func.func @g() { return }", context=ir.Context.current
                    )
        assert type(ours).__module__ != torch_mlir_ir.Module.__module__
