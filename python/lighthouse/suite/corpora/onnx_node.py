"""ONNX's backend node tests, generated from the installed onnx package's case
scripts (the wheel ships the generators, not the data) into a cache folder, in
the layout of ONNX's own test data: `<test>/model.onnx` and
`<test>/test_data_set_0/{input,output}_<i>.pb`.

Each test is compared as ONNX's backend test runner compares: its own
tolerances (rtol 1e-3, atol 1e-7 for every node test today), dtypes and
shapes equal, non-floats exact.
"""

import functools
import json
import os
import shutil
import tempfile
import warnings
from typing import Dict

from ..case import Case, CaseInfo
from ..plugins import Corpus, Option
from . import cache_dir

__all__ = ["EXOTIC_TYPES", "OnnxNodeTests", "generate"]

#: Element types beyond float, integer and bool tensors: tests using any of
#: them are tagged `dtypes: exotic`, so that reports can show the rest apart.
EXOTIC_TYPES = ("BFLOAT16", "FLOAT8", "INT4", "UINT4", "INT2", "UINT2", "FLOAT4", "STRING")
_INDEX = "cases.json"


def _type_class(value_infos) -> str:
    from onnx import TensorProto

    for info in value_infos:
        kind = info.type.WhichOneof("value")
        if kind != "tensor_type":
            return "exotic"
        name = TensorProto.DataType.Name(info.type.tensor_type.elem_type)
        if name.startswith(EXOTIC_TYPES):
            return "exotic"
    return "standard"


def _serialized(value, value_info) -> bytes:
    from onnx import TensorProto, numpy_helper

    kind = value_info.type.WhichOneof("value")
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    if kind == "sequence_type":
        return numpy_helper.from_list(value, value_info.name).SerializeToString()
    if kind == "optional_type":
        return numpy_helper.from_optional(value, value_info.name).SerializeToString()
    if kind == "map_type":
        return numpy_helper.from_dict(value, value_info.name).SerializeToString()
    return numpy_helper.from_array(value, value_info.name).SerializeToString()


def _parsed(data: bytes, value_info):
    import onnx
    from onnx import numpy_helper

    kind = value_info.type.WhichOneof("value")
    if kind == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return numpy_helper.to_list(proto)
    if kind == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        return numpy_helper.to_optional(proto)
    if kind == "map_type":
        proto = onnx.MapProto()
        proto.ParseFromString(data)
        return numpy_helper.to_dict(proto)
    proto = onnx.TensorProto()
    proto.ParseFromString(data)
    return numpy_helper.to_array(proto)


def generate(folder: str) -> list:
    """Writes every node test the onnx package's case scripts define to
    `folder`; returns the index of (name, tags)."""
    import onnx.backend.test.case.node as node_cases

    with warnings.catch_warnings():
        # The case scripts compute their expected outputs with numpy, some
        # of them on purpose out of range (casts to narrow types, log(0)).
        warnings.simplefilter("ignore")
        tests = node_cases.collect_testcases(None)
    main_op = {}
    for test in tests:
        nodes = test.model.graph.node
        main_op[test.name] = nodes[0].op_type if len(nodes) == 1 else None
    index = []
    for test in tests:
        graph = test.model.graph
        # An expanded test (its op as the function ONNX defines it) is tagged
        # with the op of its unexpanded twin.
        base = test.name.split("_expanded")[0]
        op = main_op.get(test.name) or main_op.get(base) or graph.node[-1].op_type
        test_dir = os.path.join(folder, test.name)
        data_dir = os.path.join(test_dir, "test_data_set_0")
        os.makedirs(data_dir)
        with open(os.path.join(test_dir, "model.onnx"), "wb") as f:
            f.write(test.model.SerializeToString())
        inputs, outputs = test.data_sets[0]
        for kind, values, infos in (
            ("input", inputs, graph.input),
            ("output", outputs, graph.output),
        ):
            for position, value in enumerate(values):
                with open(os.path.join(data_dir, f"{kind}_{position}.pb"), "wb") as f:
                    f.write(_serialized(value, infos[position]))
        index.append(
            {
                "name": test.name,
                "op": op,
                "dtypes": _type_class(list(graph.input) + list(graph.output)),
                "rtol": test.rtol,
                "atol": test.atol,
            }
        )
    with open(os.path.join(folder, _INDEX), "w") as f:
        json.dump(index, f, indent=0)
    return index


class OnnxNodeTests(Corpus):
    description = (
        "ONNX's backend node tests, generated from the installed onnx "
        "package's case scripts (1,884 with onnx 1.23)"
    )
    options = {
        "cache": Option(
            None,
            "the folder to generate the tests into (default: "
            "~/.cache/lighthouse/suite/onnx-node-<onnx version>)",
        )
    }

    def folder(self) -> str:
        import onnx

        return self.options["cache"] or cache_dir(f"onnx-node-{onnx.__version__}")

    def prepare(self, log) -> None:
        folder = self.folder()
        if os.path.isfile(os.path.join(folder, _INDEX)):
            return
        log(f"onnx-node: generating ONNX's node tests into {folder}")
        os.makedirs(os.path.dirname(folder), exist_ok=True)
        scratch = tempfile.mkdtemp(prefix=".onnx-node-", dir=os.path.dirname(folder))
        try:
            index = generate(scratch)
            shutil.rmtree(folder, ignore_errors=True)
            os.rename(scratch, folder)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        log(f"onnx-node: {len(index)} tests")

    @functools.cached_property
    def _index(self) -> Dict[str, dict]:
        """The generated tests by name, read once (a worker loads many)."""
        with open(os.path.join(self.folder(), _INDEX)) as f:
            return {entry["name"]: entry for entry in json.load(f)}

    def cases(self):
        return [
            CaseInfo(entry["name"], op=entry["op"], dtypes=entry["dtypes"])
            for entry in self._index.values()
        ]

    def load(self, name: str) -> Case:
        import onnx

        entry = self._index[name]
        test_dir = os.path.join(self.folder(), name)
        with open(os.path.join(test_dir, "model.onnx"), "rb") as f:
            data = f.read()
        graph = onnx.load_from_string(data).graph
        data_dir = os.path.join(test_dir, "test_data_set_0")
        values = {}
        for kind, infos in (("input", graph.input), ("output", graph.output)):
            values[kind] = []
            for position, info in enumerate(infos):
                path = os.path.join(data_dir, f"{kind}_{position}.pb")
                if os.path.isfile(path):
                    with open(path, "rb") as f:
                        values[kind].append(_parsed(f.read(), info))
        return Case(
            name,
            values["input"],
            onnx=data,
            expected=values["output"],
            rtol=entry["rtol"],
            atol=entry["atol"],
            op=entry["op"],
            dtypes=entry["dtypes"],
        )
