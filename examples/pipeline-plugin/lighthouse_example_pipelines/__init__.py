"""A pipeline lighthouse finds by name: `lighthouse.compile(..., pipeline="fused-cpu")`.

It fuses chains of elementwise linalg ops into single loops nests before
handing over to lighthouse's own `lighthouse-cpu` pipeline.
"""

FUSED_CPU = (
    "builtin.module("
    "func.func(convert-elementwise-to-linalg,linalg-fuse-elementwise-ops,canonicalize,cse),"
    "lighthouse-cpu)"
)
