"""Offline checks of the deploy files: ``python scripts/deploy_check.py [--kubernetes 1.33]``.

* Kubernetes manifests (``deploy/k8s/*.yaml``): every object validated against the schemas of
  the Kubernetes version given (kubernetes-validate ships them; nothing is downloaded), in
  strict mode (unknown fields are errors); the kustomization lists every manifest but the
  Secret template; the Deployment uses native gRPC probes and the key Secret.
* ``deploy/docker-compose.yml``: the Compose specification's schema (check-jsonschema ships
  it), two replicas, the env file of the keys.
* ``deploy/Dockerfile``: multi-stage, a non-root user, a gRPC health check, no package
  manager in the final stage.
* ``deploy/prometheus.yml`` and the Grafana dashboard: they parse, and every metric the
  dashboard queries is one the server exports.

The Envoy configurations are checked by ``scripts/gateway.py check`` (``envoy --mode validate``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]  # ships no type information
import yaml

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
NOT_IN_KUSTOMIZATION = {"kustomization.yaml", "secret.yaml"}
# Series that Prometheus itself or the process collectors add.
OTHER_SERIES = {"up"}


def check_kubernetes(version: str) -> list[str]:
    """Validate every manifest; return the problems."""
    problems: list[str] = []
    kinds: dict[str, dict[str, Any]] = {}
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if not document:
                continue
            name = f"{path.name}: {document.get('kind')}/{document['metadata']['name']}"
            try:
                kubernetes_validate.validate(document, version, strict=True)
            except kubernetes_validate.ValidationError as error:
                where = "/".join(str(part) for part in error.path)
                problems.append(f"{name}: {where}: {error.message}")
            else:
                print(f"deploy-check: {name} valid against Kubernetes {version} (strict)")
            kinds[f"{document['kind']}/{document['metadata']['name']}"] = document
    listed = set(yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"])
    expected = {p.name for p in K8S.glob("*.yaml")} - NOT_IN_KUSTOMIZATION
    if listed != expected:
        problems.append(f"kustomization.yaml resources {sorted(listed)} != {sorted(expected)}")
    engine = kinds.get("Deployment/baloot-engine")
    if engine is None:
        return [*problems, "no Deployment/baloot-engine"]
    (container,) = engine["spec"]["template"]["spec"]["containers"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        if "grpc" not in container.get(probe, {}):
            problems.append(f"Deployment/baloot-engine: {probe} is not a native gRPC probe")
    secrets = [ref["secretRef"]["name"] for ref in container.get("envFrom", [])]
    secret = kinds.get("Secret/baloot-state-keys")
    if secrets != ["baloot-state-keys"] or secret is None:
        problems.append("Deployment/baloot-engine must take its keys from Secret baloot-state-keys")
    elif "BALOOT_STATE_KEYS" not in secret.get("stringData", {}):
        problems.append("Secret/baloot-state-keys must hold BALOOT_STATE_KEYS")
    for kind in ("HorizontalPodAutoscaler/baloot-engine", "PodDisruptionBudget/baloot-engine"):
        if kind not in kinds:
            problems.append(f"missing {kind}")
    return problems


def check_compose() -> list[str]:
    """The compose file against the Compose specification, plus what it must contain."""
    path = DEPLOY / "docker-compose.yml"
    checker = Path(sys.executable).parent / "check-jsonschema"
    result = subprocess.run(
        [str(checker), "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        return [f"docker-compose.yml: {result.stdout}{result.stderr}".strip()]
    print("deploy-check: docker-compose.yml valid against the Compose specification")
    compose = yaml.safe_load(path.read_text(encoding="utf-8"))
    problems = []
    engine = compose["services"]["baloot"]
    if engine.get("deploy", {}).get("replicas", 1) < 2:
        problems.append("docker-compose.yml: the engine needs 2 replicas")
    if not any(entry["path"] == "state-keys.env" for entry in engine.get("env_file", [])):
        problems.append("docker-compose.yml: the replicas must share state-keys.env")
    for needed in ("envoy", "prometheus"):
        if needed not in compose["services"]:
            problems.append(f"docker-compose.yml: no {needed} service")
    return problems


def check_dockerfile() -> list[str]:
    """The image's build file: stages, user, health check, nothing installed at run time."""
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    stages = re.split(r"(?m)^FROM ", text)[1:]
    problems = []
    if len(stages) < 2:
        problems.append("Dockerfile: expected a multi-stage build")
    final = stages[-1] if stages else ""
    user = re.search(r"(?m)^USER (\S+)", final)
    if user is None or user.group(1).split(":")[0] in {"root", "0"}:
        problems.append("Dockerfile: the final stage must switch to a non-root USER")
    if "HEALTHCHECK" not in final or "baloot_engine.server.healthcheck" not in final:
        problems.append("Dockerfile: the final stage needs the gRPC HEALTHCHECK")
    if re.search(r"apt-get|apk add|pip install|gcc|build-essential", final):
        problems.append("Dockerfile: the final stage must not install anything")
    if not problems:
        print("deploy-check: Dockerfile multi-stage, non-root, gRPC health check")
    return problems


def _exported_metric_names() -> set[str]:
    from baloot_engine.telemetry.metrics import Metrics

    names = set(OTHER_SERIES)
    for family in Metrics().registry.collect():
        for sample in family.samples:
            names.add(sample.name)
        names.add(family.name)
        names.update({f"{family.name}_total", f"{family.name}_bucket"})
    return names


def check_monitoring() -> list[str]:
    """prometheus.yml scrapes the metrics port; the dashboard queries exported series only."""
    problems = []
    prometheus = yaml.safe_load((DEPLOY / "prometheus.yml").read_text(encoding="utf-8"))
    jobs = {job["job_name"]: job for job in prometheus["scrape_configs"]}
    engine = jobs.get("baloot-engine", {})
    if not any(sd.get("port") == 9464 for sd in engine.get("dns_sd_configs", [])):
        problems.append("prometheus.yml: job baloot-engine must scrape every replica on 9464")
    exported = _exported_metric_names()
    dashboards = sorted((DEPLOY / "grafana" / "dashboards").glob("*.json"))
    for path in dashboards:
        dashboard = json.loads(path.read_text(encoding="utf-8"))
        for panel in dashboard["panels"]:
            for target in panel.get("targets", []):
                for name in re.findall(r"\b([a-z_][a-z0-9_]*)(?=\{|\[)", target["expr"]):
                    if name not in exported:
                        problems.append(f"{path.name}: panel {panel['title']!r} queries {name}")
    if not problems:
        print(f"deploy-check: prometheus.yml and {len(dashboards)} dashboard(s) consistent")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """Run every check; exit 1 if one fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--kubernetes",
        default="1.33.0",
        help="Kubernetes version whose schemas the manifests must satisfy",
    )
    args = parser.parse_args(argv)
    problems = [
        *check_kubernetes(args.kubernetes),
        *check_compose(),
        *check_dockerfile(),
        *check_monitoring(),
    ]
    for problem in problems:
        print(f"deploy-check: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
