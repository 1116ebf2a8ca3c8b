"""Cubirds game data: the eight species, their card counts and flock sizes (rules spec §2), the
phases of a turn, the end reasons and the tags of the hidden-card log.

This is the only place these numbers live; the engine, encoder, heuristic and docs read them here.
"""

from __future__ import annotations

SPECIES_NAMES: tuple[str, ...] = (
    "Pink Flamingo",
    "Owl",
    "Toucan",
    "Duck",
    "Parrot",
    "Magpie",
    "Reed Warbler",
    "Robin",
)
#: One-letter codes used in the rules spec's worked examples and in renders.
SPECIES_LETTERS: str = "FOTDPMWR"
#: Cards of each species in the 110-card deck.
CARD_COUNTS: tuple[int, ...] = (7, 10, 10, 13, 13, 17, 20, 20)
#: Hand count needed to complete a small flock (1 card banked).
SMALL_FLOCK: tuple[int, ...] = (2, 3, 3, 4, 4, 5, 6, 6)
#: Hand count needed to complete a big flock (2 cards banked).
BIG_FLOCK: tuple[int, ...] = (3, 4, 4, 6, 6, 7, 9, 9)

NUM_SPECIES = 8
NUM_ROWS = 4
TOTAL_CARDS = sum(CARD_COUNTS)  # 110
HAND_SIZE = 8  # cards dealt to each player per round
ROW_SETUP_SIZE = 3  # distinct species per row at setup
DRAW_OPTION_CARDS = 2  # the optional draw after a lay that captured nothing
MIN_PLAYERS, MAX_PLAYERS = 2, 5

#: Win conditions (spec §4.3): >= 1 card in 7 species, or >= 3 cards in each of 2 species.
WIN_SPECIES_PRESENT = 7
WIN_TRIPLE_SIZE = 3
WIN_TRIPLES = 2

assert TOTAL_CARDS == 110

#: Every card kind (species) in every zone adds up to these counts.
CARD_TOTALS: list[int] = list(CARD_COUNTS)

# Phases of a turn.
LAY_PHASE, DRAW_PHASE, FLOCK_PHASE, GAME_OVER = 0, 1, 2, 3
PHASE_NAMES = ("lay", "draw", "flock", "game over")

# Why the game ended.
END_WIN = "win"
END_FAILED_DEAL = "failed_deal"
END_EXHAUSTION = "exhaustion"

#: Tags of the events in ``State.log``, the record of moved hidden cards that ``determinize``
#: replays (described in :mod:`cardzoo.envs.cubirds.hidden`).
EV_SOURCE, EV_RESHUFFLE, EV_BATCH, EV_PUBLIC, EV_CLOSE, EV_ROUND_END = range(6)
