"""f32 transcendental functions in compiled code: lighthouse computes tanh,
erf, exp, expm1, log, log1p and log2 with polynomials (the
lighthouse-approximate-math pass) rather than a libm call per element; they
must keep float32's accuracy over the whole range, special values included."""

import math

import numpy as np
import pytest

from lighthouse.compiler import compile_module

REFERENCES = {
    "tanh": np.tanh,
    "erf": np.vectorize(math.erf, otypes=[np.float64]),
    "exp": np.exp,
    "expm1": np.expm1,
    "log": np.log,
    "log1p": np.log1p,
    "log2": np.log2,
}


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(0)
    magnitudes = np.logspace(-45, 38, 2000)  # denormals to near the largest float
    return np.concatenate(
        [
            np.linspace(-100, 100, 20001),
            rng.standard_normal(10000) * 3,
            magnitudes,
            -magnitudes,
            [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, 88.7, 89.0, -103.0, -104.0],
        ]
    ).astype(np.float32)


def _elementwise(function: str, size: int) -> str:
    return f"""
func.func @main(%x: tensor<{size}xf32>) -> tensor<{size}xf32> {{
  %e = tensor.empty() : tensor<{size}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}}
      ins(%x : tensor<{size}xf32>) outs(%e : tensor<{size}xf32>) {{
  ^bb0(%v: f32, %o: f32):
    %y = math.{function} %v : f32
    linalg.yield %y : f32
  }} -> tensor<{size}xf32>
  return %r : tensor<{size}xf32>
}}
"""


@pytest.mark.parametrize("pipeline", ["loops", "default"])
@pytest.mark.parametrize("function", sorted(REFERENCES))
def test_transcendental_functions_keep_float32_accuracy(function, pipeline):
    x = _inputs()
    compiled = compile_module(_elementwise(function, x.size), pipeline=pipeline, dump_ir=True)
    assert f"@{function}f" not in compiled.ir["llvm"], "a libm call is left"
    got = compiled(x).astype(np.float64)
    with np.errstate(all="ignore"):
        expected = REFERENCES[function](x.astype(np.float64))
        rounded = expected.astype(np.float32)
    # NaN where the reference is NaN, the same infinities, and elsewhere
    # within 5 units in the last place of the float32 result (the
    # approximations' own error, measured at 4.7 for expm1 at most); results
    # below the smallest normal float (exp of -87.3 and less) within it: the
    # approximation of exp returns 0 for some of them (exp(-87.69) = 8e-39).
    np.testing.assert_array_equal(np.isnan(got), np.isnan(rounded))
    infinite = np.isinf(rounded)
    np.testing.assert_array_equal(got[infinite], rounded[infinite])
    finite = np.isfinite(rounded)
    tiny = np.finfo(np.float32).tiny
    ulps = np.spacing(np.abs(rounded[finite])).astype(np.float64)
    allowed = np.where(np.abs(rounded[finite]) < tiny, tiny, 5 * ulps)
    error = np.abs(got[finite] - expected[finite])
    worst = np.argmax(error / allowed)
    assert (error <= allowed).all(), (
        f"{function}({x[finite][worst]!r}) = {got[finite][worst]!r}, "
        f"expected {expected[finite][worst]!r}: {error[worst] / ulps[worst]:.1f} ulps"
    )
