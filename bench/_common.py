"""What the benchmark scripts share: the machine's description and timing."""

import os
import platform
import sys
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test"))


def cpu_flags() -> set:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_mhz() -> float:
    for path in ("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",):
        try:
            return int(Path(path).read_text()) / 1000
        except (OSError, ValueError):
            pass
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("cpu MHz"):
            return float(line.split(":", 1)[1])
    return 0.0


def peak_gflops() -> tuple:
    """f32 peak from vector width, 2 FMA units per core, core count and clock."""
    flags = cpu_flags()
    lanes = 16 if "avx512f" in flags else 8 if "avx2" in flags else 4
    fma_units = 2 if "fma" in flags else 1
    cores = os.cpu_count() or 1
    ghz = cpu_mhz() / 1000
    # An FMA is two flops.
    return (
        cores * ghz * fma_units * lanes * 2,
        f"{cores} cores x {ghz:.2f} GHz x {fma_units} FMA x {lanes} f32 lanes x 2",
    )


def describe_machine() -> str:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    flags = cpu_flags()
    vector = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE"
    peak, formula = peak_gflops()
    return (
        f"machine: {model}, {os.cpu_count()} cores, {vector}, "
        f"{cpu_mhz():.0f} MHz; f32 peak {peak:.1f} GFLOPS ({formula})"
    )


def interleaved_seconds(
    functions: dict,
    rounds: int,
    calls: Optional[int] = None,
    pause: float = 0.005,
    budget: float = 30.0,
) -> dict:
    """Median seconds per call of each function, measured side by side:
    the functions taking turns, as lh-suite times (`lighthouse.suite.timing`,
    which says why). A turn is `calls` calls, by default as many as last
    20 ms: on threads, a turn of a few short calls runs while the cores come
    back from the pause before it (a 2-thread 1x1 convolution of 32 us timed
    107 us a call in turns of 5 calls)."""
    from lighthouse.suite.timing import interleaved_seconds as measure

    measured = measure(functions, rounds, budget, calls=calls, pause=pause)
    return {name: values["median"] for name, values in measured.items()}
