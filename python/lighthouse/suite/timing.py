"""Interleaved timing: the compilers of a case take turns, on the same inputs."""

import statistics
import time
from typing import Callable, Dict, Optional

__all__ = ["TURN_SECONDS", "interleaved_seconds"]

#: A turn lasts at least this long: calls of a few microseconds are repeated
#: within a turn so that the clock's resolution and the pause between turns
#: do not dominate them.
TURN_SECONDS = 0.002
#: At most this many calls in one turn.
MAX_CALLS_PER_TURN = 50
#: Between turns, so that the thread pool of the compiler before (OpenMP,
#: onnxruntime's, IREE's) stops spinning before the next one starts.
PAUSE_SECONDS = 0.005


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
    seconds (at least 3 rounds). A turn is `calls` calls, or as many as last
    `TURN_SECONDS` by a call made beforehand. `pause` seconds separate turns.
    Returns per function the median seconds of a single call
    (`median`), the relative spread of the calls (interquartile range over
    median: the noise `lh-suite compare` allows for) and the number of calls.
    """
    calls_per_turn = {}
    for name, function in functions.items():
        if before_turn:
            before_turn(name)
        start = time.perf_counter()
        function()
        once = max(time.perf_counter() - start, 1e-9)
        calls_per_turn[name] = calls or max(1, min(MAX_CALLS_PER_TURN, int(TURN_SECONDS / once)))
    samples = {name: [] for name in functions}
    deadline = time.perf_counter() + budget
    for round_index in range(rounds):
        names = list(functions)
        if round_index % 2:
            names.reverse()
        for name in names:
            if before_turn:
                before_turn(name)
            time.sleep(pause)
            function, turn = functions[name], calls_per_turn[name]
            for call in range(turn):
                start = time.perf_counter()
                function()
                elapsed = time.perf_counter() - start
                # The first call of a turn of several wakes its thread pool.
                if call or turn == 1:
                    samples[name].append(elapsed)
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
