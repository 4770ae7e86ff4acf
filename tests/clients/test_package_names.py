"""The generated package names are part of the contract (CHANGELOG.md, docs/clients.md): every
public proto file sets the same language options, and no generation template overrides them.

A client's imports (``org.balootengine.v1.View``, ``balootv1``, ``Baloot.V1``…) depend on these
names; moving one breaks every client of that language, so a change here is a change of the
major version and needs a CHANGELOG.md entry with its migration note.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from google.protobuf import descriptor_pb2

from baloot.v1 import (
    analysis_pb2,
    engine_service_pb2,
    errors_pb2,
    records_pb2,
    rules_pb2,
    types_pb2,
)

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto" / "baloot" / "v1"

GO_IMPORT = "github.com/baloot-engine/baloot-engine/clients/go/gen/baloot/v1"
GO_PACKAGE = f"{GO_IMPORT};balootv1"
# The options every public file sets, with the same value.
SHARED_OPTIONS = {
    "go_package": GO_PACKAGE,
    "java_package": "org.balootengine.v1",
    "java_multiple_files": True,
    "csharp_namespace": "Baloot.V1",
    "objc_class_prefix": "BLT",
    "php_namespace": "Baloot\\V1",
    "ruby_package": "Baloot::V1",
    "swift_prefix": "Baloot_V1_",
}
# java_outer_classname, per file: the class that holds the file's descriptor.
OUTER_CLASSES = {
    "baloot/v1/analysis.proto": "AnalysisProto",
    "baloot/v1/engine_service.proto": "EngineServiceProto",
    "baloot/v1/errors.proto": "ErrorsProto",
    "baloot/v1/records.proto": "RecordsProto",
    "baloot/v1/rules.proto": "RulesProto",
    "baloot/v1/types.proto": "TypesProto",
}
MODULES = (analysis_pb2, engine_service_pb2, errors_pb2, records_pb2, rules_pb2, types_pb2)

# Each template: its plugins (the language's generators) and where each writes.
TEMPLATES = {
    "clients/go/buf.gen.yaml": [
        ("protoc-gen-go", "gen", "paths=source_relative"),
        ("protoc-gen-go-grpc", "gen", "paths=source_relative"),
    ],
    "clients/java/buf.gen.yaml": [
        ("java", "build/generated", None),
        ("grpc_java_plugin", "build/generated", None),
    ],
    "clients/typescript/buf.gen.yaml": [
        ("protoc-gen-es", "src/gen", ["target=ts", "import_extension=js"])
    ],
    "clients/templates/buf.gen.csharp.yaml": [
        ("csharp", "gen/csharp", None),
        ("grpc_csharp_plugin", "gen/csharp", ["no_server"]),
    ],
    "clients/templates/buf.gen.dart.yaml": [("protoc-gen-dart", "gen/dart", ["grpc"])],
    "clients/templates/buf.gen.kotlin.yaml": [
        ("java", "gen/kotlin/java", None),
        ("kotlin", "gen/kotlin/kotlin", None),
        ("protoc-gen-grpc-java", "gen/kotlin/java", None),
        ("protoc-gen-grpc-kotlin", "gen/kotlin/kotlin", None),
    ],
    "clients/templates/buf.gen.swift.yaml": [
        ("protoc-gen-swift", "gen/swift", ["Visibility=Public"]),
        (
            "protoc-gen-grpc-swift",
            "gen/swift",
            ["Visibility=Public", "Client=true", "Server=false"],
        ),
    ],
}
# The one template that renames packages: googleapis' ErrorInfo for Debian's old jar, under
# the name Maven's proto-google-common-protos gives it.
ERRORINFO_TEMPLATE = "clients/java/buf.gen.errorinfo.yaml"


def _file_options(module: Any) -> tuple[str, descriptor_pb2.FileOptions]:
    proto = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(proto)
    return proto.name, proto.options


def test_every_public_proto_file_is_pinned() -> None:
    on_disk = {f"baloot/v1/{path.name}" for path in PROTO.glob("*.proto")}
    assert on_disk == set(OUTER_CLASSES), "a new proto file needs its package options pinned here"
    assert {module.DESCRIPTOR.name for module in MODULES} == on_disk


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.DESCRIPTOR.name)
def test_a_proto_file_sets_the_pinned_package_names(module: Any) -> None:
    name, options = _file_options(module)
    assert module.DESCRIPTOR.package == "baloot.v1"
    for option, value in SHARED_OPTIONS.items():
        assert options.HasField(option), f"{name} does not set {option}"
        assert getattr(options, option) == value, f"{name}: {option}"
    assert options.java_outer_classname == OUTER_CLASSES[name]


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.DESCRIPTOR.name)
def test_the_proto_source_says_what_the_generated_code_says(module: Any) -> None:
    source = (ROOT / "proto" / module.DESCRIPTOR.name).read_text()
    declared = dict(re.findall(r"^option (\w+) = (.+);$", source, re.MULTILINE))
    expected = {**SHARED_OPTIONS, "java_outer_classname": OUTER_CLASSES[module.DESCRIPTOR.name]}
    assert declared == {
        option: str(value).lower()
        if isinstance(value, bool)
        else f'"{value}"'.replace("\\", "\\\\")
        for option, value in expected.items()
    }


def _plugins(template: dict[str, Any]) -> list[tuple[str, str, object]]:
    return [
        (
            plugin.get("local") or plugin.get("protoc_builtin") or plugin.get("remote"),
            plugin["out"],
            plugin.get("opt"),
        )
        for plugin in template["plugins"]
    ]


@pytest.mark.parametrize("path", sorted(TEMPLATES))
def test_a_template_keeps_the_files_package_names(path: str) -> None:
    template = yaml.safe_load((ROOT / path).read_text())
    assert template["version"] == "v2"
    assert "managed" not in template, f"{path}: managed mode would rename the generated packages"
    assert _plugins(template) == TEMPLATES[path]
    for plugin in template["plugins"]:
        for option in plugin.get("opt") or []:
            assert not str(option).startswith("M"), f"{path}: an M option renames a Go package"
    inputs = template["inputs"]
    assert any(str(entry.get("paths", [""])[0]).endswith("proto/baloot/v1") for entry in inputs)
    assert not any("internal" in str(entry) for entry in inputs)


def test_every_template_is_pinned() -> None:
    found = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "clients").glob("**/buf.gen*.yaml")
        if "node_modules" not in path.parts
    }
    assert found == {*TEMPLATES, ERRORINFO_TEMPLATE}


def test_the_errorinfo_template_renames_only_googleapis_error_details() -> None:
    template = yaml.safe_load((ROOT / ERRORINFO_TEMPLATE).read_text())
    overrides = {entry["file_option"]: entry["value"] for entry in template["managed"]["override"]}
    assert overrides == {
        "java_package": "com.google.rpc",
        "java_multiple_files": True,
        "java_outer_classname": "ErrorDetailsProto",
    }
    assert template["inputs"] == [{"directory": "../typescript/proto"}]


def test_the_committed_clients_use_the_pinned_names() -> None:
    go = ROOT / "clients" / "go"
    for generated in (go / "gen" / "baloot" / "v1").glob("*.go"):
        assert re.search(r"^package balootv1$", generated.read_text(), re.MULTILINE), generated
    assert f'balootv1 "{GO_IMPORT}"' in (go / "cmd" / "play" / "main.go").read_text()
    java = ROOT / "clients" / "java" / "src" / "main" / "java" / "org" / "balootengine"
    player = (java / "example" / "PlayMatch.java").read_text()
    assert "import org.balootengine.v1.View;" in player
    typescript = ROOT / "clients" / "typescript" / "src" / "gen" / "baloot" / "v1"
    assert {path.name for path in typescript.glob("*.ts")} == {
        f"{Path(name).stem}_pb.ts" for name in OUTER_CLASSES
    }


def test_the_client_guide_names_the_pinned_packages() -> None:
    guide = (ROOT / "docs" / "clients.md").read_text()
    for name in (
        GO_IMPORT,
        "package `balootv1`",
        "`org.balootengine.v1`",
        "`Baloot.V1`",
        "`Baloot_V1_`",
        "`BLT`",
    ):
        assert name in guide
