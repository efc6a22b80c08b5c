"""Draws lighthouse's package as its layers and the imports between their
packages, as a Mermaid flowchart (GitHub renders it in Markdown):

    .venv/bin/python build_tools/package_graph.py > /tmp/graph.md

The layers are those of the import-linter contract in pyproject.toml, top
first; an arrow A --> B says that a module of A imports one of B, in any
function. `lint-imports` (build_tools/run_tests.sh) checks that every arrow
points down its layers and that no package's modules import in a circle;
this draws what it checks, for docs/design.md.
"""

import sys
import tomllib
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[1]


def layers() -> list:
    """The contract's layers, top first, each a list of its packages."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "layers":
            return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]
    raise SystemExit("pyproject.toml has no import-linter layers contract")


def imports_between(packages: list) -> set:
    """(importer, imported) pairs of `packages` whose modules import each other."""
    graph = grimp.build_graph("lighthouse")

    def owner(module: str):
        for package in packages:
            if module == package or module.startswith(package + "."):
                return package
        return None

    edges = set()
    for module in graph.modules:
        importer = owner(module)
        if importer is None:
            continue
        for imported_module in graph.find_modules_directly_imported_by(module):
            imported = owner(imported_module)
            if imported is not None and imported != importer:
                edges.add((importer, imported))
    return edges


def mermaid(stack: list, edges: set) -> str:
    def node(package: str) -> str:
        return package.removeprefix("lighthouse.").lstrip("_") or package

    lines = ["flowchart TD"]
    for depth, layer in enumerate(stack):
        lines.append(f'  subgraph layer{depth}[" "]')
        lines.extend(f'    {node(p)}["{p.removeprefix("lighthouse.")}"]' for p in layer)
        lines.append("  end")
    lines.extend(f"  {node(a)} --> {node(b)}" for a, b in sorted(edges))
    return "\n".join(lines)


def main() -> None:
    stack = layers()
    edges = imports_between([package for layer in stack for package in layer])
    print("```mermaid")
    print(mermaid(stack, edges))
    print("```")
    rank = {package: depth for depth, layer in enumerate(stack) for package in layer}
    upward = [(a, b) for a, b in edges if rank[b] <= rank[a]]
    if upward:
        sys.exit(f"imports that do not point down the layers: {sorted(upward)}")


if __name__ == "__main__":
    main()
