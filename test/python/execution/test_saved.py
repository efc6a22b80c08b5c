"""Saved modules are checked before they run: the library against the sha256
in its manifest before it is loaded, then every field of the manifest against
the library's own copy. What fails raises ValueError naming the file and what
is wrong; damaged libraries are loaded in another process, where a crash
would not take pytest down."""

import hashlib
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from lighthouse._version import LIGHTHOUSE_VERSION, MLIR_VERSION
from lighthouse.compiler import compile_module, load
from lighthouse.execution.saved import link_shared_library

# Two models of one signature.
EXP = """
func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = math.exp %a : tensor<?xf32>
  return %r : tensor<?xf32>
}"""
NEG = EXP.replace("math.exp", "arith.negf")

LOAD_AND_CALL = """
import sys, numpy as np
from lighthouse.compiler import load
try:
    loaded = load(sys.argv[1])
except ValueError as error:
    print("ValueError:", error)
else:
    print("ran:", loaded(np.zeros(2, np.float32)))
"""


def load_elsewhere(folder) -> str:
    """Loads the module saved in `folder` and calls it in another process;
    what it printed."""
    result = subprocess.run(
        [sys.executable, "-c", LOAD_AND_CALL, str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    root = tmp_path_factory.mktemp("saved")
    compile_module(EXP).save(root / "exp")
    compile_module(NEG).save(root / "neg")
    return root


@pytest.fixture
def exp(saved, tmp_path):
    """A copy of the saved exp model, to damage."""
    return shutil.copytree(saved / "exp", tmp_path / "exp")


def edit_manifest(folder, edit) -> None:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    edit(manifest)
    path.write_text(json.dumps(manifest))


def truncate(library, saved):
    library.write_bytes(library.read_bytes()[: library.stat().st_size // 2])


def flip_a_byte(library, saved):
    data = bytearray(library.read_bytes())
    data[len(data) // 2] ^= 0xFF
    library.write_bytes(bytes(data))


def another_models(library, saved):
    shutil.copyfile(saved / "neg" / "module.so", library)


@pytest.mark.parametrize("damage", [truncate, flip_a_byte, another_models])
def test_changed_library_is_refused_before_it_is_loaded(exp, saved, damage):
    assert load_elsewhere(exp) == "ran: [1. 1.]\n"
    damage(exp / "module.so", saved)
    assert load_elsewhere(exp).startswith(
        f"ValueError: {exp / 'module.so'} is not the library {exp / 'manifest.json'} "
        "was saved with (sha256 "
    )


def test_another_models_library_with_its_hash_is_refused(exp, saved):
    # Same signature, and the manifest's sha256 made the other library's: the
    # manifest still names the exp model's code.
    shutil.copyfile(saved / "neg" / "module.so", exp / "module.so")
    digest = hashlib.sha256((exp / "module.so").read_bytes()).hexdigest()
    edit_manifest(exp, lambda m: m.update(sha256=digest))
    output = load_elsewhere(exp)
    assert output.startswith(
        f"ValueError: {exp / 'manifest.json'} does not describe {exp / 'module.so'}: its code is "
    ), output


def set_argument(field, value):
    return lambda m: m["arguments"][0].update({field: value})


@pytest.mark.parametrize(
    "edit, error",
    [
        (lambda m: m.update(results=[]), 'its results is [], the library\'s [{"dtype"'),
        (set_argument("shape", [None, None]), "its arguments is [{"),
        (set_argument("dtype", "float64"), 'its arguments is [{"dtype": "float64"'),
        (lambda m: m.update(function="other"), 'its function is "other", the library\'s "main"'),
        (lambda m: m.update(pipeline="builtin.module()"), "its pipeline is"),
    ],
    ids=["no-results", "rank", "dtype", "function", "pipeline"],
)
def test_manifest_is_checked_against_the_library(exp, edit, error):
    edit_manifest(exp, edit)
    with pytest.raises(ValueError) as info:
        load(exp)
    message = str(info.value)
    assert message.startswith(f"{exp / 'manifest.json'} does not describe {exp / 'module.so'}: "), (
        message
    )
    assert error in message
    assert message.endswith("save or compile the module again")


OLD_FORMAT = {
    "format": 1,
    "lighthouse": LIGHTHOUSE_VERSION,
    "mlir": MLIR_VERSION,
    "function": "main",
    "pipeline": "builtin.module(lighthouse-cpu)",
    "arguments": [{"dtype": "float32", "shape": [None]}],
    "results": [{"dtype": "float32", "shape": [None]}],
}


@pytest.mark.parametrize(
    "edit, error",
    [
        (lambda m: [m.pop("pipeline"), m.pop("sha256")], "no pipeline, sha256"),
        (lambda m: m.update(extra=1), "unknown fields extra"),
        (lambda m: m.update(function=3), "function must be a string, got 3"),
        (lambda m: m.update(results={}), "results must be an array, got {}"),
        (lambda m: m.update(sha256="00"), "sha256 must be a sha256, 64 hexadecimal digits"),
        (
            set_argument("dtype", "float8_e8m0fnu"),
            'arguments[0]: dtype "float8_e8m0fnu" is none of bfloat16, bool, ',
        ),
        (
            set_argument("dtype", "uint128"),
            'arguments[0]: dtype "uint128" is none of bfloat16, bool, float16, float32, float64, '
            "float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, int16, int32, int4, "
            "int64, int8, uint16, uint32, uint4, uint64, uint8;",
        ),
        (set_argument("shape", [-1]), "arguments[0]: shape must be a list of sizes"),
        (set_argument("shape", [True]), "arguments[0]: shape must be a list of sizes"),
        (
            lambda m: m["results"].append(4),
            "results[1] must have a dtype and a shape (a scalar's also scalar, and maybe value), got 4",
        ),
    ],
    ids=[
        "missing",
        "unknown",
        "string",
        "array",
        "hash",
        "dtype",
        "dtype-unsigned",
        "negative-size",
        "bool-size",
        "not-a-tensor",
    ],
)
def test_bad_manifest_fields_are_named(exp, edit, error):
    edit_manifest(exp, edit)
    with pytest.raises(ValueError) as info:
        load(exp)
    message = str(info.value)
    assert message.startswith(f"{exp / 'manifest.json'}: {error}"), message
    assert message.endswith("save or compile the module again")


@pytest.mark.parametrize(
    "text, error",
    [
        ('{"format": 2, "lighthouse": ', "manifest.json: not valid JSON (Expecting value"),
        (b"\xff\xfe", "manifest.json: not valid JSON ("),
        ("[]", "manifest.json: expected a JSON object, got []"),
        (
            json.dumps(OLD_FORMAT),
            f"manifest.json: the module was saved by lighthouse {LIGHTHOUSE_VERSION} on MLIR "
            f"{MLIR_VERSION} (format 1); this is lighthouse {LIGHTHOUSE_VERSION} on MLIR "
            f"{MLIR_VERSION} (format 4): compile it again",
        ),
    ],
    ids=["truncated", "not-text", "not-an-object", "old-format"],
)
def test_unreadable_or_old_manifest_is_named(exp, text, error):
    manifest = exp / "manifest.json"
    if isinstance(text, bytes):
        manifest.write_bytes(text)
    else:
        manifest.write_text(text)
    with pytest.raises(ValueError) as info:
        load(exp)
    assert str(info.value).startswith(str(exp / error))


def test_versions_are_checked(exp):
    edit_manifest(exp, lambda m: m.update(format=1, mlir="0.1"))
    with pytest.raises(
        ValueError,
        match=r"manifest.json: the module was saved by lighthouse .* on MLIR 0.1 \(format 1\); "
        r"this is lighthouse .* on MLIR .* \(format 4\): compile it again",
    ):
        load(exp)


def test_library_of_another_program_is_refused(exp, tmp_path):
    source = tmp_path / "other.c"
    source.write_text("int main_(void) { return 0; }\n")
    link_shared_library([str(source)], str(exp / "module.so"))
    digest = hashlib.sha256((exp / "module.so").read_bytes()).hexdigest()
    edit_manifest(exp, lambda m: m.update(sha256=digest))
    with pytest.raises(ValueError) as info:
        load(exp)
    assert str(info.value).startswith(
        f"{exp / 'module.so'} carries no readable lighthouse manifest ("
    )


def test_missing_library_is_named(exp):
    os.remove(exp / "module.so")
    with pytest.raises(ValueError, match="module.so cannot be read: No such file or directory"):
        load(exp)


def test_loaded_module_saved_again(exp, tmp_path):
    load(exp).save(tmp_path / "again")
    assert sorted(os.listdir(tmp_path / "again")) == ["manifest.json", "module.so"]
    assert (tmp_path / "again" / "manifest.json").read_text() == (exp / "manifest.json").read_text()
    np.testing.assert_allclose(load(tmp_path / "again")(np.zeros(2, np.float32)), [1, 1])


def test_module_saved_over_a_loaded_one(exp):
    # The running library keeps running, and loading the folder again in the
    # same process gives the new one, not the one the dynamic loader holds.
    x = np.ones(2, np.float32)
    before = load(exp)
    compile_module(NEG).save(exp)
    np.testing.assert_allclose(before(x), np.exp(x))
    np.testing.assert_array_equal(load(exp)(x), -x)
    compile_module(EXP).save(exp)
    np.testing.assert_allclose(load(exp)(x), np.exp(x))


CACHED = """
import sys, numpy as np
from lighthouse.compiler import compile_module
try:
    compiled = compile_module({source!r}, cache_dir=sys.argv[1])
except ValueError as error:
    print("ValueError:", error)
else:
    print(sorted(compiled.timings), compiled(np.zeros(2, np.float32)))
"""


def test_damaged_cache_entry_is_named(tmp_path):
    compile_module(EXP, cache_dir=tmp_path)
    (entry,) = tmp_path.iterdir()
    flip_a_byte(entry / "module.so", None)
    result = subprocess.run(
        [sys.executable, "-c", CACHED.format(source=EXP), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith(
        f"ValueError: {entry / 'module.so'} is not the library {entry / 'manifest.json'} "
    ), result.stdout
