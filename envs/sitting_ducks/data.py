"""Sitting Ducks Gallery game data (rules spec §2): the only place these numbers live.

Action cards are identified by their **kind** 0..15 (the ids of the spec's table §2.1). Duck-deck
cards are small ints: a duck is its colour 0..5, ``WATER`` is 6; ``GAP`` (7) is not a card but
the content of a slot whose refill found the duck deck empty (§4).
"""

from __future__ import annotations

# Action card kinds (spec §2.1 ids).
TAKE_AIM = 0
SHOOT = 1
DOUBLE_BARREL = 2
QUICK_SHOT = 3
MISFIRE = 4
TWO_BIRDS = 5
BUMP_LEFT = 6
BUMP_RIGHT = 7
LINE_FORWARD = 8
MOVE_AHEAD = 9
HANG_BACK = 10
FAST_FORWARD = 11
DISORDERLY_CONDUCKT = 12
DUCK_SHUFFLE = 13
DUCK_AND_COVER = 14
BOTTOMS_UP = 15

NUM_KINDS = 16

#: English card names, indexed by kind.
CARD_NAMES: tuple[str, ...] = (
    "Take Aim",
    "Shoot",
    "Double Barrel",
    "Quick Shot",
    "Misfire",
    "Two Birds",
    "Bump Left",
    "Bump Right",
    "Line Forward",
    "Move Ahead",
    "Hang Back",
    "Fast Forward",
    "Disorderly Conduckt",
    "Duck Shuffle",
    "Duck and Cover",
    "Bottoms Up",
)
#: snake_case keys accepted by ``action_deck_counts`` (e.g. ``{"quick_shot": 2}``).
CARD_KEYS: tuple[str, ...] = tuple(n.lower().replace(" ", "_") for n in CARD_NAMES)

#: Default action deck (spec §2.1, a Decision): 52 cards.
DEFAULT_ACTION_COUNTS: tuple[int, ...] = (10, 12, 1, 1, 2, 1, 2, 2, 6, 3, 3, 1, 2, 1, 2, 3)

#: Cards whose legality depends on which ducks are the player's ("your duck", spec §6).
OWN_DUCK_CARDS: tuple[int, ...] = (MOVE_AHEAD, HANG_BACK, FAST_FORWARD, DUCK_AND_COVER)

# Duck deck.
NUM_SLOTS = 6
NUM_TARGETS = 6
DUCKS_PER_COLOUR = 6  # one marker in front of the player + 5 in the duck deck
DECK_DUCKS_PER_COLOUR = 5
NUM_WATER = 5
WATER = 6
GAP = 7
NONE = -1

COLOUR_NAMES: tuple[str, ...] = ("red", "blue", "green", "yellow", "purple", "orange")
COLOUR_LETTERS: tuple[str, ...] = ("R", "B", "G", "Y", "P", "O")
WATER_LETTER = "~"
GAP_LETTER = "_"

HAND_SIZE = 3

# Phases of a decision.
PLAY_PHASE, ORDER_PHASE, GAME_OVER = 0, 1, 2
PHASE_NAMES = ("play", "reorder", "game over")

POINTS_RETURNED = 1  # points variant: per own duck Line Forward returns to the duck deck
POINTS_SURVIVING = 5  # points variant: per own duck still in play at the end of a game

MODES = ("standard", "hidden", "team")
STANDARD_PLAYERS = (3, 4, 5, 6)
TEAM_PLAYERS = (2, 4, 6)
MAX_PLAYERS = 6
#: A deck of at least 4 cards per player always refills every hand (3 in hand, at most one
#: Bottoms Up each on the table); 127 keeps every count inside the int8 observation.
MIN_ACTION_CARDS_PER_PLAYER = 4
MAX_ACTION_CARDS = 127

assert sum(DEFAULT_ACTION_COUNTS) == 52 and len(DEFAULT_ACTION_COUNTS) == NUM_KINDS
assert len(CARD_NAMES) == NUM_KINDS and len(set(CARD_KEYS)) == NUM_KINDS
