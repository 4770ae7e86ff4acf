"""The metric families: the domain counters count what the events of an accepted action say
happened (and nothing else), refusals are counted by reason, and the endpoint serves them."""

from __future__ import annotations

import urllib.request

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.utils import floatToGoString

from baloot_engine.rules.actions import (
    Doubling,
    DoublingCall,
    Event,
    EventKind,
    PlayMode,
    QaydCategory,
    QaydVerdict,
    RedealReason,
)
from baloot_engine.rules.contract import Contract, ContractType
from baloot_engine.rules.ruleset import SEEDS
from baloot_engine.rules.scoring import RoundFacts, score_round
from baloot_engine.telemetry import metrics as metrics_module
from baloot_engine.telemetry.metrics import (
    BUCKET_LABELS,
    LATENCY_BUCKETS,
    CallChildren,
    CallCounts,
    Metrics,
    start_metrics_endpoint,
)


def _value(metrics: Metrics, name: str, **labels: str) -> float:
    value = metrics.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


def test_deals_contracts_and_redeals_are_counted() -> None:
    metrics = Metrics()
    metrics.observe_events(
        [
            Event(EventKind.CARDS_DEALT, cards=(5, 5, 5, 5), card=20),
            Event(EventKind.CONTRACT_FIXED, contract=Contract(ContractType.HOKM, 1, 0)),
            Event(EventKind.CARDS_DEALT, cards=(8, 8, 8, 8)),  # the rest of the same hand
            Event(EventKind.CONTRACT_FIXED, contract=Contract(ContractType.SUN, -1, 2)),
            Event(EventKind.CONTRACT_FIXED, contract=Contract(ContractType.SUN, -1, 3, True)),
            Event(EventKind.REDEAL, seat=1, redeal=RedealReason.KAWESH),
            Event(EventKind.REDEAL, seat=2, redeal=RedealReason.ALL_PASSED),
            Event(EventKind.REDEAL, seat=3, redeal=RedealReason.ALL_PASSED),
        ]
    )
    assert _value(metrics, "baloot_rounds_dealt_total") == 1
    assert _value(metrics, "baloot_contracts_total", contract="hokm") == 1
    assert _value(metrics, "baloot_contracts_total", contract="sun") == 1
    assert _value(metrics, "baloot_contracts_total", contract="ashkal") == 1
    assert _value(metrics, "baloot_redeals_total", reason="kawesh") == 1
    assert _value(metrics, "baloot_redeals_total", reason="all_passed") == 2


def test_only_raises_of_the_doubling_chain_are_counted() -> None:
    metrics = Metrics()
    calls = [
        DoublingCall.DOUBLE,
        DoublingCall.DECLINE,
        DoublingCall.TRIPLE,
        DoublingCall.FOUR,
        DoublingCall.GAHWA,
        DoublingCall.CHOOSE_MODE,
        DoublingCall.DOUBLE,
    ]
    metrics.observe_events(
        Event(EventKind.DOUBLING_CALLED, seat=0, doubling=Doubling(call, PlayMode.OPEN))
        for call in calls
    )
    assert _value(metrics, "baloot_doubling_calls_total", level="double") == 2
    for level in ("triple", "four", "gahwa"):
        assert _value(metrics, "baloot_doubling_calls_total", level=level) == 1
    for level in ("decline", "choose_mode"):
        assert _value(metrics, "baloot_doubling_calls_total", level=level) == 0


def test_scored_rounds_kaboots_gahwas_and_won_matches_are_counted() -> None:
    kaboot = score_round(
        RoundFacts(ContractType.SUN, 0, card_abnat=(130, 0), tricks_won=(8, 0)), SEEDS
    )
    gahwa = score_round(
        RoundFacts(
            ContractType.HOKM, 1, card_abnat=(60, 102), tricks_won=(3, 5), multiplier=4, gahwa=True
        ),
        SEEDS,
    )
    assert kaboot.kaboot_team == 0
    assert gahwa.gahwa
    metrics = Metrics()
    metrics.observe_events(
        [
            Event(EventKind.ROUND_SCORED, score=kaboot),
            Event(EventKind.ROUND_SCORED, score=gahwa),
            Event(EventKind.MATCH_WON, team=1),
        ]
    )
    assert _value(metrics, "baloot_rounds_scored_total") == 2
    assert _value(metrics, "baloot_kaboots_total") == 1
    assert _value(metrics, "baloot_gahwa_rounds_total") == 1
    assert _value(metrics, "baloot_matches_finished_total") == 1


def test_qayd_verdicts_are_counted_right_and_wrong() -> None:
    metrics = Metrics()
    right = QaydVerdict(1, 0, 2, 5, QaydCategory.REVOKE, True, 0b1100, 1)
    wrong = QaydVerdict(2, 1, 3, 9, None, False, 0, 0)
    metrics.observe_events(
        [
            Event(EventKind.QAYD_JUDGED, seat=1, team=1, qayd=right),
            Event(EventKind.QAYD_JUDGED, seat=2, team=0, qayd=wrong),
            Event(EventKind.QAYD_JUDGED, seat=2, team=0, qayd=wrong),
        ]
    )
    assert _value(metrics, "baloot_qayd_verdicts_total", verdict="correct") == 1
    assert _value(metrics, "baloot_qayd_verdicts_total", verdict="wrong") == 2


COUNTED = {
    EventKind.CARDS_DEALT,
    EventKind.CONTRACT_FIXED,
    EventKind.REDEAL,
    EventKind.DOUBLING_CALLED,
    EventKind.ROUND_SCORED,
    EventKind.MATCH_WON,
    EventKind.QAYD_JUDGED,
}


def _domain_samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in metrics.registry.collect()
        for s in family.samples
        if s.name.startswith("baloot_")
    }


@pytest.mark.parametrize("kind", [k for k in EventKind if k not in COUNTED])
def test_the_other_events_count_for_nothing(kind: EventKind) -> None:
    metrics = Metrics()
    before = _domain_samples(metrics)
    metrics.observe_events([Event(kind, seat=0, card=3, cards=(3, 11, 19, 27))])
    assert _domain_samples(metrics) == before


def test_refusals_are_counted_by_reason_in_each_server_s_own_registry() -> None:
    metrics, other = Metrics(), Metrics()
    metrics.action_rejected("MUST_FOLLOW_SUIT")
    metrics.action_rejected("MUST_FOLLOW_SUIT")
    metrics.token_refused("not_authentic")
    assert _value(metrics, "baloot_rejected_actions_total", reason="MUST_FOLLOW_SUIT") == 2
    assert _value(metrics, "baloot_tokens_refused_total", reason="not_authentic") == 1
    assert _value(other, "baloot_rejected_actions_total", reason="MUST_FOLLOW_SUIT") == 0


def test_the_endpoint_serves_the_registry() -> None:
    metrics = Metrics()
    metrics.for_call(("baloot.v1.BalootEngineService", "PlayCard", "unary")).start()
    endpoint = start_metrics_endpoint(metrics, "127.0.0.1", 0)
    try:
        url = f"http://127.0.0.1:{endpoint.port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as response:
            text = response.read().decode()
    finally:
        endpoint.close()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    [sample] = families["grpc_server_started"].samples
    assert sample.labels["grpc_method"] == "PlayCard"
    assert sample.value == 1
    assert "process_cpu_seconds" in families


# Calls of two methods, as (labels, status code, seconds): bounds, values between them, past
# the last bound, and a code seen once.
_OBSERVED = [
    (("baloot.v1.BalootEngineService", "PlayCard", "unary"), "OK", 0.0005),
    (("baloot.v1.BalootEngineService", "PlayCard", "unary"), "OK", 0.0007),
    (("baloot.v1.BalootEngineService", "PlayCard", "unary"), "NOT_FOUND", 0.002),
    (("baloot.v1.BalootEngineService", "PlayCard", "unary"), "OK", 10.0),
    (("baloot.v1.BalootEngineService", "PlayCard", "unary"), "OK", 42.0),
    (("grpc.health.v1.Health", "Check", "unary"), "OK", 0.0001),
    (("grpc.health.v1.Health", "Watch", "server_stream"), "CANCELLED", 3.0),
]


def _families(registry: CollectorRegistry) -> dict[str, list[tuple[str, dict[str, str], float]]]:
    """The gRPC families' samples; the ``_created`` ones by name and labels only."""
    found = {}
    for family in registry.collect():
        if family.name.startswith("grpc_server_"):
            found[f"{family.name} {family.type} {family.documentation}"] = [
                (s.name, s.labels, -1.0 if s.name.endswith("_created") else s.value)
                for s in family.samples
            ]
    return found


def _reference() -> CollectorRegistry:
    """prometheus-client's own Counter and Histogram, fed the same calls."""
    registry = CollectorRegistry()
    labels = ("grpc_service", "grpc_method", "grpc_type")
    started = Counter(
        "grpc_server_started",
        "Total number of RPCs started on the server.",
        labels,
        registry=registry,
    )
    handled = Counter(
        "grpc_server_handled",
        "Total number of RPCs completed on the server, regardless of success or failure.",
        (*labels, "grpc_code"),
        registry=registry,
    )
    seconds = Histogram(
        "grpc_server_handling_seconds",
        "Histogram of response latency (seconds) of gRPC that had been application-level "
        "handled by the server.",
        labels,
        buckets=LATENCY_BUCKETS,
        registry=registry,
    )
    for call, code, elapsed in _OBSERVED:
        started.labels(*call).inc()
        handled.labels(*call, code).inc()
        seconds.labels(*call).observe(elapsed)
    return registry


def test_the_plain_values_are_exported_as_prometheus_client_exports_its_own() -> None:
    metrics = Metrics()
    for call, code, elapsed in _OBSERVED:
        counts = metrics.for_call(call)
        counts.start()
        counts.finish(code, elapsed)
    assert isinstance(metrics.for_call(_OBSERVED[0][0]), CallCounts)
    assert _families(metrics.registry) == _families(_reference())
    text = generate_latest(metrics.registry).decode()
    reference = generate_latest(_reference()).decode()
    assert _without_created(text) == _without_created(reference)


def test_the_families_are_there_before_any_call() -> None:
    families = _families(Metrics().registry)
    assert sorted(name.split()[0] for name in families) == [
        "grpc_server_handled",
        "grpc_server_handling_seconds",
        "grpc_server_started",
    ]
    assert all(samples == [] for samples in families.values())


def test_the_bucket_labels_are_prometheus_client_s() -> None:
    assert (*(floatToGoString(b) for b in LATENCY_BUCKETS), "+Inf") == BUCKET_LABELS


def test_in_multiprocess_mode_the_calls_go_through_the_families_children(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metrics_module, "multiprocess_values", lambda: True)
    metrics = Metrics()
    labels = ("baloot.v1.BalootEngineService", "PlayCard", "unary")
    bound = metrics.for_call(labels)
    assert isinstance(bound, CallChildren)
    assert metrics.for_call(labels) is bound
    for call, code, elapsed in _OBSERVED:
        counts = metrics.for_call(call)
        counts.start()
        counts.finish(code, elapsed)
    assert _families(metrics.registry) == _families(_reference())


def _without_created(text: str) -> list[str]:
    """The exposition's lines of the gRPC families, but their ``_created`` timestamps."""
    return [line for line in text.splitlines() if "grpc_server_" in line and "_created" not in line]
