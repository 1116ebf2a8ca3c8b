"""Cubirds (``cubirds_v0``): collect flocks of birds, 2 to 5 players.

=====================  ==========================================================
Import                 ``from cardzoo.envs import cubirds_v0``
Actions                Discrete(75)
Agents                 ``player_0`` ... ``player_{N-1}``, N = 2..5 (default 2)
Observation shape      ``(277 + 18 N,)`` int8: 313 (2p), 331 (3p), 349 (4p), 367 (5p)
Observation values     raw card counts, 0..110 (bound of each piece in the space)
Action mask            int8 ``(75,)``, in ``obs["action_mask"]``
Rules                  ``docs/rules/cubirds.md`` (every decision implemented)
=====================  ==========================================================

Players lay all their birds of one species at an end of one of four rows; birds of that species
already in the row enclose the birds between, which the player takes into hand. Completing flocks
banks birds in a collection; the first player with 7 species or two species of 3 wins.

**A turn is several steps.** The same agent acts again until its turn is over: first a lay; then,
if the lay captured nothing, the choice to take 2 cards or decline; then, if a flock can be made,
the choice of a flock or a pass (skipped automatically when passing is the only choice).

Observation
-----------
An int8 vector of card counts in named pieces (``env.unwrapped.encoder.describe()`` prints the
table; ``encoder.split(obs)`` returns named views). Per-seat pieces are relative: the observer
first, then the others in turn order.

==============  =======  ===========================================================
piece           shape    meaning
==============  =======  ===========================================================
phase           3        one-hot: lay, draw, flock
to_act          N        one-hot relative seat of the player to act
my_hand         8        cards of each species in my hand
hand_sizes      N        hand size of each seat
known_hands     N x 8    cards publicly known to be in each hand (captured face up)
collections     N x 8    each seat's collection
rows            4x8x8    ``rows[r, b, s]`` = size of the b-th block from the left of row r,
                         if that block is species s (each species is one block in a row)
draw_size       1        cards in the draw pile
discard_size    1        cards in the discard pile
discard_seen    8        discard-pile cards whose species was revealed
==============  =======  ===========================================================

Species order: Pink Flamingo, Owl, Toucan, Duck, Parrot, Magpie, Reed Warbler, Robin.

Actions
-------
=========  =======================================================
id         move
=========  =======================================================
0..63      lay all of species ``a // 8`` on row ``(a // 2) % 4``, end ``a % 2`` (0 left, 1 right)
64         decline the 2-card draw
65         take the top 2 cards of the draw pile
66..73     complete a flock of species ``a - 66``
74         pass (no flock)
=========  =======================================================

Rewards
-------
0 until the end. Default ``reward="win_loss"``: winners share +1 and losers share -1 (two players:
+1/-1; a tie among all players: 0 each). Tied players all win (rules §7). ``reward="score"``: each
player gets its collection size minus the mean collection size of the others.

Episode end
-----------
Terminated on a win, a failed deal or (default) cards running out mid-turn. Truncated (no result)
after ``max_turns`` completed turns (default 1000; random play averages under 100).

Options
-------
Rule options (rules spec §12): ``num_players`` (2), ``first_player`` ("random"),
``draw_after_empty_hand`` (False), ``midturn_exhaustion`` ("end_game" | "partial"),
``reveal_round_end_discards`` (True), ``max_turns`` (1000). Env options: ``encoder`` ("default"),
``render_mode`` (None | "ansi" | "human"), ``illegal_action`` ("raise" | "terminate"),
``reward`` ("win_loss" | "score").

Rule decisions
--------------
Every **Decision** of the rules is implemented; ``docs/rules/cubirds.md`` lists them (section 9)
with the test that checks each rule. In short: cards put aside while building the rows are
reshuffled into the draw pile, and setup deals in a fixed order (8-card hands from the dealer
clockwise, then one collection card each); refill cards go to the end just laid at; a flock step
with pass as its only choice is skipped (``flock_step="auto"``) or asked (``"always"``); a lay that
empties the hand without a capture ends the round (``draw_after_empty_hand``); a deal fails when
draw + discard pile hold fewer than 8 N cards; cards running out mid-turn end the game
(``midturn_exhaustion``); a game that ends without a win goes to the largest collection(s), and
tied players all win; hands discarded at round end are public (``reveal_round_end_discards``);
episodes are truncated after ``max_turns`` completed turns.

Version history
---------------
- v0: first release (encoder "default" v1).
"""

from __future__ import annotations

from typing import Any

from cardzoo.encoders.cubirds import ENCODERS
from cardzoo.envs.base import CardGameEnv, GameSpec
from cardzoo.envs.cubirds import Config, State

GAME = GameSpec(
    name="cubirds",
    version=0,
    title="Cubirds",
    config_cls=Config,
    state_cls=State,
    encoders=ENCODERS,
    player_counts=(2, 3, 4, 5),
    variants={"online": {"draw_after_empty_hand": True}},
)


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming convention)
    """The Cubirds AEC env (the module docstring is its doc page). Use env() or raw_env()."""

    game = GAME
    metadata = {**CardGameEnv.metadata, "name": GAME.env_name}


def env(**kwargs: Any) -> raw_env:
    """The Cubirds env. Order, bounds and legality checks are built in (no wrapper cost)."""
    return raw_env(**kwargs)
