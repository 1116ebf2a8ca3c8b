"""Beasty Bar (``beasty_bar_v0``): jostle your animals into the bar, 2 to 4 players.

=====================  ==========================================================
Import                 ``from cardzoo.envs import beasty_bar_v0``
Actions                Discrete(45)
Agents                 ``player_0`` ... ``player_{N-1}``, N = 2..4 (default 2)
Observation shape      ``(75 + 47 N,)`` int8: 169 (2p), 216 (3p), 263 (4p)
Observation values     0/1 flags and small counts, 0..78 (bounds per piece in the space)
Action mask            int8 ``(45,)``, in ``obs["action_mask"]``
Rules                  ``docs/rules/beasty_bar.md`` (every decision implemented and tested)
=====================  ==========================================================

Each player has the same twelve animals (strength 1 Skunk .. 12 Lion) in their colour. On a turn
a player plays one of the 4 cards in hand at the back of the queue before Heaven's Gate; the
animal's action (and the recurring actions of hippos, crocodiles and giraffes) reorders the queue
or throws animals out; whenever the queue reaches 5, the first two enter the bar and the last is
thrown out. After every card is played (``12 N`` turns), the most animals in the bar wins (or the
most points with ``scoring="points"``); ties go to the lower strength sum, then are shared.

**One step is one turn**, except in the advanced variant (``set_aside=4``): the game then starts
with 4 set-aside steps per player (seat 0 first, then seat 1, ...), one animal each, hidden from
the others; those steps are not turns.

Observation
-----------
An int8 vector of named pieces (``env.unwrapped.encoder.describe()`` prints the table;
``encoder.split(obs)`` returns named views). Per-seat pieces are relative: the observer first, then
the others in turn order. Animal index = strength - 1 (0 Skunk, 1 Parrot, 2 Kangaroo, 3 Monkey,
4 Chameleon, 5 Seal, 6 Zebra, 7 Giraffe, 8 Snake, 9 Crocodile, 10 Hippo, 11 Lion).

=================  =======  ========================================================
piece              shape    meaning
=================  =======  ========================================================
phase              2        one-hot: set aside (advanced variant), play; zeros at the end
to_act             N        one-hot relative seat of the player to act
round_position     N        one-hot: my place in the turn order (0 = I played first)
my_hand            12       animals in my hand
queue_species      4 x 12   one-hot species at queue position i (0 = next to the gate)
queue_owner        4 x N    one-hot relative owner at queue position i
bar                N x 12   animals of each seat in the bar
thats_it           N x 12   animals of each seat in THAT'S IT
unplayed           N x 12   animals of each seat not played yet (hand + draw pile + set aside)
hand_sizes         N        cards in each seat's hand
draw_sizes         N        cards in each seat's draw pile
my_set_aside       12       animals I set aside (advanced variant)
set_aside_sizes    N        cards each seat has set aside
turns_left         1        turns remaining in the game
scores             N        each seat's score: bar animals (count) or bar points (points)
bar_strength_sums  N        strength sum of each seat's bar animals (the tiebreak, lower wins)
=================  =======  ========================================================

The queue has 4 slots because a decision is always taken after the five-animal check. Opponents'
hands, draw piles and set-aside cards are never shown, only their union ``unplayed`` (public:
every colour holds the same twelve animals and every played card was seen).

Actions
-------
The action id is the engine's move id (``cardzoo.envs.beasty_bar.MOVES``). Parrot targets are
queue positions at the time of play, 0 = next to the gate.

=======  ==================================================================
id       move
=======  ==================================================================
0        play Skunk
1        play Parrot (no other animal to expel; only into an empty queue)
2..5     play Parrot, expel position ``a - 2``
6        play Kangaroo (no animal to jump; only into an empty queue)
7, 8     play Kangaroo, jump 1 / jump 2
9        play Monkey
10       play Chameleon without imitating (nothing to copy, or ``chameleon_may_decline``)
11       play Chameleon as Skunk
12..15   play Chameleon as Parrot, expel position ``a - 12``
16, 17   play Chameleon as Kangaroo, jump 1 / jump 2
18       play Chameleon as Monkey
19..25   play Chameleon as Seal, Zebra, Giraffe, Snake, Crocodile, Hippo, Lion
26..32   play Seal, Zebra, Giraffe, Snake, Crocodile, Hippo, Lion
33..44   set aside the animal of strength ``a - 32`` (advanced variant only)
=======  ==================================================================

Global state
------------
``env.state()`` (for centralised critics only: it shows every hidden card) is an int8 vector of
``51 + 164 N`` values with absolute seats, seat 0 first: phase, seat to act, first player, every
hand, every draw pile's contents and its order from the top, every set-aside card, the queue with
owners, bar, THAT'S IT, turns left, bar scores and strength sums.
``env.unwrapped.encoder.describe_state()`` prints the pieces.

Rewards
-------
0 until the end. Default ``reward="win_loss"``: winners share +1 and losers share -1 (two players:
+1/-1; everyone tied: 0 each). Tied players all win (rules §8). ``reward="score"``: each player gets
its score minus the mean score of the others, where the score (``State.scores()``) is the bar score
(bar animals, or their points) minus a hundredth of the bar strength sum: the tiebreak is part of
it, so every winner is paid more than every loser (rules doc §8).

Episode end
-----------
Terminated after the last card is played (always ``12 N`` turns, ``8 N`` with ``set_aside=4``).
Truncated after ``max_turns`` turns (default 1000, so never in practice).

Options
-------
Rule options (rules doc §14): ``num_players`` (2), ``first_player`` ("random" or a seat),
``scoring`` ("count" | "points"), ``set_aside`` (0 | 4), ``chameleon_may_decline`` (False),
``max_turns`` (1000). The rulebook's advanced variant is ``scoring="points", set_aside=4``
(``variant="advanced"``). Env options: ``encoder`` ("default"), ``render_mode`` (None | "ansi" |
"human" | "rgb_array", the last with the ``render`` extra), ``illegal_action`` ("raise" |
"terminate"), ``reward`` ("win_loss" | "score"), ``obs_dtype`` ("int8" | "float32"), ``variant``
(None | "advanced"). ``env.unwrapped.game_state.render_for(seat)`` renders what one seat may see.

Rule decisions
--------------
Every **Decision** of the rules is implemented and tested; ``docs/rules/beasty_bar.md`` lists them
all with their tests (section 12) (chameleon imitation mandatory, zebra as its
pass; chameleon-as-lion legal and self-destructive; no chameleon copying a chameleon; parrot and
chameleon playable with no effect into an empty queue; recurring actions front to back, each animal
at most once per turn, a giraffe skipping its entry turn; animals left in the queue score nothing;
tiebreak lower strength sum, then shared). The engine adds (``envs/beasty_bar/game.py``): set-aside
choices in seat order from seat 0; one dedicated "no effect" action each for a kangaroo or parrot
into an empty queue and for a chameleon that does not imitate; the score used by ``reward="score"``
includes the strength-sum tiebreak.

Version history
---------------
- v0: first release (encoder "default" v1). Later in v0, observations unchanged: ``env.state()``
  global state, ``render_for``, and ``reward="score"`` paying the tiebreak (winners above losers).
"""

from __future__ import annotations

from typing import Any

from cardzoo.encoders.beasty_bar import ENCODERS
from cardzoo.envs.base import CardGameEnv, GameSpec
from cardzoo.envs.beasty_bar import Config, State
from cardzoo.envs.beasty_bar.svg import svg_for

GAME = GameSpec(
    name="beasty_bar",
    version=0,
    title="Beasty Bar",
    config_cls=Config,
    state_cls=State,
    encoders=ENCODERS,
    player_counts=(2, 3, 4),
    variants={"advanced": {"scoring": "points", "set_aside": 4}},
    option_values={
        "scoring": ("points",),
        "set_aside": (4,),
        "chameleon_may_decline": (True,),
        "first_player": (1,),
    },
    svg=svg_for,
)


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming convention)
    """The Beasty Bar AEC env (the module docstring is its doc page). Use env() or raw_env()."""

    game = GAME
    metadata = {**CardGameEnv.metadata, "name": GAME.env_name}


def env(**kwargs: Any) -> raw_env:
    """The Beasty Bar env. Order, bounds and legality checks are built in (no wrapper cost)."""
    return raw_env(**kwargs)
