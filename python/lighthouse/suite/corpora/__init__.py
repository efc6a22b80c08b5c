"""The corpora lighthouse's test bench comes with: ONNX's backend node tests,
PyTorch's OpInfo samples, realistic models, single operators at real sizes,
and KernelBench's problems."""

import os


def cache_dir(*parts: str) -> str:
    """A folder for generated corpus data: `$LIGHTHOUSE_SUITE_CACHE`, else
    `~/.cache/lighthouse/suite` (under `$XDG_CACHE_HOME` when set)."""
    root = os.environ.get("LIGHTHOUSE_SUITE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lighthouse", "suite"
    )
    return os.path.join(root, *parts)
