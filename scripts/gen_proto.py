"""Generate the Python code of the public contract (proto/) into service/baloot/.

The generated package mirrors the proto package: ``baloot.v1`` holds the message modules
(``*_pb2.py``), the gRPC stubs (``*_pb2_grpc.py``, only for files that define a service) and
their type stubs (``.pyi``, written by mypy-protobuf so that the hand-written code type-checks).
The output is committed; ``--check`` regenerates into a temporary directory and fails when the
committed files differ, so stale stubs cannot land.

The generator versions are pinned in pyproject.toml (the ``gen`` extra): a different protoc or
mypy-protobuf writes different bytes, and the drift check would rightly fail.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
OUTPUT_ROOT = ROOT / "service"
GENERATED_PACKAGE = "baloot"
SERVICE_PATTERN = re.compile(r"^\s*service\s+\w+\s*\{", re.MULTILINE)

PACKAGE_DOCSTRINGS = {
    "baloot": "Generated code of the public contract in proto/baloot; do not edit.",
    "baloot/v1": "Generated code of the baloot.v1 contract; regenerate with `make gen`.",
    "baloot/internal": "Generated code of the service's private messages; do not edit.",
    "baloot/internal/v1": "The private state message sealed inside state tokens; not a contract.",
}


def proto_files() -> list[Path]:
    """Return every .proto file of the contract, relative to the proto root, sorted."""
    return sorted(path.relative_to(PROTO_ROOT) for path in PROTO_ROOT.rglob("*.proto"))


def _plugin(name: str) -> str:
    """Return the path of a protoc plugin installed next to this Python interpreter."""
    candidate = Path(sys.executable).parent / name
    found = str(candidate) if candidate.exists() else shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: install the gen extra (pip install -e '.[gen]')")
    return found


def _protoc(args: list[str]) -> None:
    command = [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_ROOT}", *args]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"protoc failed with exit code {result.returncode}")


def generate(out_dir: Path) -> None:
    """Write the generated package ``baloot`` into ``out_dir``."""
    protos = proto_files()
    if not protos:
        raise SystemExit(f"no .proto files under {PROTO_ROOT}")
    services = [p for p in protos if SERVICE_PATTERN.search((PROTO_ROOT / p).read_text())]
    _protoc(
        [
            f"--plugin=protoc-gen-mypy={_plugin('protoc-gen-mypy')}",
            f"--python_out={out_dir}",
            f"--mypy_out={out_dir}",
            *map(str, protos),
        ]
    )
    if services:
        _protoc(
            [
                f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
                f"--grpc_python_out={out_dir}",
                f"--mypy_grpc_out={out_dir}",
                *map(str, services),
            ]
        )
    for package, docstring in PACKAGE_DOCSTRINGS.items():
        package_dir = out_dir / package
        package_dir.mkdir(parents=True, exist_ok=True)
        (package_dir / "__init__.py").write_text(f'"""{docstring}"""\n')
    (out_dir / GENERATED_PACKAGE / "py.typed").write_text("")


def _tree(root: Path) -> set[str]:
    if not root.exists():
        return set()
    return {
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def check() -> int:
    """Regenerate into a temporary directory; return 1, saying why, if the code is stale."""
    committed = OUTPUT_ROOT / GENERATED_PACKAGE
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        fresh = Path(tmp) / GENERATED_PACKAGE
        fresh_files, committed_files = _tree(fresh), _tree(committed)
        problems = [f"missing: {name}" for name in sorted(fresh_files - committed_files)]
        problems += [f"not generated: {name}" for name in sorted(committed_files - fresh_files)]
        problems += [
            f"stale: {name}"
            for name in sorted(fresh_files & committed_files)
            if not filecmp.cmp(fresh / name, committed / name, shallow=False)
        ]
    if problems:
        print(f"generated code in {committed.relative_to(ROOT)} is out of date:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        print("run `make gen` and commit the result", file=sys.stderr)
        return 1
    print(f"generated code in {committed.relative_to(ROOT)} is up to date")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Generate the code, or check it with ``--check``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed code is stale")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    target = OUTPUT_ROOT / GENERATED_PACKAGE
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(Path(tmp) / GENERATED_PACKAGE, target)
    print(f"generated {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
