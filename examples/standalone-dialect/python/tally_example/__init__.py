"""The tally dialect (counters that wrap around), built against an installed lighthouse."""
