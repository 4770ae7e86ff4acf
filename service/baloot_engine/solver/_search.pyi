# The compiled search (_search.c): one deal's positions, valued as 9 * points + tricks.
from collections.abc import Sequence

class Deal:
    def __init__(
        self,
        *,
        trump: int,
        closed: bool,
        overtrump_partner: bool,
        undertrump_required: bool,
        partner_rule: int,
        akka_declared: bool,
        team: int,
        points: Sequence[int],
        strength: Sequence[int],
        higher: Sequence[int],
        higher_sun: Sequence[int],
    ) -> None: ...
    @property
    def nodes(self) -> int: ...
    def value(
        self,
        hands: Sequence[int],
        trick: Sequence[int],
        leader: int,
        played: int,
        akka: bool,
        max_nodes: int = 0,
        deadline: float = 0.0,
        alpha: int = -1,
        beta: int = -1,
    ) -> int | None: ...
