"""Odin's Ravens game data (rules spec §2): the only place these numbers live.

Land types are ``0..4`` (Forest, Mountain, Plains, Snow, Water). A player's card is a **kind**
``0..8``: ``0..4`` a flight card of that land type, ``5..8`` the Odin cards O1..O4. A Magic Way
card shows two **symbols** ``0..5``: a land type, or ``ODIN_SYMBOL`` (5) for the Odin picture.
A land card is an unordered pair of land types; the 15 possible pairs (10 mixed, 5 doubles) are
its **pair kind** ``0..14`` (``PAIR_KIND[a][b]``).
"""

from __future__ import annotations

NUM_TYPES = 5  # land types
LAND_LETTERS = ("F", "M", "P", "S", "W")

NUM_ODIN = 4  # Odin card types O1..O4
NUM_KINDS = NUM_TYPES + NUM_ODIN  # 9 kinds of player card
ODIN_BASE = NUM_TYPES  # kind of O1
KIND_NAMES = (*LAND_LETTERS, "O1", "O2", "O3", "O4")
ODIN_SYMBOL = NUM_TYPES  # the Odin picture on a Magic Way card

HAND_SIZE = 5  # refill target (§4)
START_TRACK = 9  # land cards dealt at setup (§3)
MAX_FROM_HAND = 3  # cards from hand per turn (§4)
MAX_FROM_AUX = 3  # cards from the auxiliary deck per turn (§4)
TARGET_SCORE = 12  # the game ends once a total reaches it (§8)
MAGIC_WAY_BONUS = 3  # points for more Magic Way cards (§7)
NUM_LAND_CARDS = 40
NUM_MAGIC_WAY_CARDS = 6
O2B_CARDS = 2  # land cards attached by O2-B

#: Every unordered pair (a <= b) and its pair kind.
PAIRS: tuple[tuple[int, int], ...] = tuple(
    (a, b) for a in range(NUM_TYPES) for b in range(a, NUM_TYPES)
)
NUM_PAIRS = len(PAIRS)  # 15
PAIR_KIND: tuple[tuple[int, ...], ...] = tuple(
    tuple(PAIRS.index((min(a, b), max(a, b))) for b in range(NUM_TYPES)) for a in range(NUM_TYPES)
)


def default_land_cards() -> tuple[tuple[int, int], ...]:
    """Each of the 10 mixed pairs 3 times, each of the 5 doubles twice (§2): 40 cards."""
    cards: list[tuple[int, int]] = []
    for a, b in PAIRS:
        cards += [(a, b)] * (2 if a == b else 3)
    return tuple(cards)


LAND_CARDS = default_land_cards()

#: §2 table: Odin + Mountain, Odin + Water, Mountain + Plains, Plains + Forest, Forest + Snow,
#: Snow + Water (each land type twice). Symbols stored in ascending order.
MAGIC_WAY_CARDS: tuple[tuple[int, int], ...] = ((1, 5), (4, 5), (1, 2), (0, 2), (0, 3), (3, 4))

FLIGHT_CARDS_PER_TYPE = 5
ODIN_COPIES_PER_TYPE = 2
MAX_FLIGHT_CARDS_PER_TYPE = 12  # bounds keep every count of the encoders within int8
MAX_ODIN_COPIES_PER_TYPE = 6

#: Phases of a decision (see ``game.py``); ``PHASE_NAMES`` says each in words.
PLAY, REARRANGE, TARGET_CARD, TARGET_SPACE, ORIENT, EXTEND, GAME_OVER = range(7)
PHASE_NAMES = (
    "play",
    "rearrange the auxiliary deck",
    "choose a land card",
    "choose a land space",
    "orient a land card",
    "extend the path or not",
    "game over",
)
#: What a TARGET_CARD decision is for.
OP_ROTATE, OP_REMOVE, OP_SWAP_FIRST, OP_SWAP_SECOND = range(4)
OP_NAMES = ("O3-A rotate", "O3-B remove", "O4-B first card", "O4-B second card")
#: Why an ORIENT decision happens.
FOR_O2B, FOR_EXTENSION = 0, 1

#: The only end reason: a total reached ``TARGET_SCORE`` (§8).
END_SCORE = "score_reached"

#: Census kinds: seat 0's 9 card kinds, seat 1's, the 15 land pair kinds, the 6 Magic Way cards.
PLAYER_KINDS = 2 * NUM_KINDS
LAND_KIND_BASE = PLAYER_KINDS
MAGIC_WAY_KIND_BASE = LAND_KIND_BASE + NUM_PAIRS
NUM_CENSUS_KINDS = MAGIC_WAY_KIND_BASE + NUM_MAGIC_WAY_CARDS

#: Pair kind of a land-card code 5*a + b.
CODE_PAIR = tuple(PAIR_KIND[c // NUM_TYPES][c % NUM_TYPES] for c in range(NUM_TYPES * NUM_TYPES))

ODIN_OPTIONS = {
    (0, 0): "move the opponent's raven 1 space back",
    (0, 1): "move your own raven 1 space forward",
    (1, 0): "rearrange your auxiliary deck",
    (1, 1): "attach 2 more land cards to the end of the path",
    (2, 0): "rotate an empty land card",
    (2, 1): "remove an empty land card",
    (3, 0): "put the Odin stone on an empty land space",
    (3, 1): "swap 2 empty land cards",
}

assert len(LAND_CARDS) == NUM_LAND_CARDS and NUM_PAIRS == 15
assert all(sum(c.count(t) for c in LAND_CARDS) == 16 for t in range(NUM_TYPES))
assert sorted(s for c in MAGIC_WAY_CARDS for s in c if s < NUM_TYPES) == sorted(
    list(range(NUM_TYPES)) * 2
)
