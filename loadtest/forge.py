"""The forged-state campaign: tokens sealed with the server's own key over impossible states.

    python -m loadtest.forge [--requests 30000] [--rate 150] [--seed 1]

Only a holder of the state key can forge a token; this checks that even such a token never
makes the server fail (INTERNAL, UNKNOWN, DATA_LOSS, a traceback in its log). It starts
``baloot-server`` on free 127.0.0.1 ports with a fresh key, plays matches under several rule
sets (table play with illegal cards, Qayd calls and the review after the last card among
them) and keeps tokens of every phase as bases. Each forgery opens a base, changes one to
three fields of its ``MatchState`` (any field, the Qayd record and the last round's fields
too: edge values, random values, bytes flipped, cut or grown, a field copied from another
base) or makes it a Sun with a Baloot announced, seals it again and sends it to two or three
of the RPCs that take a token (GetView as host, seat and spectator, ListLegalActions,
GetScore, SuggestAction, ApplyBotAction, DealRound, PlaceBid, CallDouble, DeclareProjects,
PlayCard, CallQayd). It prints the status codes by RPC and by kind of forgery, writes each
server fault with its reproduction (the forged plaintext) to ``--faults``, and exits 1 on
any. At most ``--rate`` requests a second; the run ends after ``--requests``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import grpc
from baloot_client import EngineClient, EngineError
from baloot_client.client import Match
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from baloot.internal.v1 import match_state_pb2
from baloot.v1 import engine_service_pb2, rules_pb2, types_pb2
from baloot_engine.api.sealing import KeyRing
from baloot_engine.api.state_codec import encode_contract
from baloot_engine.rules.contract import Contract, ContractType
from loadtest.stack import new_state_key, start_service

pb: Any = engine_service_pb2
SERVER_FAULTS: Final = frozenset({"INTERNAL", "UNKNOWN", "DATA_LOSS"})
STATE: Final = match_state_pb2.MatchState.DESCRIPTOR
RULE_SETS: Final = (
    rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, match_target=152),
    rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA, match_target=152),
    rules_pb2.RuleSet(preset=rules_pb2.PRESET_FEDERATION, match_target=152),
    rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_KAMMELNA, auto_declare_projects=True, match_target=80
    ),
    rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_SEEDS, illegal_moves_allowed=True, sawa=True, match_target=152
    ),
    rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_KAMMELNA, illegal_moves_allowed=True, sawa=True, match_target=152
    ),
)
_BETWEEN: Final = (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER)
INT_EDGES: Final = (0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 32, 33, 100, 152, 162, 163, 255, 256)
SIGNED_EDGES: Final = (-(2**31), -2, -1, 2**31 - 1)
UNSIGNED_EDGES: Final = (2**32 - 1, 2**31)


@dataclass
class Base:
    """A real token of a match and what its calls need."""

    match_id: str
    host: str
    seats: tuple[str, ...]
    spectator: str
    plaintext: bytes
    view: types_pb2.View  # the host's view of seat 0 (phase, turn, dealer)
    hands: tuple[tuple[int, ...], ...]  # each seat's hand
    played: tuple[tuple[int, int, int], ...]  # this round's (seat, trick, card)
    label: str

    def message(self) -> match_state_pb2.MatchState:
        """The state message (a fresh copy)."""
        return match_state_pb2.MatchState.FromString(self.plaintext)


# -- collecting bases -------------------------------------------------------------------------


def _played_cards(events: Any, played: list[tuple[int, int, int]]) -> None:
    for event in events:
        if event.kind == types_pb2.EVENT_KIND_CARD_PLAYED:
            played.append((event.seat, len(played) // 4 + 1, event.play.card))


def collect_bases(
    client: EngineClient, keys: KeyRing, rng: random.Random, matches: int
) -> list[Base]:
    """Tokens of every phase of ``matches`` matches (kept when new, or now and then)."""
    bases: list[Base] = []
    kinds: set[tuple[object, ...]] = set()
    for number in range(matches):
        rules = RULE_SETS[number % len(RULE_SETS)]
        match = client.create_match(rules=rules)
        played: list[tuple[int, int, int]] = []
        for _ in range(3000):
            view = match.views[0]
            message = match_state_pb2.MatchState.FromString(
                keys.open(match.state, bytes.fromhex(match.match_id))
            )
            kind = (
                number % len(RULE_SETS),
                view.phase,
                min(len(message.tricks) // 4, 3),
                message.baloot_announced,
                message.HasField("last_qayd"),
                bool(message.violations),
                len(message.trick) // 2,
            )
            if kind not in kinds or rng.random() < 0.02:
                kinds.add(kind)
                bases.append(_base(match, message, tuple(played), f"{rules.preset}/{view.phase}"))
            if view.phase == types_pb2.PHASE_MATCH_OVER:
                break
            try:
                _step(match, rng, rules.illegal_moves_allowed, played)
            except EngineError:
                continue  # a refused Qayd call or card: the match goes on from the same token
    return bases


def _base(
    match: Match,
    message: match_state_pb2.MatchState,
    played: tuple[tuple[int, int, int], ...],
    label: str,
) -> Base:
    return Base(
        match_id=match.match_id,
        host=match.host_credential,
        seats=match.seat_credentials,
        spectator=match.spectator_credential,
        plaintext=message.SerializeToString(),
        view=match.views[0],
        hands=tuple(tuple(match.views[s].hand) for s in range(4)),
        played=played,
        label=label,
    )


def _step(
    match: Match, rng: random.Random, table_play: bool, played: list[tuple[int, int, int]]
) -> None:
    view = match.views[0]
    if view.phase == types_pb2.PHASE_ROUND_REVIEW:
        if played and rng.random() < 0.5:
            _qayd(match, rng, played)
        else:
            match.close_review()
        return
    if view.phase in _BETWEEN:
        played.clear()
        match.deal(view.dealer)
        return
    seat = view.turn
    seat_view = match.views[seat]
    if table_play and played and rng.random() < 0.04:
        _qayd(match, rng, played)
        return
    if table_play and view.phase == types_pb2.PHASE_PLAYING and rng.random() < 0.15:
        card = rng.choice(list(seat_view.hand))
        _played_cards(match.play(seat, types_pb2.CardPlay(card=card)), played)
        return
    actions = [
        a for a in seat_view.legal_actions if a.doubling.call != types_pb2.DOUBLING_CALL_GAHWA
    ]
    action = rng.choice(actions or list(seat_view.legal_actions))
    _played_cards(match.act(seat, action), played)


def _qayd(match: Match, rng: random.Random, played: list[tuple[int, int, int]]) -> None:
    accused, trick, card = rng.choice(played)
    caller = rng.choice([s for s in range(4) if s % 2 != accused % 2])
    call = types_pb2.QaydCall(accused=accused, trick=trick, card=card)
    match.call_qayd(caller, call)


# -- forging ----------------------------------------------------------------------------------


def _int_value(rng: random.Random, descriptor: FieldDescriptor) -> int:
    signed = descriptor.type in (FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_INT32)
    if descriptor.type == FieldDescriptor.TYPE_UINT64:
        return rng.choice((*INT_EDGES, 2**64 - 1, 2**63, rng.randrange(2**64)))
    if descriptor.type == FieldDescriptor.TYPE_FIXED32:
        return rng.choice((*INT_EDGES, 2**32 - 1, rng.randrange(2**32)))
    choices = [*INT_EDGES, rng.randrange(-3, 41)]
    choices += SIGNED_EDGES if signed else UNSIGNED_EDGES
    value = rng.choice(choices)
    return value if signed or value >= 0 else rng.randrange(0, 41)


def _bytes_value(rng: random.Random, current: bytes, other: bytes) -> tuple[str, bytes]:
    data = bytearray(current)
    how = rng.choice(("flip", "set", "swap", "cut", "grow", "random", "other", "empty", "huge"))
    if how in ("flip", "set", "swap", "cut") and not data:
        how = "grow"
    if how == "flip":
        for _ in range(rng.randrange(1, 3)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif how == "set":
        data[rng.randrange(len(data))] = rng.choice((0, 1, 3, 4, 7, 8, 31, 32, 33, 0x7F, 0xFF))
    elif how == "swap":  # two bytes exchanged: a card given to another seat, bids reordered…
        i, j = rng.randrange(len(data)), rng.randrange(len(data))
        data[i], data[j] = data[j], data[i]
    elif how == "cut":
        del data[rng.randrange(len(data)) :]
    elif how == "grow":
        data += bytes(rng.randrange(40) for _ in range(rng.randrange(1, 5)))
    elif how == "random":
        data = bytearray(rng.randbytes(rng.randrange(0, 48)))
    elif how == "other":
        data = bytearray(other)
    elif how == "empty":
        data = bytearray()
    else:
        data = bytearray(rng.choice((b"\x07", b"\x00", b"\xff")) * rng.choice((256, 4096)))
    return how, bytes(data)


def _mutate_field(
    rng: random.Random, message: Message, other: Message, descriptor: FieldDescriptor
) -> str:
    """Change one field of ``message``; return what was done."""
    name = descriptor.name
    if descriptor.message_type is not None:  # last_round, last_qayd
        how = rng.choice(("clear", "other", "sub", "sub", "sub"))
        if how == "clear":
            message.ClearField(name)
        elif how == "other":
            getattr(message, name).CopyFrom(getattr(other, name))
        else:
            sub = getattr(message, name)
            inner = rng.choice(sub.DESCRIPTOR.fields)
            return f"{name}.{_mutate_field(rng, sub, getattr(other, name), inner)}"
        return f"{name}:{how}"
    if descriptor.is_repeated:
        values = list(getattr(message, name))
        how = rng.choice(("set", "append", "drop", "other"))
        if how == "set" and values:
            values[rng.randrange(len(values))] = _int_value(rng, descriptor)
        elif how == "append":
            values.append(_int_value(rng, descriptor))
        elif how == "drop" and values:
            values.pop(rng.randrange(len(values)))
        else:
            how, values = "other", list(getattr(other, name))
        del getattr(message, name)[:]
        getattr(message, name).extend(values)
        return f"{name}:{how}"
    if descriptor.type == FieldDescriptor.TYPE_BOOL:
        setattr(message, name, not getattr(message, name))
        return f"{name}:flip"
    if descriptor.type == FieldDescriptor.TYPE_BYTES:
        how, value = _bytes_value(rng, getattr(message, name), getattr(other, name))
        setattr(message, name, value)
        return f"{name}:{how}"
    if descriptor.type == FieldDescriptor.TYPE_STRING:
        setattr(message, name, rng.choice(("", "x", "x" * 300, getattr(other, name))))
        return f"{name}:text"
    if rng.random() < 0.25:
        setattr(message, name, getattr(other, name))
        return f"{name}:other"
    if rng.random() < 0.3:  # one more or one less: the nearest impossible values
        value = getattr(message, name) + rng.choice((-1, 1))
        unsigned = descriptor.type not in (FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_INT32)
        if not unsigned or value >= 0:
            setattr(message, name, min(value, 2**31 - 1))
            return f"{name}:nudge"
    setattr(message, name, _int_value(rng, descriptor))
    return f"{name}:value"


FORGED_FIELDS: Final = tuple(f for f in STATE.fields if f.name not in ("layout", "seed"))


def forge(rng: random.Random, base: Base, bases: Sequence[Base]) -> tuple[str, bytes]:
    """A forged plaintext of ``base`` and the kind of forgery."""
    message = base.message()
    other = rng.choice(bases).message()
    if rng.random() < 0.12:  # a Sun with a Baloot announced, perhaps with more changed
        sun = Contract(ContractType.SUN, -1, rng.randrange(4))
        message.contract = encode_contract(sun)
        message.baloot_announced = True
        kind = "baloot_in_sun"
        if rng.random() < 0.5:
            _mutate_field(rng, message, other, rng.choice(FORGED_FIELDS))
            kind += "+1"
        return kind, message.SerializeToString()
    count = rng.choice((1, 1, 1, 2, 3))
    done = [_mutate_field(rng, message, other, rng.choice(FORGED_FIELDS)) for _ in range(count)]
    kind = done[0].partition(":")[0] if count == 1 else f"{count} fields"
    return kind, message.SerializeToString()


# -- sending ----------------------------------------------------------------------------------


def _enum(value: int) -> Any:
    """An enum field's number as its generated type wants it."""
    return value


def calls_for(base: Base, token: bytes, rng: random.Random) -> list[tuple[str, Any]]:
    """Two or three requests carrying ``token``, for the RPCs that take one."""
    view = base.view
    seat = view.turn if view.HasField("turn") and 0 <= view.turn < 4 else rng.randrange(4)
    hand = base.hands[seat] or (rng.randrange(32),)
    common = {"state": token, "match_id": base.match_id}
    acting = {**common, "credential": base.host, "seat": seat}
    played = base.played or ((rng.randrange(4), 1, rng.randrange(32)),)
    accused, trick, card = rng.choice(played)
    builders: list[tuple[str, Callable[[], Any]]] = [
        ("GetView host", lambda: pb.GetViewRequest(credential=base.host, **common)),
        ("GetView seat", lambda: pb.GetViewRequest(credential=base.seats[seat], **common)),
        ("GetView spectator", lambda: pb.GetViewRequest(credential=base.spectator, **common)),
        ("ListLegalActions", lambda: pb.ListLegalActionsRequest(**acting)),
        ("GetScore", lambda: pb.GetScoreRequest(credential=base.host, **common)),
        ("SuggestAction", lambda: pb.SuggestActionRequest(level=pb.BOT_LEVEL_BASIC, **acting)),
        ("ApplyBotAction", lambda: pb.ApplyBotActionRequest(level=pb.BOT_LEVEL_BASIC, **acting)),
        ("DealRound", lambda: pb.DealRoundRequest(**{**acting, "seat": view.dealer % 4})),
        (
            "PlaceBid",
            lambda: pb.PlaceBidRequest(
                bid=types_pb2.Bid(kind=_enum(rng.randrange(1, 6)), suit=_enum(rng.randrange(5))),
                **acting,
            ),
        ),
        (
            "CallDouble",
            lambda: pb.CallDoubleRequest(
                doubling=types_pb2.Doubling(call=_enum(rng.randrange(1, 6))), **acting
            ),
        ),
        (
            "DeclareProjects",
            lambda: pb.DeclareProjectsRequest(
                declaration=types_pb2.Declaration(kinds=[_enum(rng.randrange(1, 6))]), **acting
            ),
        ),
        (
            "PlayCard",
            lambda: pb.PlayCardRequest(
                play=types_pb2.CardPlay(card=rng.choice(hand), sawa=rng.random() < 0.05), **acting
            ),
        ),
        (
            "CallQayd",
            lambda: pb.CallQaydRequest(
                call=types_pb2.QaydCall(accused=accused, trick=trick, card=card),
                **{**acting, "seat": (accused + 1) % 4},
            ),
        ),
        (
            "CallQayd close",
            lambda: pb.CallQaydRequest(close_review=True, credential=base.host, **common),
        ),
    ]
    chosen = rng.sample(builders, rng.choice((2, 3)))
    if rng.random() < 0.5 and all(name != "GetView host" for name, _ in chosen):
        chosen[0] = builders[0]  # GetView, where the Baloot in a Sun once failed, half the time
    return [(name, build()) for name, build in chosen]


@dataclass
class Campaign:
    """The counts of one campaign."""

    requests: int = 0
    by_code: Counter[str] = field(default_factory=Counter)
    by_rpc: dict[str, Counter[str]] = field(default_factory=dict)
    by_kind: dict[str, Counter[str]] = field(default_factory=dict)
    reasons: Counter[str] = field(default_factory=Counter)
    faults: list[dict[str, Any]] = field(default_factory=list)


def send(stub: Any, name: str, request: Any) -> tuple[str, str]:
    """Send ``request``; the status code name and the refusal's reason (if any)."""
    method = getattr(stub, name.partition(" ")[0])
    try:
        method(request, timeout=30)
    except grpc.RpcError as error:
        code = error.code().name
        if code in SERVER_FAULTS:
            return code, str(error.details())[:200]
        return code, EngineError.from_rpc_error(error).reason or str(error.details())[:60]
    return "OK", ""


def run_campaign(
    client: EngineClient, bases: Sequence[Base], keys: KeyRing, args: argparse.Namespace
) -> Campaign:
    """Forge and send until ``args.requests`` requests were sent."""
    rng = random.Random(args.seed)
    campaign = Campaign()
    interval = 1.0 / args.rate
    next_at = time.monotonic()
    started = time.monotonic()
    while campaign.requests < args.requests:
        base = rng.choice(bases)
        kind, plaintext = forge(rng, base, bases)
        token = keys.seal(plaintext, bytes.fromhex(base.match_id))
        for name, request in calls_for(base, token, rng):
            now = time.monotonic()
            if next_at > now:
                time.sleep(next_at - now)
            next_at = max(next_at, now - 1.0) + interval
            code, reason = send(client.stub, name, request)
            campaign.requests += 1
            campaign.by_code[code] += 1
            campaign.by_rpc.setdefault(name, Counter())[code] += 1
            campaign.by_kind.setdefault(kind, Counter())[code] += 1
            if code != "OK":
                campaign.reasons[f"{code} {reason}"] += 1
            if code in SERVER_FAULTS:
                campaign.faults.append(
                    {
                        "rpc": name,
                        "code": code,
                        "reason": reason,
                        "kind": kind,
                        "base": base.label,
                        "plaintext": plaintext.hex(),
                        "request": request.SerializeToString().hex(),
                    }
                )
        if campaign.requests % 5000 < 3:
            print(
                f"forge: {campaign.requests:,} requests in {time.monotonic() - started:.0f} s: "
                + ", ".join(f"{c} {n:,}" for c, n in campaign.by_code.most_common()),
                flush=True,
            )
    return campaign


def table(title: str, counts: dict[str, Counter[str]]) -> list[str]:
    """Counts by row and status code."""
    codes = sorted({code for row in counts.values() for code in row})
    lines = [f"  {title:<24}" + "".join(f"{code[:18]:>20}" for code in codes)]
    for name, row in sorted(counts.items()):
        lines.append(f"  {name[:24]:<24}" + "".join(f"{row.get(c, 0):>20,}" for c in codes))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the campaign; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m loadtest.forge", description=__doc__)
    parser.add_argument("--requests", type=int, default=30_000)
    parser.add_argument("--rate", type=float, default=150.0, help="requests a second at most")
    parser.add_argument("--matches", type=int, default=24, help="matches played for bases")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faults", type=Path, default=Path("forge-faults.jsonl"))
    parser.add_argument("--logs", type=Path, help="keep the server's log here")
    args = parser.parse_args(argv)
    if not 0 < args.requests <= 1_000_000 or not 0 < args.rate <= 2000:
        parser.error("a run is bounded: 0 < --requests <= 1000000, 0 < --rate <= 2000")
    key = new_state_key()
    keys = KeyRing.from_texts([key])
    with tempfile.TemporaryDirectory(prefix="baloot-forge-") as scratch:
        service = start_service(args.logs or Path(scratch), key=key, log_level="warning")
        channel = grpc.insecure_channel(service.target)
        try:
            client = EngineClient(channel, timeout=30)
            started = time.monotonic()
            bases = collect_bases(client, keys, random.Random(args.seed), args.matches)
            phases = Counter(b.label for b in bases)
            print(
                f"forge: {len(bases)} base tokens from {args.matches} matches in "
                f"{time.monotonic() - started:.0f} s (preset/phase: "
                + ", ".join(f"{k} {v}" for k, v in sorted(phases.items()))
                + ")",
                flush=True,
            )
            campaign = run_campaign(client, bases, keys, args)
            serving = service.serving()
        finally:
            channel.close()
            service.child.stop()
        log = service.child.log_text()
    tracebacks = log.count("Traceback")
    print(
        f"forge: {campaign.requests:,} requests; status codes: "
        + ", ".join(f"{c} {n:,}" for c, n in campaign.by_code.most_common())
    )
    print("\n".join(table("by RPC", campaign.by_rpc)))
    print("\n".join(table("by forgery", campaign.by_kind)))
    print("refusals by reason (top 15):")
    for reason, count in campaign.reasons.most_common(15):
        print(f"  {count:>8,}  {reason}")
    print(f"server log: {tracebacks} tracebacks; serving at the end: {serving}")
    if campaign.faults:
        with args.faults.open("w", encoding="utf-8") as out:
            for fault in campaign.faults:
                out.write(json.dumps(fault) + "\n")
        print(f"forge: FAIL, {len(campaign.faults)} server faults written to {args.faults}")
        return 1
    if tracebacks or not serving:
        print("forge: FAIL (a traceback in the server log, or it stopped serving)")
        return 1
    print("forge: PASS (no INTERNAL, UNKNOWN or DATA_LOSS; no traceback; still serving)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
