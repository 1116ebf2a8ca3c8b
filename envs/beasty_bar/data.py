"""Beasty Bar game data: the twelve animals (rules doc §2, §6), the phases and the card tables.
The only place these numbers live.

An animal is identified by its **strength** 1..12 (each strength is one species). Tables indexed
by strength have a dummy entry at index 0 so that ``NAMES[12] == "Lion"``.

A **card** is an int ``owner * 12 + (strength - 1)``: every card is unique (one colour per seat),
and this int is also the *card kind* used by ``State.census``. ``SPECIES[card]`` and
``OWNER[card]`` are precomputed tables.
"""

from __future__ import annotations

from typing import NamedTuple


class Animal(NamedTuple):
    strength: int
    name: str
    points: int  # points-scoring value (summary card of the seed rulebook, rules doc §2)
    recurring: bool  # acts again in step 3 of every turn (zebra: passive, so False here)


ANIMALS: tuple[Animal, ...] = (
    Animal(1, "Skunk", 4, False),
    Animal(2, "Parrot", 4, False),
    Animal(3, "Kangaroo", 4, False),
    Animal(4, "Monkey", 3, False),
    Animal(5, "Chameleon", 3, False),
    Animal(6, "Seal", 2, False),
    Animal(7, "Zebra", 4, False),  # recurring but passive: it only blocks hippos and crocodiles
    Animal(8, "Giraffe", 3, True),  # not in the turn it is played
    Animal(9, "Snake", 2, False),
    Animal(10, "Crocodile", 3, True),
    Animal(11, "Hippo", 2, True),
    Animal(12, "Lion", 2, False),
)

SKUNK, PARROT, KANGAROO, MONKEY, CHAMELEON, SEAL = 1, 2, 3, 4, 5, 6
ZEBRA, GIRAFFE, SNAKE, CROCODILE, HIPPO, LION = 7, 8, 9, 10, 11, 12

NUM_ANIMALS = 12  # animals per colour (one per strength)
HAND_SIZE = 4  # cards in hand at the start and after every draw while the pile lasts
QUEUE_SIZE = 5  # the five-animal check (§7)
BAR_ENTRIES = 2  # animals let into the bar by the check
MIN_PLAYERS, MAX_PLAYERS = 2, 4
SET_ASIDE_OPTIONS = (0, 4)
MAX_BEFORE_PLAY = QUEUE_SIZE - 1  # at most 4 animals are in the queue before a play
MAX_PILE = NUM_ANIMALS - HAND_SIZE  # 8: a draw pile just after the deal, its longest

#: Phases (``State.phase``) and their names.
SET_ASIDE_PHASE, PLAY_PHASE, GAME_OVER = 0, 1, 2
PHASE_NAMES = ("set aside", "play", "game over")
#: ``State.end_reason`` once the game is over (it has only one way to end, §8).
END_ALL_PLAYED = "all_cards_played"

#: Indexed by strength (index 0 unused).
NAMES: tuple[str, ...] = ("", *(a.name for a in ANIMALS))
POINTS: tuple[int, ...] = (0, *(a.points for a in ANIMALS))
RECURRING: tuple[bool, ...] = (False, *(a.recurring for a in ANIMALS))

#: A hippo (or a chameleon acting as one) stops behind these species (§5): hippo, lion, zebra.
HIPPO_STOPPERS = frozenset({HIPPO, LION, ZEBRA})
#: A crocodile (or a chameleon acting as one) never eats these (§5): anything >= 10, and zebras.
CROCODILE_STOPPERS = frozenset({ZEBRA, CROCODILE, HIPPO, LION})

#: Cards (``owner * 12 + strength - 1``) of up to four colours, and their species and owners.
MAX_CARDS = MAX_PLAYERS * NUM_ANIMALS
SPECIES: tuple[int, ...] = tuple(c % NUM_ANIMALS + 1 for c in range(MAX_CARDS))
OWNER: tuple[int, ...] = tuple(c // NUM_ANIMALS for c in range(MAX_CARDS))


def card_of(species: int, owner: int) -> int:
    """The card (and card kind) id of ``owner``'s animal of strength ``species``."""
    return owner * NUM_ANIMALS + species - 1


def card_name(card: int) -> str:
    """``"Lion(1)"``: the card's animal and its owner's seat."""
    return f"{NAMES[SPECIES[card]]}({OWNER[card]})"


assert [a.strength for a in ANIMALS] == list(range(1, NUM_ANIMALS + 1))
assert sum(POINTS) == 36
