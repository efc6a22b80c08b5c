"""Comparing a compiler's outputs with a case's expected ones."""

from typing import Optional, Sequence, Union

import numpy as np

__all__ = ["Comparison", "compare_outputs"]


class Comparison:
    """The outcome of comparing outputs: `ok`, what differs (`message`) and the
    largest absolute and relative differences of floating-point outputs."""

    def __init__(
        self,
        ok: bool,
        message: str = "",
        max_abs_error: Optional[float] = None,
        max_rel_error: Optional[float] = None,
    ):
        self.ok = ok
        self.message = message
        self.max_abs_error = max_abs_error
        self.max_rel_error = max_rel_error


# bfloat16's elements are 8 bits of precision: ONNX's backend test runner
# compares them within at least two of their ULPs, whatever the test's own
# rtol (1e-3 would take one ULP, 2^-8, for a difference).
BFLOAT16_RTOL = 2.0**-6


def _is_float(dtype: np.dtype) -> bool:
    return dtype.kind in "fc" or dtype.name in ("bfloat16",) or dtype.name.startswith("float")


def compare_outputs(
    actual: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    rtol: float,
    atol: Union[float, Sequence[float]],
) -> Comparison:
    """Compares as ONNX's backend tests do: the same number of outputs, each of
    the same dtype and shape; floating-point elements within
    `atol + rtol * |expected|` (bfloat16 ones within rtol `BFLOAT16_RTOL` at
    least) with NaNs in the same places, others equal. `atol` may be given
    per output."""
    atols = [atol] * len(expected) if isinstance(atol, (int, float)) else list(atol)
    if len(actual) != len(expected):
        return Comparison(False, f"{len(actual)} outputs, expected {len(expected)}")
    max_abs = max_rel = None
    for index, (got, want, atol) in enumerate(zip(actual, expected, atols)):
        got, want = np.asarray(got), np.asarray(want)
        where = f"output {index}"
        if got.dtype != want.dtype:
            return Comparison(False, f"{where}: dtype {got.dtype}, expected {want.dtype}")
        if got.shape != want.shape:
            return Comparison(False, f"{where}: shape {got.shape}, expected {want.shape}")
        if got.size == 0:
            continue
        if not _is_float(want.dtype):
            if not np.array_equal(got, want):
                differing = int(np.count_nonzero(got != want))
                return Comparison(False, f"{where}: {differing} of {want.size} elements differ")
            continue
        output_rtol = max(rtol, BFLOAT16_RTOL) if want.dtype.name == "bfloat16" else rtol
        got64 = got.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
        want64 = want.astype(got64.dtype)
        got_nan, want_nan = np.isnan(got64), np.isnan(want64)
        if not np.array_equal(got_nan, want_nan):
            return Comparison(
                False,
                f"{where}: NaN at {int(np.count_nonzero(got_nan))} "
                f"elements, expected {int(np.count_nonzero(want_nan))}",
            )
        finite = ~want_nan
        got_f, want_f = got64[finite], want64[finite]
        same_infinity = np.isinf(want_f) & (got_f == want_f)
        error = np.where(same_infinity, 0.0, np.abs(got_f - want_f))
        magnitude = np.abs(want_f)
        relative = np.where(magnitude > 0, error / np.where(magnitude > 0, magnitude, 1), 0.0)
        if error.size:
            case_abs = float(np.nanmax(error))
            case_rel = float(np.nanmax(relative))
            max_abs = case_abs if max_abs is None else max(max_abs, case_abs)
            max_rel = case_rel if max_rel is None else max(max_rel, case_rel)
        outside = ~(error <= atol + output_rtol * magnitude)
        if np.any(outside):
            return Comparison(
                False,
                f"{where}: {int(np.count_nonzero(outside))} of {want.size} elements "
                f"outside rtol {output_rtol:g}, atol {atol:g} (max abs error {max_abs:.3g})",
                max_abs,
                max_rel,
            )
    return Comparison(True, "", max_abs, max_rel)
