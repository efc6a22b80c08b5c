"""The fingerprint of a PyTorch model that the compile cache finds it by
before torch.export runs: equal for the same model, different for anything
that changes what it computes, refused for what it cannot pin down."""

import copy
import threading

import pytest

torch = pytest.importorskip("torch")

from lighthouse.ingress.torch_fingerprint import fingerprint  # noqa: E402


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 4)
        self.register_buffer("shift", torch.ones(4), persistent=False)
        self.scale = 2.0
        self.settings = {"clamp": (0.0, 6.0)}

    def forward(self, x):
        low, high = self.settings["clamp"]
        return torch.clamp(self.linear(x) * self.scale + self.shift, low, high)


def model():
    torch.manual_seed(0)
    return Scaled().eval()


INPUTS = (torch.ones(2, 8),)


def changed(change):
    """The fingerprint of the model after `change(model)`."""
    altered = model()
    change(altered)
    return fingerprint(altered, INPUTS)


def test_same_model_same_fingerprint():
    assert fingerprint(model(), INPUTS) == fingerprint(copy.deepcopy(model()), INPUTS)
    assert len(fingerprint(model(), INPUTS)) == 64


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m.linear.weight.data.__setitem__((0, 0), 0.5),
        lambda m: m.shift.fill_(2.0),
        lambda m: setattr(m, "scale", 3.0),
        lambda m: m.settings.__setitem__("clamp", (0.0, 5.0)),
        lambda m: m.train(),
        lambda m: m.linear.register_forward_hook(lambda module, args, out: out * 2),
    ],
    ids=["weight", "buffer", "attribute", "nested attribute", "training", "hook"],
)
def test_what_changes_the_computation_changes_the_fingerprint(change):
    assert changed(change) not in (None, fingerprint(model(), INPUTS))


def test_inputs_and_dynamic_shapes_are_in_the_fingerprint():
    base = fingerprint(model(), INPUTS)
    assert fingerprint(model(), (torch.ones(3, 8),)) != base
    assert fingerprint(model(), (torch.ones(2, 8, dtype=torch.float64),)) != base
    # The values of tensors do not change what is exported.
    assert fingerprint(model(), (torch.zeros(2, 8),)) == base
    dynamic = {"x": {0: torch.export.Dim("batch")}}
    assert fingerprint(model(), INPUTS, dynamic_shapes=dynamic) != base


def test_what_cannot_be_pinned_down_is_refused():
    # State a C object keeps out of sight.
    assert changed(lambda m: setattr(m, "lock", threading.Lock())) is None
    # A class whose code is in no file.
    namespace = {"__name__": "defined_in_no_file"}
    exec("import torch\nclass Doubled(torch.nn.Module):\n    pass", namespace)
    assert fingerprint(namespace["Doubled"](), INPUTS) is None
    # Not a module.
    assert fingerprint(lambda x: x, INPUTS) is None
