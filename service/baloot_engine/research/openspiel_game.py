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
the completion of the deal).

Differences from the PettingZoo environment: none in the actions and tensors. Only the seat on
turn acts; a Sawa claim that is refused (``false_sawa = refused``) changes nothing and is not
offered again to that seat in the same trick, which bounds the game's length.
"""

from __future__ import annotations

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
    SEGMENTS,
    Encoder,
    action_name,
    describe,
)
from baloot_engine.rules import errors
from baloot_engine.rules.actions import Action, ClaimSawa, Deal
from baloot_engine.rules.cards import format_card
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.observation import Observation, observe, observe_public
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.state import State

GAME_NAME = "python_baloot"
PARAMETERS: dict[str, Any] = {
    "preset": "seeds",
    "flags": "",
    "dealer": 0,
    "score_0": 0,
    "score_1": 0,
}
"""The game's parameters and their defaults."""
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
        self.over = False
        self.final_returns = [0.0, 0.0, 0.0, 0.0]
        self.refused: tuple[int, int] | None = None  # (trick number, seat) of a refused Sawa

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
                self.core, _ = apply(core, core.dealer, Deal(tuple(self.deck)))
                self.deck = []
            return
        core = self.core
        seat = core.turn
        try:
            self.core, events = apply(core, seat, ACTIONS[action])
        except RuleError as error:
            if error.reason != errors.SAWA_INVALID:
                raise
            self.refused = (len(core.tricks), seat)
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

    # ---- helpers ---------------------------------------------------------------------------

    def core_legal_actions(self, player: int) -> list[Action]:
        """The rules core's legal actions of ``player`` on turn (a refused Sawa left out)."""
        core = self.core
        if self.over or player != core.turn or core.phase in DEALING:
            return []
        actions = legal_actions(core, player)
        if self.refused == (len(core.tricks), player):
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
        """``state`` as ``player`` sees it, as one line of text."""
        return describe(self._observation(state, player), player)


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
