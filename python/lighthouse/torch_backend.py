"""lighthouse as a TorchDynamo backend: `torch.compile(model, backend="lighthouse")`.

Registered through the `torch_dynamo_backends` entry point group, so no import
is needed before `torch.compile`. Each graph Dynamo captures is exported and
compiled with `lighthouse.compile`'s default pipeline.
"""

from .compiler import compile as _compile


def backend(graph_module, example_inputs):
    """Compiles a captured FX graph; returns a callable with its calling convention."""
    compiled = _compile(graph_module, tuple(example_inputs))

    def run(*args):
        outputs = compiled(*args)
        # Dynamo's graphs return a tuple of tensors.
        return outputs if isinstance(outputs, tuple) else (outputs,)

    run.lighthouse_module = compiled
    return run
