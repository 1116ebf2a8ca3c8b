"""What each seat may see (spec §10) and what the public record tells the others.

- :class:`View` and :func:`view`: one player's view; ``State.view`` is this function.
- :func:`unplayable_masks`: the public evidence of a forced discard (which card kinds could not
  be played), kept in the log so that ``State.determinize`` samples only hands that agree with it.

The samplers behind ``State.determinize`` live in ``exact.py`` and ``reshuffled.py`` (exact) and
``sampling.py`` (the replay, where those decline).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardzoo.envs.sitting_ducks.data import NUM_KINDS, NUM_SLOTS, OWN_DUCK_CARDS
from cardzoo.envs.sitting_ducks.units import U_COVER, U_TOP, U_UNDER

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.game import State

ALL_KINDS = (1 << NUM_KINDS) - 1


@dataclass(frozen=True)
class View:
    """Everything one player may see (spec §10), and nothing else.

    ``row`` lists ``(top, under, cover)`` per slot (front first): top is a colour 0..5, 6 water or
    7 gap; under the colour of a stack's hidden duck (public: the hiding is done openly) or -1;
    cover the seat whose Bottoms Up lies on the top duck, or -1. Duck colours are public in every
    mode; in hidden mode ``colour_owners`` shows -1 for colours the viewer does not know the
    owner of (all are revealed once the game is over), and ``colour_evidence[q]`` is the bitmask
    of colours seat q may own given the own-duck cards it played. ``deck_bottom`` is the public
    bottom sequence of the duck deck (bottom card first), ``reorder`` the old slots already
    placed by a Disorderly Conduckt in progress.
    """

    player: int
    num_players: int
    mode: str
    num_colours: int
    current_player: int
    phase: int
    turn: int
    game: int
    games: int
    terminal: bool
    winners: tuple[int, ...]
    row: tuple[tuple[int, int, int], ...]
    targets: tuple[bool, ...]
    reorder: tuple[int, ...]
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    draw_size: int
    discard: tuple[int, ...]
    deck_size: int
    deck_counts: tuple[int, ...]
    deck_bottom: tuple[int, ...]
    shot: tuple[int, ...]
    my_colours: tuple[int, ...]
    colour_owners: tuple[int, ...]
    colour_evidence: tuple[int, ...]
    points: tuple[int, ...]
    game_results: tuple[tuple[int, ...], ...]


def view(state: State, player: int) -> View:
    """What ``player`` may see (§10)."""
    state._check_seat(player)
    k = state.num_colours
    deck_counts = [0] * (k + 1)
    for c in state.deck:
        deck_counts[min(c, k)] += 1
    if state.mode == "hidden" and not state.terminal:
        mine = state.seat_colours[player]
        owners = tuple(state.colour_owner[c] if mine >> c & 1 else -1 for c in range(k))
    else:
        owners = tuple(state.colour_owner)
    evidence = state.colour_evidence[:]
    if state.mode == "hidden":
        evidence[player] = state.seat_colours[player]
    if state.mode == "hidden" and state.terminal:
        evidence = state.seat_colours[:]
    return View(
        player=player,
        num_players=state.num_players,
        mode=state.mode,
        num_colours=k,
        current_player=state.current_player,
        phase=state.phase,
        turn=state.turn,
        game=state.game,
        games=state.config.points_games,
        terminal=state.terminal,
        winners=state._winners,
        row=tuple((U_TOP[u], U_UNDER[u], U_COVER[u]) for u in state.row),
        targets=tuple(bool(state.targets >> s & 1) for s in range(NUM_SLOTS)),
        reorder=tuple(state.reorder),
        hand=tuple(sorted(state.hands[player])),
        hand_sizes=tuple(len(h) for h in state.hands),
        draw_size=len(state.draw),
        discard=tuple(state.discard),
        deck_size=len(state.deck),
        deck_counts=tuple(deck_counts),
        deck_bottom=tuple(state.known_bottom_cards()),
        shot=tuple(state.shot),
        my_colours=tuple(c for c in range(k) if state.seat_colours[player] >> c & 1),
        colour_owners=owners,
        colour_evidence=tuple(evidence),
        points=tuple(state.points),
        game_results=tuple(state.game_results),
    )


def unplayable_masks(state: State, p: int) -> tuple[int, ...]:
    """For a forced discard by ``p``: the bitmask of card kinds that were unplayable, per possible
    ownership (hidden mode: one per colour, since the others do not know p's; otherwise only the
    real one)."""
    shared = 0
    for kind in range(NUM_KINDS):
        if kind not in OWN_DUCK_CARDS and state._ids_for(kind, 0, 0):
            shared |= 1 << kind
    if state.mode == "hidden":
        everything = (1 << state.num_colours) - 1
        owners = [(1 << c, everything & ~(1 << c)) for c in range(state.num_colours)]
    else:
        owners = [(state.seat_colours[p], state.hide_under[p])]
    masks = []
    for own, hide in owners:
        playable = shared
        for kind in OWN_DUCK_CARDS:
            if state._ids_for(kind, own, hide):
                playable |= 1 << kind
        masks.append(ALL_KINDS & ~playable)
    return tuple(masks)


#: How a sample made by ``determinize`` records another seat's draw: that the seat drew a card
#: is public, which card it was is not (not a kind: indexing a count with it fails loudly).
UNSEEN_DRAW = NUM_KINDS


def record_as_seen_by(log: list[tuple], length: int, player: int) -> list[tuple]:
    """The public record as ``player`` knows it, for the world ``determinize`` builds: the other
    seats' dealt cards become ``-1`` and their draws ``UNSEEN_DRAW``. The true record holds
    both, and a sample carrying it would hand the truth to whoever reads the sample.

    A record is a list only ever appended to (a state copies it before appending past a fork),
    so what ``player`` knows of its first entries never changes: it is kept per record and seat
    (``_SEEN``, with the record: a reused id is told apart) and only the entries added since
    are read; each call returns a new list (a sample appends to its own)."""
    key = (id(log), player)
    found = _SEEN.get(key)
    if found is None or found[0] is not log:
        if len(_SEEN) >= SEEN_KEPT:
            _SEEN.clear()
        _, dealt, deck = log[0]
        hidden = tuple(tuple(h) if q == player else (-1,) * len(h) for q, h in enumerate(dealt))
        found = _SEEN[key] = (log, [(-1, hidden, deck)])
    seen = found[1]
    for entry in log[len(seen) : length]:
        if entry[0] != player and entry[4] >= 0:
            entry = (*entry[:4], UNSEEN_DRAW)
        seen.append(entry)
    return seen[:length]


#: Per (id of a record, seat): the record and what the seat knows of its first entries.
_SEEN: dict[tuple[int, int], tuple[list, list]] = {}
#: Records x seats kept (a search agent's sampled worlds are records too).
SEEN_KEPT = 32


def check_record_known_to(log: list[tuple], player: int) -> None:
    """Refuse to determinize a sample for a seat other than the one it was made for: that
    seat's own dealt cards and draws were hidden in it (``record_as_seen_by``)."""
    if -1 in log[0][1][player]:
        raise ValueError(
            f"this state is a world sampled by determinize for another seat: seat {player}'s own "
            f"dealt cards and draws are not in its record, so it cannot be determinized for seat "
            f"{player} (determinize the real state instead)"
        )
