"""The project's dialects: `from tally_example.dialects import tally`."""
