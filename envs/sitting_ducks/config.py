"""Sitting Ducks Gallery ``Config``: every option of the rules spec (§13), validated."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardzoo.envs.core import check_int_range, check_option, normalize_config, plain_scalar
from cardzoo.envs.sitting_ducks.data import (
    CARD_KEYS,
    DEFAULT_ACTION_COUNTS,
    MAX_ACTION_CARDS,
    MIN_ACTION_CARDS_PER_PLAYER,
    MODES,
    NUM_KINDS,
    STANDARD_PLAYERS,
    TEAM_PLAYERS,
)


@dataclass(frozen=True)
class Config:
    """Every rule option of the Sitting Ducks Gallery rules spec (§13), with its default.

    ``action_deck_counts`` may be given as 16 counts (card kinds 0..15 of spec §2.1), as a dict
    ``{kind or name: count}`` overriding the defaults (names in snake_case: ``"quick_shot"``), or
    as a string ``"quick_shot:2,shoot:11"`` (handy on the command line). It is stored as a tuple
    of 16 counts. The deck must hold at least 4 cards per player (so every hand refills) and at
    most 127 (int8 observations).
    """

    num_players: int = 3
    mode: str = "standard"
    points_games: int = 0
    action_deck_counts: Any = DEFAULT_ACTION_COUNTS
    observe_duck_deck_bottom: bool = False
    max_turns: int = 1000

    def __post_init__(self) -> None:
        normalize_config(self)
        check_option("mode", self.mode, MODES)
        _check_num_players(self.num_players, self.mode)
        check_int_range("points_games", self.points_games, 0)
        if self.points_games and self.mode != "standard":
            raise ValueError(
                f"option 'points_games' (the points variant) needs mode='standard', "
                f"got mode={self.mode!r}"
            )
        check_option("observe_duck_deck_bottom", self.observe_duck_deck_bottom, [False, True])
        check_int_range("max_turns", self.max_turns, 1)
        counts = _action_counts(self.action_deck_counts)
        low = MIN_ACTION_CARDS_PER_PLAYER * self.num_players
        if not low <= sum(counts) <= MAX_ACTION_CARDS:
            raise ValueError(
                f"option 'action_deck_counts' must total {low}..{MAX_ACTION_CARDS} cards with "
                f"{self.num_players} players, got {sum(counts)}"
            )
        object.__setattr__(self, "action_deck_counts", counts)

    @property
    def num_colours(self) -> int:
        """Colours in play: one per seat, or two per seat in two-player team mode (§9)."""
        return 4 if self.mode == "team" and self.num_players == 2 else self.num_players


def _check_num_players(value: Any, mode: str) -> None:
    """Raise ``ValueError`` naming the player counts ``mode`` allows unless ``value`` is one.

    The counts differ by mode (team play needs 2, 4 or 6), so the message gives the chosen
    mode's counts, never the union over all modes.
    """
    allowed = TEAM_PLAYERS if mode == "team" else STANDARD_PLAYERS
    shown = ", ".join(map(str, allowed))
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(
            f"option 'num_players' must be an int, one of {shown} with mode={mode!r}; got {value!r}"
        )
    if value not in allowed:
        raise ValueError(
            f"invalid value {value!r} for option 'num_players' with mode={mode!r}; allowed: {shown}"
        )


def _action_counts(value: Any) -> tuple[int, ...]:
    """``action_deck_counts`` as 16 counts (see :class:`Config`)."""
    if isinstance(value, str):
        pairs = {}
        for part in value.split(","):
            if not part.strip():
                continue
            key, sep, count = part.partition(":")
            if not sep:
                raise ValueError(
                    f"option 'action_deck_counts': expected 'name:count' items, got {part!r}"
                )
            try:
                pairs[key.strip()] = int(count)
            except ValueError:
                raise ValueError(
                    f"option 'action_deck_counts': count of {key.strip()!r} must be an int, "
                    f"got {count!r}"
                ) from None
        value = pairs
    if isinstance(value, dict):
        counts = list(DEFAULT_ACTION_COUNTS)
        for key, count in value.items():
            counts[_kind(key)] = _count(key, count)
        return tuple(counts)
    try:
        items = [plain_scalar(v) for v in value]
    except TypeError:
        raise ValueError(
            f"option 'action_deck_counts' must be 16 counts, a dict or a string, got {value!r}"
        ) from None
    if len(items) != NUM_KINDS:
        raise ValueError(f"option 'action_deck_counts' needs {NUM_KINDS} counts, got {len(items)}")
    return tuple(_count(CARD_KEYS[k], c) for k, c in enumerate(items))


def _kind(key: Any) -> int:
    key = plain_scalar(key)
    if isinstance(key, str) and key.strip().lower() in CARD_KEYS:
        return CARD_KEYS.index(key.strip().lower())
    if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < NUM_KINDS:
        return key
    raise ValueError(
        f"option 'action_deck_counts': unknown card {key!r}; cards: {', '.join(CARD_KEYS)} "
        f"(or kinds 0..{NUM_KINDS - 1})"
    )


def _count(key: Any, count: Any) -> int:
    count = plain_scalar(count)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(
            f"option 'action_deck_counts': count of {key!r} must be an int >= 0, got {count!r}"
        )
    return count
