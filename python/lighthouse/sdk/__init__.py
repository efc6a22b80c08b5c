"""Building dialects against an installed lighthouse: the PEP 517 build
backend (`build_backend`, named `lighthouse.build_backend` in a dialect
project's pyproject.toml). MLIR's headers and tools come in the
lighthouse-sdk wheel (`pip install 'lighthouse[sdk]'`)."""
