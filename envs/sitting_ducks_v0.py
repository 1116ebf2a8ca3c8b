"""Sitting Ducks Gallery (``sitting_ducks_v0``): shoot the ducks of others, save yours, 2-6 players.

=====================  ==========================================================
Import                 ``from cardzoo.envs import sitting_ducks_v0``
Actions                Discrete(110)
Agents                 ``player_0`` ... ``player_{N-1}``; N = 3..6 (default 3), hidden
                       mode 3..6, team mode 2, 4, 6
Observation shape      ``(98 + 9 N + 15 K + K N,)`` int8, K = colours in play (N, or 4
                       with 2 players): 179 (3p), 210 (4p), 243 (5p), 278 (6p), 184
                       (2p team); ``observe_duck_deck_bottom`` adds ``(5 K + 5)(K + 1)``
Observation values     0/1 flags and small counts, 0..127 (bounds per piece in the space)
Global state           ``env.state()``: int8, 290 (3p) ... 593 (6p); every hand, the duck
                       deck in order, the secret colours
Action mask            int8 ``(110,)``, in ``obs["action_mask"]``
Rules                  ``docs/rules/sitting_ducks.md`` (every decision implemented and tested)
=====================  ==========================================================

Keith Meyers' card game (Playroom 2005; Amigo "Sitting Ducks" / "Střelené kachny"). A row of six
slots holds ducks of every player's colour and water; the duck deck refills it from behind.
Players play one of their three action cards per turn: target slots, shoot targeted slots (the
row then closes up), shoot without aiming, move targets, move the ducks, hide a duck under an
opponent's, cover a duck with Bottoms Up. A player who holds no playable card must discard one.
A player whose six ducks are all shot keeps playing. The last player (colour, team) with a duck
in play wins; if the last ducks fall together, nobody does.

**One step is one decision.** A turn is one step, except Disorderly Conduckt: after playing it,
the same agent chooses the new order of the row in up to five more steps ("which unit goes
next", action 88 + slot), the sixth unit taking the last slot by itself; ``turn`` counts turns.

Observation
-----------
An int8 vector of named pieces (``env.unwrapped.encoder.describe()`` returns the table;
``encoder.split(obs)`` returns named views). Per-seat pieces are relative: the observer first,
then the others in turn order. Colours are relative too: index 0 is the observer's colour (in
hidden mode its secret colour; with two players its first colour, index 2 its second).

=================  ==========  ========================================================
piece              shape       meaning
=================  ==========  ========================================================
phase              2           one-hot: play a card, choose the new order; zeros at the end
to_act             N           one-hot relative seat of the player to act
my_hand            16          my cards by kind (ids of the rules' card table)
hand_sizes         N           cards in each seat's hand
row_top            6 x (K+2)   slot s: one-hot relative colour of its top duck, water, gap
row_under          6 x K       slot s: relative colour of the duck hidden under it (a stack)
row_cover          6 x N       slot s: relative seat whose Bottoms Up card covers it
row_mine           6           slot s holds a duck of mine
targets            6           slot s is targeted
reorder            6 x 6       Disorderly Conduckt so far: new position i <- old slot j
ducks_in_row       K           ducks per colour in the row (hidden ducks included)
ducks_in_deck      K           ducks per colour in the duck deck
ducks_shot         K           ducks shot per colour (markers not counted)
water_in_deck      1           water cards in the duck deck
deck_size          1           cards in the duck deck
deck_bottom        L x (K+1)   only with ``observe_duck_deck_bottom``: the known bottom of the
                               duck deck, bottom card first (relative colour, or water)
discard            16          the action discard pile by kind (face up)
draw_size          1           cards in the action draw pile
colour_seat        K x N       colour c may belong to relative seat q; exactly one 1 where
                               the owner is known (always, except in hidden mode)
points             N           points variant: each seat's total (capped at 127)
game               1           points variant: games finished in the match
=================  ==========  ========================================================

Never shown: the others' hands, the order of the action draw pile and of the duck deck (beyond
its public bottom with the option), and in hidden mode the others' colours (``colour_seat`` shows
what the public record allows: colours of units a seat moved with an own-duck card, colours for
which a forced discard was possible).

Actions
-------
The action id is the engine's move id (``cardzoo.envs.sitting_ducks.MOVES``; table in
``envs/sitting_ducks/moves.py``). Slots are 0..5, slot 0 the front.

=======  ==================================================================
id       move
=======  ==================================================================
0-5      Take Aim at slot ``a``
6-11     Shoot slot ``a - 6``
12-16    Double Barrel at slots ``a - 12`` and ``a - 11``
17-22    Double Barrel at slot ``a - 17`` alone (only when no two adjacent free slots)
23-28    Quick Shot at slot ``a - 23``
29-38    Misfire: target T, hit N = T-1 or T+1 (T ascending, then N)
39-43    Two Birds at slots ``a - 39`` and ``a - 38``
44-48    Bump Left: the target on slot ``a - 43`` moves one slot left
49-53    Bump Right: the target on slot ``a - 49`` moves one slot right
54       Line Forward
55-59    Move Ahead: own unit in slot ``a - 54`` swaps with the slot in front
60-64    Hang Back: own unit in slot ``a - 60`` swaps with the slot behind
65-69    Fast Forward: own unit in slot ``a - 64`` to slot 0
70       Disorderly Conduckt (the new order follows as actions 88-93)
71       Duck Shuffle
72-81    Duck and Cover: own duck in slot i hides under slot i-1 or i+1 (i ascending)
82-87    Bottoms Up on slot ``a - 82``
88-93    the unit now in slot ``a - 88`` takes the next position of the new order
94-109   discard a card of kind ``a - 94`` (only when no card in hand is playable)
=======  ==================================================================

Rewards
-------
0 until the end. Default ``reward="win_loss"``: winners share +1 and losers share -1 (a team's
two members win together; nobody left, or everyone winning a tied points match: 0 each).
``reward="score"``: each player gets its score minus the mean of the others': points in the
points variant, otherwise the ducks its side (itself, or its team) still has in play.

Two players (``mode="team", num_players=2``, the variant ``"duel"``) is a zero-sum two-player
game: each player owns two colours and wins when both of the other's colours are gone. It is the
setting most two-player RL algorithms and evaluations expect.

Episode end
-----------
Terminated when at most one player (colour, team) has ducks in play, or after the last game of a
points match. Truncated after ``max_turns`` turns (default 1000; over the whole match in the
points variant). Random play ends in about 95 turns at 3 players and 160 at 6.

Options
-------
Rule options (rules doc §13): ``num_players`` (3), ``mode`` ("standard" | "hidden" | "team"),
``points_games`` (0; G >= 1: a match of G games with the points rule, standard mode only),
``action_deck_counts`` (the 52-card table; 16 counts, a dict ``{"quick_shot": 2}`` or a string
``"quick_shot:2,shoot:11"``), ``observe_duck_deck_bottom`` (False), ``max_turns`` (1000). Named
variants: ``"hidden"``, ``"team"`` (4 players), ``"duel"`` (2 players, two colours each),
``"points"`` (a 3-game match). Env options: ``encoder`` ("default"), ``render_mode`` (None |
"ansi" | "human" | "rgb_array", the last with the ``render`` extra), ``illegal_action`` ("raise" |
"terminate"), ``reward`` ("win_loss" | "score"), ``obs_dtype`` ("int8" | "float32"), ``variant``.
``env.unwrapped.game_state.render_for(seat)`` renders what one seat may see.

Rule decisions
--------------
Every **Decision** of the rules is implemented and tested; ``docs/rules/sitting_ducks.md`` lists
them with their tests (default action-deck counts, gaps when the duck deck is empty, Bottoms Up
lifetime, forced discard, reshuffle of the action deck, the win check after every card, hidden
mode with a random first player and own-duck cards checked against the secret colour, teams
seated opposite, two players with two colours each, points ties shared). The engine adds
(``envs/sitting_ducks/game.py``): with two players seat q owns colours q and q + 2; Disorderly
Conduckt's order is chosen in steps; the points match is one episode.

Version history
---------------
- v0: first release (encoder "default" v1).
"""

from __future__ import annotations

from typing import Any

from cardzoo.encoders.sitting_ducks import ENCODERS
from cardzoo.envs.base import CardGameEnv, GameSpec
from cardzoo.envs.sitting_ducks import Config, State
from cardzoo.envs.sitting_ducks.svg import svg_for

GAME = GameSpec(
    name="sitting_ducks",
    version=0,
    title="Sitting Ducks Gallery",
    config_cls=Config,
    state_cls=State,
    encoders=ENCODERS,
    player_counts=(3, 4, 5, 6),
    variants={
        "hidden": {"mode": "hidden"},
        "team": {"mode": "team", "num_players": 4},
        "duel": {"mode": "team", "num_players": 2},
        "points": {"points_games": 3},
    },
    # The one option that changes what a player observes (rules and decks are in the variants).
    option_values={"observe_duck_deck_bottom": (True,)},
    svg=svg_for,
)


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming convention)
    """The Sitting Ducks Gallery AEC env (the module docstring is its doc page)."""

    game = GAME
    metadata = {**CardGameEnv.metadata, "name": GAME.env_name}


def env(**kwargs: Any) -> raw_env:
    """The Sitting Ducks Gallery env. Order, bounds and legality checks are built in."""
    return raw_env(**kwargs)
