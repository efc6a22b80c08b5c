"""An example project extending lighthouse with its own dialect."""
