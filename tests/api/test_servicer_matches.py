"""Whole matches over a real channel: random legal play under several rule sets, exact replays
from a preset deck, deals that cannot be re-rolled, and the domain metrics they leave."""

from __future__ import annotations

import random
import urllib.request
from collections import Counter
from collections.abc import Callable

import grpc
import pytest
from baloot_client import EngineClient, Match
from prometheus_client.parser import text_string_to_metric_families

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import rules_pb2, types_pb2

from .conftest import (
    CUSTOM,
    FEDERATION,
    IN_ORDER_HOKM,
    KAMMELNA,
    KEY_A,
    SEEDS,
    InProcessServer,
    Step,
    Table,
    action_call,
    bid,
    expect_refusal,
)

FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
RULE_SETS = {"seeds": SEEDS, "kammelna": KAMMELNA, "custom": CUSTOM, "federation": FEDERATION}
SEEDS_PER_RULE_SET = 5


def target_of(rules: rules_pb2.RuleSet) -> int:
    return rules.match_target if rules.HasField("match_target") else 152


def starting_scores(rng: random.Random, target: int, seed: int) -> tuple[int, int]:
    """Even seeds start at 0-0; odd seeds continue a match begun elsewhere."""
    if seed % 2 == 0:
        return (0, 0)
    return (rng.randrange(target // 3, target * 3 // 4), rng.randrange(target // 3, target))


def round_total(score: types_pb2.RoundScore) -> int:
    return 130 if score.contract.type == types_pb2.CONTRACT_TYPE_SUN else 162


@pytest.mark.parametrize("seed", range(SEEDS_PER_RULE_SET))
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_random_matches_end_with_a_winner_and_consistent_totals(
    client: EngineClient, name: str, seed: int
) -> None:
    rules = RULE_SETS[name]
    rng = random.Random(f"{name}-{seed}")
    target = target_of(rules)
    start = starting_scores(rng, target, seed)
    match = client.create_match(rules, first_dealer=seed % 4, starting_scores=start)
    assert match.version == 0
    assert len(match.seat_credentials) == 4
    assert len({match.host_credential, *match.seat_credentials}) == 5
    assert [v.phase for v in match.views] == [types_pb2.PHASE_AWAITING_DEAL] * 4
    assert match.views[0].dealer == seed % 4
    assert list(match.views[0].match_score.points) == list(start)

    totals = list(start)

    def after_step(table: Table, step: Step) -> None:
        for event in step.events:
            if event.kind != types_pb2.EVENT_KIND_ROUND_SCORED:
                continue
            score = event.round_score
            assert [t.team for t in score.teams] == [0, 1]
            assert sum(t.card_abnat for t in score.teams) == round_total(score)
            assert sum(t.tricks for t in score.teams) == 8
            buyer = score.contract.buyer_team
            assert score.winning_team == (buyer if score.made else 1 - buyer)
            if score.HasField("kaboot_team"):
                assert score.teams[score.kaboot_team].tricks == 8
            for team in score.teams:
                totals[team.team] += team.final_points
            assert list(table.latest.match_score.points) == totals

    table = Table(match, rng, on_step=after_step)
    # Preset decks drawn from the seed make a failure reproducible; the server's own shuffle
    # is played by the other tests.
    table.play(decks=lambda _: rng.sample(range(32), 32))

    final = table.latest
    score = final.match_score
    assert final.phase == types_pb2.PHASE_MATCH_OVER
    assert score.HasField("winner_team")
    winner = score.winner_team
    assert list(score.points) == totals
    assert score.target == target
    rounds = [e.round_score for e in table.events(types_pb2.EVENT_KIND_ROUND_SCORED)]
    assert rounds
    last = rounds[-1]
    if score.end_reason == types_pb2.MATCH_END_REASON_GAHWA:
        assert last.contract.gahwa
        assert last.winning_team == winner
    else:
        assert score.end_reason == types_pb2.MATCH_END_REASON_TARGET_REACHED
        assert score.points[winner] >= target
        assert score.points[winner] > score.points[1 - winner] or score.points[1 - winner] < target
    # The match is won exactly once, by the last action, and the event agrees with the views.
    won = table.events(types_pb2.EVENT_KIND_MATCH_WON)
    assert len(won) == 1
    assert table.steps[-1].events[-1] == won[0]
    assert won[0].match_score == score
    assert [s.version for s in table.steps] == list(range(1, len(table.steps) + 1))
    assert all(not v.legal_actions for v in table.views.values())

    # The score read back agrees with the events; nothing more is accepted.
    read = match.score()
    assert read.state_version == match.version
    assert read.match == score
    assert read.last_round == last
    assert final.round_score == last
    for seat, action in ((final.dealer, None), (final.dealer, bid(types_pb2.BID_KIND_PASS))):
        method, request = action_call(client.stub, match, seat, action)
        expect_refusal(method, request, FAILED_PRECONDITION, "MATCH_OVER")


def test_the_custom_rules_are_in_force(client: EngineClient) -> None:
    match = client.create_match(CUSTOM, first_dealer=0)
    rules = match.views[0].rules
    assert rules.sawa
    assert rules.auto_declare_projects
    assert rules.kawesh == rules_pb2.KAWESH_NO_COURT_CARDS
    assert rules.match_target == 101
    # Every flag is set in a view, to the value in force.
    kammelna = client.create_match(KAMMELNA).views[0].rules
    assert kammelna.hokm_rounding == rules_pb2.HOKM_ROUNDING_PAIR_SUM_16
    assert kammelna.exact_tie_rule == rules_pb2.EXACT_TIE_RULE_KAMMELNA
    assert all(kammelna.HasField(f.name) for f in kammelna.DESCRIPTOR.fields if f.name != "preset")


def test_the_federation_preset_is_in_force(client: EngineClient) -> None:
    rules = client.create_match(FEDERATION, first_dealer=0).views[0].rules
    assert rules.preset == rules_pb2.PRESET_FEDERATION
    assert rules.card_conversion == rules_pb2.CARD_CONVERSION_DEFENDERS_COUNTED
    assert rules.project_multiplier == rules_pb2.PROJECT_MULTIPLIER_DOUBLE_ONLY
    assert rules.doubled_tie_rule == rules_pb2.DOUBLED_TIE_RULE_LAST_RAISER_LOSES
    assert rules.baloot_absorption == rules_pb2.BALOOT_ABSORPTION_FOUR_OF_A_KIND_KQ
    assert not rules.baloot_absorbed_by_hundred  # the old flag reads the new one
    assert rules.success_metric == rules_pb2.SUCCESS_METRIC_RAW_HALF
    assert rules.sun_double_defender_max == rules_pb2.SCORE_BOUNDARY_INCLUSIVE
    assert rules.four_by_doubler_only
    assert rules.triple_opens
    assert rules.buyer_steps_by_buyer_only
    assert rules.ashkal_requires_pending_hokm
    assert rules.ashkal_in_round2
    assert rules.ace_switch_dealer_right_only
    assert rules.baloot_in_success_test
    # An old caller's single flag over FEDERATION.
    old = rules_pb2.RuleSet(preset=rules_pb2.PRESET_FEDERATION, baloot_absorbed_by_hundred=True)
    changed = client.create_match(old).views[0].rules
    assert changed.baloot_absorption == rules_pb2.BALOOT_ABSORPTION_RUN_HUNDRED
    assert changed.preset == rules_pb2.PRESET_FEDERATION


def test_contradictory_absorption_flags_are_refused(client: EngineClient) -> None:
    request = pb.CreateMatchRequest(
        rules=rules_pb2.RuleSet(
            baloot_absorbed_by_hundred=True,
            baloot_absorption=rules_pb2.BALOOT_ABSORPTION_NONE,
        )
    )
    expect_refusal(
        client.stub.CreateMatch, request, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_RULES"
    )


# ---------------------------------------------------------------------------------------
# Preset decks


def fixed_deck(number: int) -> list[int]:
    deck = list(range(32))
    random.Random(f"deck-{number}").shuffle(deck)
    return deck


def without_match_id(views: list[types_pb2.View]) -> list[types_pb2.View]:
    copies = []
    for view in views:
        copy = types_pb2.View()
        copy.CopyFrom(view)
        copy.match_id = ""
        copies.append(copy)
    return copies


def replay(client: EngineClient, rules: rules_pb2.RuleSet, recorded: Table) -> Match:
    """Play the recorded decks and actions again on a new match; compare every response."""
    match = client.create_match(rules, first_dealer=1)
    for step in recorded.steps:
        if step.action is None:
            events = match.deal(step.seat, step.deck)
        else:
            events = match.act(step.seat, step.action)
        assert list(events) == step.events
        assert match.version == step.version
    return match


def test_a_preset_deck_and_an_action_list_replay_exactly(client: EngineClient) -> None:
    rules = rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA, match_target=60)
    recorded = Table(client.create_match(rules, first_dealer=1), random.Random(7), seat_share=0)
    recorded.play(decks=fixed_deck)
    assert recorded.events(types_pb2.EVENT_KIND_MATCH_WON)
    final_views = without_match_id(recorded.match.views)
    final_score = recorded.match.score()
    for _ in range(2):
        again = replay(client, rules, recorded)
        assert without_match_id(again.views) == final_views
        assert again.score() == final_score


def test_a_preset_deck_is_dealt_in_the_documented_order(client: EngineClient) -> None:
    match = client.create_match(SEEDS, first_dealer=0)
    match.deal(0, range(32))
    hands = [list(v.hand) for v in match.views]
    # Packets of 3 then 2 to the dealer's right (1), the opposite seat (2), the left (3), the
    # dealer (0); card 21 (index 20) is revealed.
    assert hands == [[9, 10, 11, 18, 19], [0, 1, 2, 12, 13], [3, 4, 5, 14, 15], [6, 7, 8, 16, 17]]
    assert match.views[0].revealed_card == 20
    # The buyer (seat 1, Sun) takes the revealed card and two more; the others three each.
    match.bid(1, types_pb2.Bid(kind=types_pb2.BID_KIND_SUN))
    hands = [list(v.hand) for v in match.views]
    assert hands[1] == [0, 1, 2, 12, 13, 20, 21, 22]
    assert hands[2] == [3, 4, 5, 14, 15, 23, 24, 25]
    assert hands[3] == [6, 7, 8, 16, 17, 26, 27, 28]
    assert hands[0] == [9, 10, 11, 18, 19, 29, 30, 31]


def test_a_preset_deck_is_refused_unless_the_server_allows_it(
    servers: Callable[..., InProcessServer], dial: Callable[[InProcessServer], EngineClient]
) -> None:
    strict = dial(servers(state_keys=(KEY_A,)))
    match = strict.create_match(SEEDS, first_dealer=2)
    method, request = action_call(strict.stub, match, 2, None, deck=range(32))
    refused = expect_refusal(
        method, request, grpc.StatusCode.PERMISSION_DENIED, "PRESET_DECK_DISABLED"
    )
    assert "preset" in refused.message
    # The match's own shuffle is dealt as usual.
    match.deal(2)
    assert match.views[0].phase == types_pb2.PHASE_BIDDING


def test_a_retried_deal_deals_the_same_cards(client: EngineClient) -> None:
    match = client.create_match(SEEDS, first_dealer=3)
    token, version = match.state, match.version
    first = match.deal(3)
    dealt = [list(v.hand) for v in match.views]
    revealed = match.views[0].revealed_card
    assert sorted(c for hand in dealt for c in hand) != list(range(20))  # shuffled, not in order
    for credential in (match.host_credential, match.seat_credentials[3]):
        match.state, match.version = token, version
        again = match.deal(3, credential=credential)
        assert list(again) == list(first)
        seat_views = {v.seat: v for v in match.views}
        for seat, view in seat_views.items():
            assert list(view.hand) == dealt[seat]
            assert view.revealed_card == revealed
    # Another match is shuffled differently.
    other = client.create_match(SEEDS, first_dealer=3)
    other.deal(3)
    assert [list(v.hand) for v in other.views] != dealt


def all_pass(match: Match) -> None:
    """Eight passes: both bidding rounds, so the hand is cancelled."""
    for _ in range(8):
        match.act(match.views[0].turn, bid(types_pb2.BID_KIND_PASS))


def test_after_a_redeal_the_next_deal_is_a_new_shuffle(client: EngineClient) -> None:
    match = client.create_match(SEEDS, first_dealer=0)
    match.deal(0)
    first = [list(v.hand) for v in match.views]
    all_pass(match)
    view = match.views[0]
    assert view.phase == types_pb2.PHASE_AWAITING_DEAL
    assert view.dealer == 1
    match.deal(1)
    assert [list(v.hand) for v in match.views] != first


def test_rounds_played_counts_every_hand_dealt_cancelled_ones_too(client: EngineClient) -> None:
    match = client.create_match(SEEDS, first_dealer=0)
    match.deal(0, range(32))
    assert match.views[0].match_score.rounds_played == 1
    all_pass(match)
    match.deal(1, fixed_deck(1))
    assert match.views[0].match_score.rounds_played == 2
    assert match.views[0].round_number == 2
    table = Table(match, random.Random(3), seat_share=0)
    table.play(lambda v: v.phase in (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_MATCH_OVER))
    scored = table.events(types_pb2.EVENT_KIND_ROUND_SCORED)
    assert len(scored) == 1
    assert table.latest.match_score.rounds_played == 2


# ---------------------------------------------------------------------------------------
# The Baloot (K and Q of trump in one hand), announced by the engine


def baloot_round(client: EngineClient) -> Table:
    """The in-order Hokm round (seat 1 holds QD and KD of trump), played to its end."""
    match = client.create_match(SEEDS, first_dealer=0)
    for seat, action in IN_ORDER_HOKM:
        if action is None:
            match.deal(seat, range(32))
        else:
            match.act(seat, action)
    table = Table(match, random.Random(1), seat_share=0)
    table.play(lambda v: v.phase in (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_MATCH_OVER))
    return table


def test_the_baloot_is_announced_and_scored(client: EngineClient) -> None:
    table = baloot_round(client)
    announced = table.events(types_pb2.EVENT_KIND_BALOOT_ANNOUNCED)
    assert [e.seat for e in announced] == [1]
    (score,) = [e.round_score for e in table.events(types_pb2.EVENT_KIND_ROUND_SCORED)]
    assert score.teams[1].baloot_points == 2


def test_the_baloot_event_holds_the_baloot(client: EngineClient) -> None:
    (event,) = baloot_round(client).events(types_pb2.EVENT_KIND_BALOOT_ANNOUNCED)
    assert event.HasField("projects")
    (project,) = event.projects.projects
    assert (project.seat, project.kind) == (1, types_pb2.PROJECT_KIND_BALOOT)
    assert sorted(project.cards) == [21, 22]


def test_the_views_show_an_announced_baloot(client: EngineClient) -> None:
    table = baloot_round(client)
    for view in table.views.values():
        kinds = [p.kind for p in view.revealed_projects]
        assert types_pb2.PROJECT_KIND_BALOOT in kinds


# ---------------------------------------------------------------------------------------
# Metrics


def scrape(
    server: InProcessServer,
) -> tuple[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    url = f"http://127.0.0.1:{server.app.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    return text, samples


def labelled(
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, label: str
) -> dict[str, float]:
    return {
        dict(labels)[label]: value
        for (sample, labels), value in samples.items()
        if sample == name and value
    }


def test_the_metrics_count_what_the_matches_did(
    servers: Callable[..., InProcessServer], dial: Callable[[InProcessServer], EngineClient]
) -> None:
    server = servers(state_keys=(KEY_A,))
    client = dial(server)
    rng = random.Random(11)
    tables = []
    for number in range(3):
        match = client.create_match(SEEDS, first_dealer=number, starting_scores=(120, 110))
        table = Table(match, rng)
        table.play()
        tables.append(table)
    events = [e for t in tables for e in t.events()]
    kinds = Counter(e.kind for e in events)

    # Refusals: two actions out of turn, one in the wrong phase, four broken tokens.
    match = client.create_match(SEEDS, first_dealer=0)
    for seat in (1, 2):
        method, request = action_call(client.stub, match, seat, None)
        expect_refusal(method, request, FAILED_PRECONDITION, "NOT_YOUR_TURN")
    method, request = action_call(client.stub, match, 1, bid(types_pb2.BID_KIND_PASS))
    expect_refusal(method, request, FAILED_PRECONDITION, "WRONG_PHASE")
    token = match.state
    broken = {
        "truncated": token[:20],
        "format": bytes([token[0] ^ 0xFF]) + token[1:],
        "unknown_key": token[:1] + bytes([token[1] ^ 0xFF]) + token[2:],
        "not_authentic": token[:-1] + bytes([token[-1] ^ 0x01]),
    }
    for state in broken.values():
        request = pb.GetViewRequest(
            state=state, match_id=match.match_id, credential=match.host_credential
        )
        expect_refusal(
            client.stub.GetView, request, grpc.StatusCode.INVALID_ARGUMENT, "STATE_INVALID"
        )

    text, samples = scrape(server)

    def value(name: str) -> float:
        return samples.get((name, ()), 0.0)

    first_deals = [
        e
        for e in events
        if e.kind == types_pb2.EVENT_KIND_CARDS_DEALT and list(e.deal.hand_sizes) == [5, 5, 5, 5]
    ]
    assert value("baloot_rounds_dealt_total") == len(first_deals)
    assert value("baloot_matches_finished_total") == 3
    scored = [e.round_score for e in events if e.kind == types_pb2.EVENT_KIND_ROUND_SCORED]
    assert value("baloot_rounds_scored_total") == len(scored)
    assert value("baloot_kaboots_total") == sum(s.HasField("kaboot_team") for s in scored)
    assert value("baloot_gahwa_rounds_total") == sum(s.contract.gahwa for s in scored)
    contracts = Counter(
        "ashkal"
        if e.contract.ashkal
        else ("sun" if e.contract.type == types_pb2.CONTRACT_TYPE_SUN else "hokm")
        for e in events
        if e.kind == types_pb2.EVENT_KIND_CONTRACT_FIXED
    )
    assert labelled(samples, "baloot_contracts_total", "contract") == contracts
    assert sum(contracts.values()) == kinds[types_pb2.EVENT_KIND_CONTRACT_FIXED]
    redeals = kinds[types_pb2.EVENT_KIND_REDEAL]
    assert labelled(samples, "baloot_redeals_total", "reason") == (
        {"all_passed": redeals} if redeals else {}
    )
    levels = {
        types_pb2.DOUBLING_CALL_DOUBLE: "double",
        types_pb2.DOUBLING_CALL_TRIPLE: "triple",
        types_pb2.DOUBLING_CALL_FOUR: "four",
        types_pb2.DOUBLING_CALL_GAHWA: "gahwa",
    }
    raises = Counter(
        levels[e.doubling.call]
        for e in events
        if e.kind == types_pb2.EVENT_KIND_DOUBLING_CALLED and e.doubling.call in levels
    )
    assert labelled(samples, "baloot_doubling_calls_total", "level") == raises
    assert labelled(samples, "baloot_rejected_actions_total", "reason") == {
        "NOT_YOUR_TURN": 2,
        "WRONG_PHASE": 1,
    }
    assert labelled(samples, "baloot_tokens_refused_total", "reason") == dict.fromkeys(broken, 1)

    # Nothing secret: no credential, token or match id in any label or anywhere on the page.
    secrets = [match.host_credential, *match.seat_credentials, match.match_id, token.hex()]
    for table in tables:
        secrets += [table.match.host_credential, *table.match.seat_credentials]
        secrets += [table.match.match_id, table.match.state.hex()]
    assert not [s for s in secrets if s in text]
    for name, labels in samples:
        if name.startswith("baloot_"):
            assert all(len(v) <= 16 and v.replace("_", "").isalnum() for _, v in labels), labels
