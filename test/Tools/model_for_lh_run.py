"""A model file for lh-run: it defines `model` and `example_inputs`."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import models  # noqa: E402

model = models.seeded(models.MLP())
example_inputs = (torch.randn(3, 16, generator=torch.Generator().manual_seed(0)),)
