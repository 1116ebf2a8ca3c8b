"""Odin's Ravens rule options (rules spec §13): the frozen :class:`Config` and its checks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardzoo.envs.core import (
    check_first_player,
    check_int_range,
    check_option,
    normalize_config,
)
from cardzoo.envs.odins_ravens.data import (
    FLIGHT_CARDS_PER_TYPE,
    LAND_CARDS,
    MAGIC_WAY_CARDS,
    MAX_FLIGHT_CARDS_PER_TYPE,
    MAX_ODIN_COPIES_PER_TYPE,
    NUM_LAND_CARDS,
    NUM_MAGIC_WAY_CARDS,
    NUM_ODIN,
    NUM_PAIRS,
    NUM_TYPES,
    ODIN_COPIES_PER_TYPE,
    PAIR_KIND,
)


def _pair_list(name: str, value: Any, count: int, symbols: int, distinct: bool) -> tuple:
    """Validate a make-up: ``count`` pairs of ints in ``0..symbols-1``; returns sorted pairs."""
    try:
        pairs = [tuple(int(x) for x in pair) for pair in value]
        raw = [tuple(pair) for pair in value]
    except (TypeError, ValueError):
        raise ValueError(f"option {name!r} must be a list of {count} pairs of ints") from None
    if len(pairs) != count or any(len(p) != 2 for p in pairs):
        raise ValueError(f"option {name!r} must be a list of {count} pairs, got {value!r}")
    for pair, given in zip(pairs, raw):
        if any(isinstance(x, bool) or float(x) != int(x) for x in given):
            raise ValueError(f"option {name!r}: {given!r} is not a pair of ints")
        if not all(0 <= x < symbols for x in pair):
            raise ValueError(f"option {name!r}: {given!r} has a value outside 0..{symbols - 1}")
        if distinct and pair[0] == pair[1]:
            raise ValueError(f"option {name!r}: {given!r} shows the same symbol twice")
    return tuple((min(p), max(p)) for p in pairs)


@dataclass(frozen=True)
class Config:
    """Every rule option of the Odin's Ravens rules spec (§13), with its documented default.

    ``land_cards`` (40 pairs of land types 0..4) and ``magic_way_cards`` (6 pairs of symbols
    0..5, 5 = the Odin picture) default to ``None``, meaning the make-up of §2; the validated
    config holds the sorted pairs. ``max_turns`` is the spec's ``max_turns_per_game``.
    """

    num_players: int = 2
    first_player: int | str = "random"
    land_cards: tuple[tuple[int, int], ...] | None = None
    flight_cards_per_type: int = FLIGHT_CARDS_PER_TYPE
    odin_copies_per_type: int = ODIN_COPIES_PER_TYPE
    magic_way_cards: tuple[tuple[int, int], ...] | None = None
    joker_requires_no_match: bool = False
    max_turns_per_race: int = 200
    max_turns: int = 2000

    def __post_init__(self) -> None:
        normalize_config(self)
        check_int_range("num_players", self.num_players, 2, 2)
        check_first_player(self.first_player, self.num_players)
        land = LAND_CARDS if self.land_cards is None else self.land_cards
        land = _pair_list("land_cards", land, NUM_LAND_CARDS, NUM_TYPES, distinct=False)
        object.__setattr__(self, "land_cards", land)
        ways = MAGIC_WAY_CARDS if self.magic_way_cards is None else self.magic_way_cards
        ways = _pair_list("magic_way_cards", ways, NUM_MAGIC_WAY_CARDS, 6, distinct=True)
        object.__setattr__(self, "magic_way_cards", ways)
        check_int_range(
            "flight_cards_per_type", self.flight_cards_per_type, 1, MAX_FLIGHT_CARDS_PER_TYPE
        )
        check_int_range(
            "odin_copies_per_type", self.odin_copies_per_type, 0, MAX_ODIN_COPIES_PER_TYPE
        )
        check_option("joker_requires_no_match", self.joker_requires_no_match, [False, True])
        check_int_range("max_turns_per_race", self.max_turns_per_race, 1)
        check_int_range("max_turns", self.max_turns, 1)

    @property
    def deck(self) -> list[int]:
        """One player's 33 cards (by default) as counts per kind."""
        return [self.flight_cards_per_type] * NUM_TYPES + [self.odin_copies_per_type] * NUM_ODIN

    @property
    def deck_size(self) -> int:
        return sum(self.deck)


def card_totals(config: Config) -> list[int]:
    """Cards per census kind: each seat's deck, the land cards by pair kind, each Magic Way card."""
    land = [0] * NUM_PAIRS
    for a, b in config.land_cards:
        land[PAIR_KIND[a][b]] += 1
    return config.deck * 2 + land + [1] * NUM_MAGIC_WAY_CARDS
