"""The PEP 517 build backend `lighthouse.build_backend` that dialect projects
name in their pyproject.toml; it lives in `lighthouse.sdk.build_backend`."""

from .sdk import build_backend as _backend
from .sdk.build_backend import *  # noqa: F403 - the PEP 517 hooks

__all__ = _backend.__all__
