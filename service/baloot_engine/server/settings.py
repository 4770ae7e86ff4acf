"""Server settings: one typed table, read from ``BALOOT_*`` variables and command-line flags.

Every setting has an environment variable, a command-line flag (which wins), a typed default
and a parser that turns text into a value or refuses it with a one-line message naming the
variable or flag. ``SETTINGS`` is the single table: the flags, the ``--help`` text, the start-up
log line and the README's configuration table all follow it. Secret settings are never shown.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

from baloot_engine import __version__
from baloot_engine.api.attestation import AttestationKeyError, parse_private_key, parse_public_key
from baloot_engine.api.ledger import Durability, check_url, redact_url
from baloot_engine.api.sealing import StateKeyError, parse_key
from baloot_engine.lanes import (
    ANALYSIS,
    BOTS,
    JUDGE,
    SOLVE,
    ApiKeys,
    HeavyWork,
    LanesConfig,
    Quota,
)
from baloot_engine.lanes.clients import ApiKeyError, parse_api_keys
from baloot_engine.lanes.sources import TrustedProxiesError, parse_networks
from baloot_engine.telemetry.logs import LogFormat, LogLevel

ENV_PREFIX: Final = "BALOOT_"


class SettingsError(ValueError):
    """A setting with an invalid value; the message is one line and names its source."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server process can be told at start-up. Defaults serve on localhost."""

    host: str = "localhost"
    port: int = 50051
    metrics_enabled: bool = True
    metrics_host: str = "127.0.0.1"
    metrics_port: int = 9464
    grace_seconds: float = 10.0
    lame_duck_seconds: float = 5.0
    log_format: LogFormat = LogFormat.AUTO
    log_level: LogLevel = LogLevel.INFO
    max_message_bytes: int = 1024 * 1024
    max_concurrent_rpcs: int = 256
    max_streams_per_connection: int = 0
    keepalive_seconds: float = 60.0
    max_connection_age_seconds: float = 300.0
    max_connection_age_grace_seconds: float = 620.0
    reflection: bool = True
    allow_preset_deck: bool = False
    state_keys: tuple[str, ...] = field(default=(), repr=False)
    state_key_file: Path = Path("var/state.key")
    workers: int = 1
    ledger: str = ""
    ledger_ttl_seconds: int = 7 * 24 * 3600
    ledger_timeout_seconds: float = 1.0
    ledger_durability: Durability = Durability.CHECKED
    bot_expert_budget_ms: int = 500
    api_keys: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    anonymous_heavy_work: HeavyWork = HeavyWork.AUTO
    lane_judge_processes: int = 1
    lane_judge_queue: int = 8
    lane_bots_processes: int = 1
    lane_bots_queue: int = 32
    lane_solve_processes: int = 1
    lane_solve_queue: int = 8
    lane_analysis_processes: int = 1
    lane_analysis_queue: int = 4
    lane_judge_per_source: int = 1
    trusted_proxies: tuple[str, ...] = ()
    quota_cpu_seconds_per_minute: float = 60.0
    quota_queued_jobs: int = 16
    quota_streams: int = 2
    anonymous_cpu_seconds_per_minute: float = 30.0
    attestation_key: str = field(default="", repr=False)
    attestation_key_file: Path = Path("var/attestation.key")
    attestation_public_keys: tuple[str, ...] = ()

    @property
    def address(self) -> str:
        """The gRPC listen address, ``host:port`` (IPv6 hosts in brackets)."""
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        return f"{host}:{self.port}"

    def lanes(self) -> LanesConfig:
        """The lanes' sizes, the quotas and the API keys these settings give."""
        base = LanesConfig()
        return LanesConfig(
            judge=dataclasses.replace(
                base.judge,
                processes=self.lane_judge_processes,
                queue=self.lane_judge_queue,
                per_source=self.lane_judge_per_source,
            ),
            bots=dataclasses.replace(
                base.bots, processes=self.lane_bots_processes, queue=self.lane_bots_queue
            ),
            solve=dataclasses.replace(
                base.solve, processes=self.lane_solve_processes, queue=self.lane_solve_queue
            ),
            analysis=dataclasses.replace(
                base.analysis,
                processes=self.lane_analysis_processes,
                queue=self.lane_analysis_queue,
            ),
            keyed=Quota(
                self.quota_cpu_seconds_per_minute, self.quota_queued_jobs, self.quota_streams
            ),
            anonymous=Quota(
                self.anonymous_cpu_seconds_per_minute,
                self.quota_queued_jobs,
                self.quota_streams,
            ),
            heavy_work=self.anonymous_heavy_work,
            api_keys=ApiKeys(self.api_keys),
            trusted_proxies=parse_networks(self.trusted_proxies),
        )

    def redacted(self) -> dict[str, object]:
        """Return the settings as plain values for the start-up log; secrets are summarised."""
        shown: dict[str, object] = {}
        for spec in SETTINGS:
            value = getattr(self, spec.name)
            if spec.secret:
                shown[spec.name] = f"<{len(value)} configured>" if value else "<none>"
            elif spec.shown is not None:
                shown[spec.name] = spec.shown(value)
            elif isinstance(value, enum.Enum):
                shown[spec.name] = value.value
            elif isinstance(value, Path):
                shown[spec.name] = str(value)
            else:
                shown[spec.name] = value
        return shown


# Parsers: text -> value, raising ValueError with the expectation (the caller adds the source).


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ValueError("expected true or false (also 1/0, yes/no, on/off)")


def _int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10)
        except ValueError:
            raise ValueError(f"expected an integer from {low} to {high}") from None
        if not low <= value <= high:
            raise ValueError(f"expected an integer from {low} to {high}")
        return value

    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise ValueError("expected a number of seconds, at least 0") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError("expected a number of seconds, at least 0")
    return value


def _host(text: str) -> str:
    host = text.strip()
    if not host or any(c.isspace() for c in host) or "/" in host:
        raise ValueError("expected a host name or IP address, such as localhost or 0.0.0.0")
    return host


_E = TypeVar("_E", bound=enum.Enum)


def _choice(enum_type: type[_E]) -> Callable[[str], _E]:
    def parse(text: str) -> _E:
        try:
            return enum_type(text.strip().lower())
        except ValueError:
            allowed = ", ".join(str(member.value) for member in enum_type)
            raise ValueError(f"expected one of {allowed}") from None

    return parse


def _key_list(text: str) -> tuple[str, ...]:
    keys = tuple(part.strip() for part in text.split(","))
    if any(not key for key in keys):
        raise ValueError("expected a comma-separated list of non-empty keys")
    for key in keys:
        try:
            parse_key(key)
        except StateKeyError:
            raise ValueError(
                "expected comma-separated keys of 32 bytes each, as base64 or 64 hex digits "
                "(make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))')"
            ) from None
    return keys


def _path(text: str) -> Path:
    if not text.strip():
        raise ValueError("expected a file path")
    return Path(text.strip())


MAX_WORKERS: Final = 64
MAX_EXPERT_BUDGET_MS: Final = 5000


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _workers(text: str) -> int:
    if text.strip().lower() == "auto":
        return min(cpu_count(), MAX_WORKERS)
    try:
        return _int_in(1, MAX_WORKERS)(text)
    except ValueError:
        raise ValueError(f"expected an integer from 1 to {MAX_WORKERS}, or auto") from None


def _api_keys(text: str) -> tuple[tuple[str, str], ...]:
    try:
        return parse_api_keys(text)
    except ApiKeyError as error:
        raise ValueError(str(error)) from None


def _cpu_per_minute(text: str) -> float:
    value = _seconds(text)
    if value > 3600:
        raise ValueError("expected CPU-seconds a minute from 0 to 3600")
    return value


def _attestation_key(text: str) -> str:
    try:
        parse_private_key(text)
    except AttestationKeyError as error:
        raise ValueError(str(error)) from None
    return text.strip()


def _public_keys(text: str) -> tuple[str, ...]:
    keys = tuple(part.strip() for part in text.split(",") if part.strip())
    for key in keys:
        try:
            parse_public_key(key)
        except AttestationKeyError as error:
            raise ValueError(str(error)) from None
    return keys


def _trusted_proxies(text: str) -> tuple[str, ...]:
    entries = tuple(part.strip() for part in text.split(",") if part.strip())
    try:
        parse_networks(entries)
    except TrustedProxiesError as error:
        raise ValueError(str(error)) from None
    return entries


def _ledger_url(text: str) -> str:
    return check_url(text) if text.strip() else ""


def _positive_seconds(text: str) -> float:
    value = _seconds(text)
    if value <= 0:
        raise ValueError("expected a number of seconds above 0")
    return value


@dataclass(frozen=True, slots=True)
class SettingSpec:
    """How one setting is named, parsed and documented."""

    name: str
    parse: Callable[[str], object]
    help: str
    flag: bool = True  # False: environment only (secrets must not appear in process lists)
    secret: bool = False
    shown: Callable[[Any], object] | None = None  # how the start-up log shows the value

    @property
    def env(self) -> str:
        """The environment variable of the setting."""
        return ENV_PREFIX + self.name.upper()

    @property
    def option(self) -> str:
        """The command-line flag of the setting."""
        return "--" + self.name.replace("_", "-")


SETTINGS: Final[tuple[SettingSpec, ...]] = (
    SettingSpec("host", _host, "Interface the gRPC server listens on (0.0.0.0 or :: for all)."),
    SettingSpec("port", _int_in(0, 65535), "gRPC port; 0 picks a free port."),
    SettingSpec("metrics_enabled", _parse_bool, "Serve Prometheus metrics over HTTP."),
    SettingSpec("metrics_host", _host, "Interface of the metrics endpoint."),
    SettingSpec("metrics_port", _int_in(0, 65535), "Port of the metrics endpoint; 0 picks one."),
    SettingSpec(
        "grace_seconds",
        _seconds,
        "On SIGTERM, how long in-flight calls may take to finish before they are cancelled.",
    ),
    SettingSpec(
        "lame_duck_seconds",
        _seconds,
        "On SIGTERM, how long the server may keep taking calls while it reports NOT_SERVING, "
        "so that load balancers stop sending first; it stops taking them once none has "
        "arrived for half a second.",
    ),
    SettingSpec("log_format", _choice(LogFormat), "Log format: auto, json or console."),
    SettingSpec("log_level", _choice(LogLevel), "Lowest log level: debug, info, warning, error."),
    SettingSpec(
        "max_message_bytes",
        _int_in(4096, 64 * 1024 * 1024),
        "Largest request or response message accepted, in bytes.",
    ),
    SettingSpec(
        "max_concurrent_rpcs",
        _int_in(1, 100_000),
        "Calls one process runs at once (health checks aside); the excess is refused with "
        "RESOURCE_EXHAUSTED, reason OVERLOADED.",
    ),
    SettingSpec(
        "max_streams_per_connection",
        _int_in(0, 100_000),
        "Calls one client connection may have in flight at once (HTTP/2 "
        "MAX_CONCURRENT_STREAMS); 0: grpc's own (no limit). A client past it sees its excess "
        "calls refused UNAVAILABLE before they reach the server.",
    ),
    SettingSpec(
        "keepalive_seconds",
        _seconds,
        "Idle time after which the server pings a client connection (closed when the ping is "
        "not answered within 20 s); 0 turns the pings off.",
    ),
    SettingSpec(
        "max_connection_age_seconds",
        _seconds,
        "Age at which the server asks a client connection to close (GOAWAY; grpc adds up to a "
        "tenth of jitter), so clients reconnect and spread over new replicas; 0: no limit.",
    ),
    SettingSpec(
        "max_connection_age_grace_seconds",
        _seconds,
        "How long calls still running on a connection asked to close may take to finish.",
    ),
    SettingSpec("reflection", _parse_bool, "Serve the gRPC server reflection service."),
    SettingSpec(
        "allow_preset_deck",
        _parse_bool,
        "Accept a caller-chosen deck order in DealRound (tests, replays, duplicate tournaments).",
    ),
    SettingSpec(
        "state_keys",
        _key_list,
        "Comma-separated keys that seal state tokens: the first seals, all open (rotation).",
        flag=False,
        secret=True,
    ),
    SettingSpec(
        "state_key_file",
        _path,
        "File holding the state key used when BALOOT_STATE_KEYS is empty.",
    ),
    SettingSpec(
        "workers",
        _workers,
        "Server processes sharing the port (auto: one per CPU); the parent serves their metrics.",
    ),
    SettingSpec(
        "ledger",
        _ledger_url,
        "Match ledger (redis://host:port/db, rediss:// or unix://): refuse every token that is "
        "not the latest of its match. Empty: off.",
        shown=redact_url,
    ),
    SettingSpec(
        "ledger_ttl_seconds",
        _int_in(60, 366 * 24 * 3600),
        "How long the ledger remembers a match after its last accepted action.",
    ),
    SettingSpec(
        "ledger_timeout_seconds",
        _positive_seconds,
        "Bound on each connection attempt and reply of the ledger.",
    ),
    SettingSpec(
        "ledger_durability",
        _choice(Durability),
        "Whether the ledger's Redis keeps every write it acknowledges: checked (appendonly yes, "
        "appendfsync always, read on each connection), trusted (not read), or lossy (it may "
        "lose some: a match can then fork).",
    ),
    SettingSpec(
        "bot_expert_budget_ms",
        _int_in(1, MAX_EXPERT_BUDGET_MS),
        "Time an unseeded EXPERT SuggestAction may search, in milliseconds (at most 5000).",
    ),
    SettingSpec(
        "api_keys",
        _api_keys,
        "Comma-separated name:secret API keys of the clients that may ask for heavy work "
        "(searching bots, solves, analyses), sent in the x-api-key metadata.",
        flag=False,
        secret=True,
    ),
    SettingSpec(
        "anonymous_heavy_work",
        _choice(HeavyWork),
        "Whether callers without an API key may ask for heavy work: auto (only while no API "
        "key is configured), on or off.",
    ),
    *(
        spec
        for lane, processes, queue in (
            (JUDGE, "Sawa claims and Qayd calls", 8),
            (BOTS, "STRONG and EXPERT bot decisions", 32),
            (SOLVE, "SolveDeal", 8),
            (ANALYSIS, "AnalyzeRecord and FairPlayReport streams", 4),
        )
        for spec in (
            SettingSpec(
                f"lane_{lane}_processes",
                _int_in(1, MAX_WORKERS),
                f"Processes of the {lane} lane ({processes}), per server process.",
            ),
            SettingSpec(
                f"lane_{lane}_queue",
                _int_in(1, 100_000),
                f"Jobs the {lane} lane holds waiting, all clients together (default {queue}); "
                "the next is refused with RESOURCE_EXHAUSTED, reason LANE_FULL.",
            ),
        )
    ),
    SettingSpec(
        "lane_judge_per_source",
        _int_in(0, 100_000),
        "Sawa claims and Qayd calls one source address without an API key may have in the "
        "judge lane at once (0: no bound); the next is refused with RESOURCE_EXHAUSTED, reason "
        "QUOTA_EXCEEDED.",
    ),
    SettingSpec(
        "trusted_proxies",
        _trusted_proxies,
        "Comma-separated addresses or networks (CIDR) of the gateways in front of the server "
        "(Envoy's): a call from one of them comes from the address its x-forwarded-for header "
        "names. Empty: a call comes from its connection's peer.",
    ),
    SettingSpec(
        "quota_cpu_seconds_per_minute",
        _cpu_per_minute,
        "CPU-seconds of heavy work an API key's client may use a minute, per server process.",
    ),
    SettingSpec(
        "quota_queued_jobs",
        _int_in(1, 100_000),
        "Jobs one client may have in a lane (waiting or running), per server process.",
    ),
    SettingSpec(
        "quota_streams",
        _int_in(1, 1000),
        "Analysis streams one API key's client may have open, per server process.",
    ),
    SettingSpec(
        "anonymous_cpu_seconds_per_minute",
        _cpu_per_minute,
        "CPU-seconds of heavy work the callers without an API key from one source address may "
        "use a minute, where they may ask for it at all.",
    ),
    SettingSpec(
        "attestation_key",
        _attestation_key,
        "The Ed25519 private key (32 bytes as hex or base64, or PEM) that signs the deal "
        "commitments this deployment makes; empty: the key file's.",
        flag=False,
        secret=True,
    ),
    SettingSpec(
        "attestation_key_file",
        _path,
        "File holding the attestation key used when BALOOT_ATTESTATION_KEY is empty (created "
        "when missing).",
    ),
    SettingSpec(
        "attestation_public_keys",
        _public_keys,
        "Comma-separated public keys of earlier attestation keys, still accepted by "
        "VerifyRecord and published by GetAttestationKeys (rotation).",
    ),
)

_DEFAULTS: Final = Settings()


def _apply(values: dict[str, Any], spec: SettingSpec, text: str, source: str) -> None:
    try:
        values[spec.name] = spec.parse(text)
    except ValueError as error:
        if spec.secret:
            shown = "<hidden>"
        else:
            shown = repr(text if spec.shown is None else spec.shown(text))
        raise SettingsError(f"invalid {source}={shown}: {error}") from None


def build_parser() -> argparse.ArgumentParser:
    """Return the command-line parser; every flag defaults to "not given"."""
    parser = argparse.ArgumentParser(
        prog="baloot-server",
        description="Serve the Baloot rules engine over gRPC. "
        "Flags override the BALOOT_* environment variables.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    for spec in SETTINGS:
        if not spec.flag:
            continue
        default = getattr(_DEFAULTS, spec.name)
        if isinstance(default, enum.Enum):
            default = default.value
        parser.add_argument(
            spec.option,
            dest=spec.name,
            metavar="VALUE",
            default=None,
            help=f"{spec.help} [env {spec.env}, default {default}]",
        )
    return parser


def load_settings(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Read the settings from ``environ`` and then ``argv``; raise SettingsError on bad values.

    ``environ`` defaults to the process environment. An empty variable counts as unset.
    """
    env = os.environ if environ is None else environ
    # Each parser returns the type of its field; the test suite checks the pairing.
    values: dict[str, Any] = {}
    for spec in SETTINGS:
        text = env.get(spec.env, "")
        if text.strip():
            _apply(values, spec, text, spec.env)
    flags: dict[str, str | None] = vars(build_parser().parse_args(list(argv or [])))
    for spec in SETTINGS:
        flag_text = flags.get(spec.name)
        if flag_text is not None:
            _apply(values, spec, flag_text, spec.option)
    return dataclasses.replace(_DEFAULTS, **values)


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """Return the ``BALOOT_*`` variables that name no setting (likely typos), sorted."""
    known = {spec.env for spec in SETTINGS}
    return sorted(name for name in environ if name.startswith(ENV_PREFIX) and name not in known)
