"""Baloot as an OpenSpiel game, ``python_baloot``, registered with pyspiel on import.

    import pyspiel
    import baloot_engine.research.openspiel_game  # registers the game

    game = pyspiel.load_game("python_baloot", {"preset": "kammelna"})

A game is one deal of a match: four players (the rules core's seats), imperfect information,
chance nodes for the deal (the deck order, one card at a time: 32 chance nodes, each uniform
over the cards not yet placed; the rules core deals the deck by R4), then the bidding, the
doubling, the declarations and the play, with the actions of
:data:`~baloot_engine.research.encoding.ACTIONS`. It ends when the deal is scored: each
player's return is its team's game points minus the other team's (a Gahwa counts the match
target; zero-sum), or when the deal is cancelled (all passed twice, or a Kawesh: returns 0).

Parameters: ``preset`` (seeds, kammelna, federation), ``flags`` (single rule flags over the
preset, ``"name:value;name:value"``, e.g. ``"sawa:true;match_target:101"``: OpenSpiel's game
strings keep commas and equals signs for themselves), ``dealer`` (0-3)
and ``score_0``/``score_1`` (the match totals before the deal, which some rules consult).

Observation and information state: the tensor and the string of
:mod:`~baloot_engine.research.encoding`, built from the rules core's observation of the player
(:func:`~baloot_engine.rules.observation.observe`); the public observer
(``private_info = NONE``) encodes :func:`~baloot_engine.rules.observation.observe_public`. The
observation already holds the whole public history of the deal and the player's hand, so the
information state is the same tensor (it does not record which of the player's cards came at
the completion of the deal). The strings also name the Sawa claims refused so far (each is
heard by all, and says the claimant's team could not take every trick left), which the tensor
does not hold.

Differences from the PettingZoo environment: none in the actions and tensors. Only the seat on
turn acts; a Sawa claim that is refused (``false_sawa = refused``) changes nothing but the
strings and is not offered again to that seat in the same trick, which bounds the game's
length (claiming it again there is refused with ValueError).

:meth:`BalootState.resample_from_infostate` deals the cards hidden from a player again, so
OpenSpiel's information-set search runs: ``open_spiel.python.algorithms.ismcts.ISMCTSBot``.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel

from baloot_engine.bots import ExpertBudget, Level
from baloot_engine.bots.expert import DEFAULT_EXPERT_BUDGET
from baloot_engine.bots.search import DEFAULT_BUDGET, Budget
from baloot_engine.research.agents import BotAgent
from baloot_engine.research.core import (
    DEALING,
    make_rules,
    redealt,
    round_bound,
    round_rewards,
    scored_round,
)
from baloot_engine.research.encoding import (
    ACTION_INDEX,
    ACTIONS,
    MAX_BIDS,
    MAX_CALLS,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    SAWA_INDEX,
    SEGMENTS,
    Encoder,
    action_name,
    describe,
)
from baloot_engine.research.worlds import draw_hands, spent_by_seat
from baloot_engine.rules import errors
from baloot_engine.rules.actions import Action, ClaimSawa, Deal
from baloot_engine.rules.cards import format_card
from baloot_engine.rules.dealing import REVEALED_INDEX
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.observation import Observation, observe, observe_public
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.state import Phase, State

GAME_NAME = "python_baloot"
PARAMETERS: dict[str, Any] = {
    "preset": "seeds",
    "flags": "",
    "dealer": 0,
    "score_0": 0,
    "score_1": 0,
}
"""The game's parameters and their defaults."""
RESAMPLE_TRIES = 200
"""Draws :meth:`BalootState.resample_from_infostate` makes before it gives up."""
MAX_GAME_LENGTH = 32 + MAX_BIDS + MAX_CALLS + 4 + 32 + 8
"""Chance nodes of the deal, bids, doubling calls, declarations, cards, refused Sawa claims."""

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Baloot (baloot-engine, Python)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def parse_flags(text: str) -> dict[str, object]:
    """``"sawa:true;match_target:101"`` as plain flag values (booleans, integers, names)."""
    flags: dict[str, object] = {}
    for item in text.split(";"):
        if not item.strip():
            continue
        name, sep, raw = item.partition(":")
        if not sep:
            raise ValueError(f"a flag is name:value, got {item!r}")
        value = raw.strip()
        lowered = value.lower()
        if lowered in ("true", "false"):
            flags[name.strip()] = lowered == "true"
        elif value.lstrip("-").isdigit():
            flags[name.strip()] = int(value)
        else:
            flags[name.strip()] = value
    return flags


class BalootGame(pyspiel.Game):  # type: ignore[misc]
    """The game (see the module's documentation)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        values = {**PARAMETERS, **(params or {})}
        self.rules: RuleSet = make_rules(str(values["preset"]), parse_flags(str(values["flags"])))
        self.dealer = int(values["dealer"])
        self.scores = (int(values["score_0"]), int(values["score_1"]))
        bound = round_bound(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=32,
            num_players=4,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self) -> BalootState:
        """A new deal: its chance nodes come first."""
        return BalootState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> BalootObserver:
        """The observer of the observation (default) or information-state tensors and strings."""
        return BalootObserver(iig_obs_type, params)


class BalootState(pyspiel.State):  # type: ignore[misc]
    """One deal in progress; ``core`` is the rules core's state."""

    def __init__(self, game: BalootGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.core: State = new_match(game.rules, game.dealer, game.scores)
        self.deck: list[int] = []
        self.dealt: tuple[int, ...] = ()  # the deck order of the deal, once dealt
        self.over = False
        self.final_returns = [0.0, 0.0, 0.0, 0.0]
        self.refused: list[tuple[int, int]] = []  # (trick number, seat) of each refused Sawa

    # ---- the pyspiel.State interface -------------------------------------------------------

    def current_player(self) -> int:
        if self.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.core.phase in DEALING:
            return int(pyspiel.PlayerId.CHANCE)
        return self.core.turn

    def _legal_actions(self, player: int) -> list[int]:
        index = ACTION_INDEX
        return sorted(index[action] for action in self.core_legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        placed = set(self.deck)
        left = [card for card in range(32) if card not in placed]
        probability = 1.0 / len(left)
        return [(card, probability) for card in left]

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            self.deck.append(action)
            if len(self.deck) == 32:
                core = self.core
                self.dealt = tuple(self.deck)
                self.core, _ = apply(core, core.dealer, Deal(self.dealt))
                self.deck = []
            return
        core = self.core
        seat = core.turn
        claim = (len(core.tricks), seat)
        if action == SAWA_INDEX and claim in self.refused:
            raise ValueError(f"seat {seat}'s Sawa claim was refused in this trick already")
        try:
            self.core, events = apply(core, seat, ACTIONS[action])
        except RuleError as error:
            if error.reason != errors.SAWA_INVALID:
                raise
            self.refused = [*self.refused, claim]
            return
        score = scored_round(events)
        if score is not None:
            self.final_returns = list(round_rewards(score, self.rules))
            self.over = True
        elif redealt(events):
            self.over = True

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {format_card(action)}"
        return action_name(action)

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        return list(self.final_returns)

    def __str__(self) -> str:
        hands = " ".join(f"{seat}:{self.core.hands[seat]:08x}" for seat in range(4))
        return f"{describe(observe_public(self.core), 0)} | hands {hands}"

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> BalootState:
        """A state ``player_id`` cannot tell from this one: the same information state, the
        cards hidden from the player dealt again at random among the deals consistent with
        everything the player saw (as the bots sample their worlds).

        ``probability_sampler`` is called once (a ``pyspiel.UniformProbabilitySampler``, or
        any callable giving a number in [0, 1)), to seed the draw. The other seats' hands are
        drawn by :func:`~baloot_engine.research.worlds.draw_hands` (the bots' card tracking:
        hand sizes, the cards seen in a hand, the cards a seat showed it cannot hold; and the
        declared projects), the player's own cards keep their places in the deck order, and
        the whole deal is replayed from the new deck order with the actions of this one. A
        draw under which an action would not be legal, or the player would see anything else
        (another outcome of the projects' comparison, a refused Sawa claim that would stand),
        is drawn again. A terminal state, where nothing is left to decide, is returned as a
        copy.
        """
        rng = random.Random(int(float(probability_sampler()) * 2**53))
        if self.over:
            return self.clone()  # type: ignore[no-any-return]
        game = self.get_game()
        if self.core.phase in DEALING:  # the deal is under way: nobody has seen a card
            state: BalootState = game.new_initial_state()
            for card in rng.sample(range(32), len(self.deck)):
                state.apply_action(card)
            return state
        seen = observe(self.core, player_id)
        actions = self.history()[32:]
        for _ in range(RESAMPLE_TRIES):
            deck = self._consistent_deck(player_id, seen, rng)
            if deck is None:
                continue  # the drawn hands do not fill the deck (facts the draw relaxed)
            state = game.new_initial_state()
            try:
                for step in (*deck, *actions):
                    state.apply_action(step)
            except RuleError:
                continue  # an action the drawn hands make illegal
            if not state.over and observe(state.core, player_id) == seen:
                return state
        raise RuntimeError(
            f"no deal consistent with player {player_id}'s information state was drawn in "
            f"{RESAMPLE_TRIES} tries"
        )

    # ---- helpers ---------------------------------------------------------------------------

    def _consistent_deck(
        self, player: int, seen: Observation, rng: random.Random
    ) -> tuple[int, ...] | None:
        """A deck order under which ``player`` holds and has played the same cards, at the
        same places of the deck, and the other seats hold cards drawn to fit what it saw
        (None when the drawn hands do not fit the places)."""
        core = self.core
        true_deck = self.dealt
        spent = spent_by_seat(seen)
        held = [core.hands[seat] | spent[seat] for seat in range(4)]
        places: list[list[int]] = [[], [], [], []]
        stock: list[int] = []  # places of cards in no hand yet (the stock, a delayed deal)
        for place, card in enumerate(true_deck):
            if place == REVEALED_INDEX:
                continue
            owner = next((seat for seat in range(4) if held[seat] >> card & 1), -1)
            (stock if owner < 0 else places[owner]).append(place)
        buy = true_deck[REVEALED_INDEX]
        deck = [-1] * 32
        deck[REVEALED_INDEX] = buy
        for place in places[player]:
            deck[place] = true_deck[place]
        left: list[int] = []  # cards still to place, in the stock's places
        if core.phase is Phase.BIDDING:
            for seat in range(4):
                if seat != player:
                    stock.extend(places[seat])
            left = [card for card in range(32) if card not in deck]
        else:
            world = draw_hands(seen, rng)
            for seat in range(4):
                cards = [c for c in range(32) if (world[seat] | spent[seat]) >> c & 1]
                cards = [c for c in cards if c != buy and c not in deck]
                if seat != player:
                    if len(cards) < len(places[seat]):
                        return None
                    rng.shuffle(cards)
                    for place in places[seat]:
                        deck[place] = cards.pop()
                left.extend(cards)  # a delayed deal's cards, still in the stock
        if len(left) != len(stock) or set(left) & set(deck):
            return None
        rng.shuffle(left)
        for place, card in zip(stock, left, strict=True):
            deck[place] = card
        return tuple(deck)

    def core_legal_actions(self, player: int) -> list[Action]:
        """The rules core's legal actions of ``player`` on turn (a refused Sawa left out)."""
        core = self.core
        if self.over or player != core.turn or core.phase in DEALING:
            return []
        actions = legal_actions(core, player)
        if (len(core.tricks), player) in self.refused:
            actions = [action for action in actions if type(action) is not ClaimSawa]
        return actions


class BalootObserver:
    """Tensor and string of one player's observation (a PyObserver, as pyspiel expects)."""

    def __init__(self, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"the observer takes no parameters, got {params}")
        private = (
            pyspiel.PrivateInfoType.SINGLE_PLAYER
            if iig_obs_type is None
            else iig_obs_type.private_info
        )
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observers see one seat's cards, or none: not all players'")
        self.private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.encode = Encoder()  # it checks its cache against each state it is given
        self.tensor: npt.NDArray[np.float32] = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict = {
            segment.name: self.tensor[segment.offset : segment.offset + segment.size]
            for segment in SEGMENTS
        }

    def _observation(self, state: BalootState, player: int) -> Observation:
        return observe(state.core, player) if self.private else observe_public(state.core)

    def set_from(self, state: BalootState, player: int) -> None:
        """Fill :attr:`tensor` with ``state`` as ``player`` sees it."""
        self.tensor[:] = self.encode(self._observation(state, player), player)

    def string_from(self, state: BalootState, player: int) -> str:
        """``state`` as ``player`` sees it, as one line of text (with the refused claims)."""
        text = describe(self._observation(state, player), player)
        if state.refused:
            claims = ", ".join(f"{seat} in trick {trick + 1}" for trick, seat in state.refused)
            text += f" | sawa refused [{claims}]"
        return text


class BalootBot(pyspiel.Bot):  # type: ignore[misc]
    """A bot of this package (RANDOM, BASIC, STRONG, EXPERT) as a ``pyspiel.Bot`` of one player."""

    def __init__(
        self,
        player: int,
        level: Level | str,
        seed: int | None = None,
        *,
        budget: Budget = DEFAULT_BUDGET,
        expert: ExpertBudget = DEFAULT_EXPERT_BUDGET,
    ) -> None:
        pyspiel.Bot.__init__(self)
        self.player = player
        self.agent = BotAgent(level, seed, budget=budget, expert=expert)

    def step(self, state: BalootState) -> int:
        """The bot's action in ``state`` (the player is on turn)."""
        return self.agent.act(state.core, self.player)

    def restart_at(self, state: BalootState) -> None:
        """Nothing to forget: the bot decides from the state it is given."""

    def inform_action(self, state: BalootState, player_id: int, action: int) -> None:
        """Nothing to track: the bot decides from the state it is given."""


def bot(
    player: int,
    level: Level | str,
    seed: int | None = None,
    *,
    budget: Budget = DEFAULT_BUDGET,
    expert: ExpertBudget = DEFAULT_EXPERT_BUDGET,
) -> BalootBot:
    """A bot of one level for ``player`` (0-3)."""
    return BalootBot(player, level, seed, budget=budget, expert=expert)


def load_game(**params: Any) -> BalootGame:
    """``pyspiel.load_game("python_baloot", params)``, typed."""
    game: BalootGame = pyspiel.load_game(GAME_NAME, params)
    return game


pyspiel.register_game(_GAME_TYPE, BalootGame)
