"""Prints an ONNX model as torch-onnx IR, as torch-mlir's
`python -m torch_mlir.tools.import_onnx` does, with the same options:

    python -m lighthouse.extras.tools.import_onnx model.onnx -o model.mlir

The model is loaded, checked and its shapes inferred by
`lighthouse.ingress.onnx.load` (through files for a model over protobuf's
2 GB), and imported as it is by torch-mlir's importer in a lighthouse
context (`lighthouse.ingress.onnx.import_loaded`): every node a
`torch.operator "onnx.<Op>"`, in the generic op form of lighthouse's torch
stand-in. `main(parse_arguments([...]))` runs it from Python and raises
lighthouse's errors; the command prints them and exits with status 1.
"""

import argparse
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from ....errors import IngressError
from ....ingress import onnx as onnx_ingress
from ... import onnx_importer

import onnx


def load_onnx_model(args: argparse.Namespace) -> "onnx.ModelProto":
    """The model `args` name, checked and its shapes inferred."""
    model = args.input_file
    if args.clear_domain:
        model = onnx.load(os.fspath(model), load_external_data=False)
        for node in model.graph.node:
            node.ClearField("domain")
    return onnx_ingress.load(
        model,
        data_dir=args.data_dir or Path(args.input_file).resolve().parent,
        opset_version=args.opset_version,
        data_prop=args.data_prop,
        temp_dir=args.temp_dir or Path(args.input_file).resolve().parent,
        keep_temps=args.keep_temps,
    )


def main(args: argparse.Namespace) -> None:
    """Imports the model `args` name and writes its IR where they say."""
    config = onnx_importer.Config()
    if args.disable_function_expansion_allowlist:
        config.function_expansion_allowlists_by_domain = None
    module = onnx_ingress.import_loaded(
        load_onnx_model(args), config=config, verify=not args.no_verify
    )
    text = module.operation.get_asm(assume_verified=not args.no_verify)
    if args.output_file and args.output_file != "-":
        Path(args.output_file).write_text(text + "\n")
    else:
        print(text)


def parse_arguments(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m lighthouse.extras.tools.import_onnx",
        description="Import an ONNX model as torch-onnx IR.",
    )
    parser.add_argument("input_file", type=Path, help="the ONNX model")
    parser.add_argument("-o", dest="output_file", help="where to write the IR ('-': stdout)")
    parser.add_argument(
        "--no-verify", action="store_true", help="do not verify the IR before printing it"
    )
    parser.add_argument(
        "--data-prop",
        default=True,
        action=argparse.BooleanOptionalAction,
        help="propagate constant values in ONNX's shape inference",
    )
    parser.add_argument(
        "--clear-domain",
        default=False,
        action=argparse.BooleanOptionalAction,
        help="clear the domain of each node of the graph before shape inference",
    )
    parser.add_argument(
        "--keep-temps",
        action="store_true",
        help="keep the files written to check a model over 2 GB",
    )
    parser.add_argument(
        "--temp-dir",
        type=Path,
        help="an existing folder for those files (default: the model's folder)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="the folder the locations of the model's external data are relative to "
        "(default: the model's folder)",
    )
    parser.add_argument(
        "--opset-version", type=int, help="convert the model to this opset before import"
    )
    parser.add_argument(
        "--disable-function-expansion-allowlist",
        action="store_true",
        help="expand every op ONNX defines as a function, not only the importer's allowlist",
    )
    return parser.parse_args(argv)


def _cli_main() -> int:
    args = parse_arguments()
    try:
        main(args)
    except (IngressError, ValueError, FileNotFoundError) as error:
        print(f"import_onnx: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_cli_main())
