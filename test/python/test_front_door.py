"""The front door: `lighthouse` exports the public names of its layers,
imported when first used."""

import subprocess
import sys

import lighthouse


def test_lighthouse_exports_the_public_names_of_its_layers():
    from lighthouse import compiler, errors, execution

    assert lighthouse.compile is compiler.compile
    assert lighthouse.compile_onnx is compiler.compile_onnx
    assert lighthouse.compile_module is compiler.compile_module
    assert lighthouse.CompileOptions is compiler.CompileOptions
    assert lighthouse.CompileError is errors.CompileError is compiler.CompileError
    assert lighthouse.load is execution.load is compiler.load
    assert lighthouse.CompiledModule is execution.CompiledModule
    assert lighthouse.SpecializedModule is execution.SpecializedModule
    assert set(lighthouse.__all__) <= set(dir(lighthouse))


def test_importing_lighthouse_loads_neither_mlir_nor_the_compiler():
    loaded = subprocess.run(
        [sys.executable, "-c", "import lighthouse, sys; print(sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "lighthouse.compiler" not in loaded
    assert "lighthouse._mlir_libs" not in loaded


def test_an_unknown_name_is_an_attribute_error():
    try:
        lighthouse.compile_everything
    except AttributeError as error:
        assert "compile_everything" in str(error)
    else:
        raise AssertionError("lighthouse.compile_everything exists")
