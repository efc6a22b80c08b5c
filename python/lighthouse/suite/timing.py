"""Interleaved timing: the compilers of a case take turns, on the same inputs."""

import statistics
import time
from typing import Callable, Dict, Optional

__all__ = ["TURN_SECONDS", "interleaved_seconds", "quiesce"]

#: A turn's timed calls last at least this long: calls of a few microseconds
#: are repeated within a turn so that the clock's resolution and the pause
#: between turns do not dominate them, and calls of a few hundred run past
#: the first milliseconds after the pause, in which a virtual machine's
#: cores come back from idle (a 2-thread batch norm of 0.07 ms a call took
#: 0.2 ms a call for 1-4 ms after 5 ms of sleep, whichever its runtime's
#: spin time).
TURN_SECONDS = 0.02
#: At most this many calls in one turn.
MAX_CALLS_PER_TURN = 500
#: Between turns: `quiesce` sleeps this long, again while the thread pool of
#: the compiler before (OpenMP, onnxruntime's, IREE's) still spins.
PAUSE_SECONDS = 0.005
#: The longest `quiesce` waits: a pool spinning longer than this (a user's
#: KMP_BLOCKTIME=200, say) is one the next turn competes with.
QUIESCE_SECONDS = 0.1


def quiesce(interval: float = PAUSE_SECONDS, limit: float = QUIESCE_SECONDS) -> float:
    """Sleeps `interval` seconds, again until one passes in which the
    process's threads used under a fifth of it in CPU time, or `limit`
    seconds passed; returns the seconds slept.

    A thread pool spins after its work for a time of its own: PyTorch's
    libgomp takes 8-10 ms of CPU after each parallel region on an AMD EPYC
    (300,000 spins of PAUSE), longer than a fixed pause of 5 ms, and a turn
    started while it spins shares the cores with it (a 2-thread batch norm
    ran 2-3x slower right after eager PyTorch's turn). Other threads' CPU
    time advances by scheduler ticks (4 ms at 250 Hz), which an interval of
    5 ms or more catches.
    """
    start = time.perf_counter()
    while True:
        cpu = time.process_time()
        time.sleep(interval)
        quiet = time.process_time() - cpu < interval / 5
        if quiet or time.perf_counter() - start >= limit:
            return time.perf_counter() - start


def interleaved_seconds(
    functions: Dict[str, Callable[[], object]],
    rounds: int,
    budget: float,
    before_turn: Optional[Callable[[str], None]] = None,
    calls: Optional[int] = None,
    pause: float = PAUSE_SECONDS,
) -> Dict[str, dict]:
    """Times each function in rounds, the functions taking turns (the order
    reversed every other round, as a turn can warm the cache for the next).

    Stops after `rounds` rounds, or after the round that passes `budget`
    seconds (at least 3 rounds). A turn is a call that is not timed, then
    `calls` timed calls, or as many as last `TURN_SECONDS` by calls made
    beforehand: the times of calls in a row, as a model called in a loop
    runs. `pause` seconds separate turns, longer while the turn before's
    threads spin (`quiesce`).
    Returns per function the median seconds of a single call
    (`median`), the relative spread of the calls (interquartile range over
    median: the noise `lh-suite compare` allows for) and the number of calls.
    """
    calls_per_turn = {}
    for name, function in functions.items():
        if before_turn:
            before_turn(name)
        # The faster of two calls after one: a first call can take many times
        # longer (a 0.07 ms call took 7 ms), which left turns of 3 calls.
        function()
        once = []
        for _ in range(2):
            start = time.perf_counter()
            function()
            once.append(time.perf_counter() - start)
        calls_per_turn[name] = calls or max(
            1, min(MAX_CALLS_PER_TURN, int(TURN_SECONDS / max(min(once), 1e-9)))
        )
    samples = {name: [] for name in functions}
    deadline = time.perf_counter() + budget
    for round_index in range(rounds):
        names = list(functions)
        if round_index % 2:
            names.reverse()
        for name in names:
            if before_turn:
                before_turn(name)
            quiesce(pause)
            function = functions[name]
            # Wakes the compiler's threads, which slept through the pause
            # (from 0.1 ms to several on a virtual machine's idle cores), and
            # brings its code and data back into the caches.
            function()
            for _ in range(calls_per_turn[name]):
                start = time.perf_counter()
                function()
                samples[name].append(time.perf_counter() - start)
        if round_index >= 2 and time.perf_counter() > deadline:
            break
    result = {}
    for name, values in samples.items():
        median = statistics.median(values)
        if len(values) >= 4:
            quartiles = statistics.quantiles(values, n=4)
            spread = (quartiles[2] - quartiles[0]) / median
        else:
            spread = None
        result[name] = {"median": median, "spread": spread, "calls": len(values)}
    return result
