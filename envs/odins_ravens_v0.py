"""Odin's Ravens (``odins_ravens_v0``): two ravens race along a track of land cards, 2 players.

=====================  ==========================================================
Import                 ``from cardzoo.envs import odins_ravens_v0``
Actions                Discrete(264)
Agents                 ``player_0``, ``player_1`` (exactly 2 players)
Observation shape      ``(869 + 9 D,)`` int8, D = cards per player deck: 1166 by default
Observation values     0/1 flags and small counts, 0..127 (bounds per piece in the space)
Global state           ``env.state()``: ``(770 + 18 D,)`` int8, 1364 by default
Action mask            int8 ``(264,)``, in ``obs["action_mask"]``
Rules                  ``docs/rules/odins_ravens.md`` (every decision implemented and tested)
=====================  ==========================================================

Kosmos 2002 edition (Thorsten Gimmler). A row of double-sided land cards lies between the players:
one half of each card is on seat 0's path, the other on seat 1's. A player moves their raven by
playing a flight card of the next space's land type (or a joker pair of any equal type), flying
across a whole group of equal spaces at once; Odin cards move ravens, rearrange, extend, rotate,
remove or swap land cards, or place the Odin stone; spare cards feed the Magic Way. The first
raven on the last card wins the race and scores the spaces it is ahead; the longer Magic Way row
scores 3. Races repeat (one episode) until a total reaches 12.

**A turn is several steps of the same agent**: any number of plays (at most 3 cards from hand and
3 from the auxiliary deck, counted per card), sub-decisions of some Odin cards, ``EndTurn``, then
the extension choice (extend or not; then orient the card drawn). The refill is automatic. Card
kinds are indexed 0..8: flight cards F, M, P, S, W (Forest, Mountain, Plains, Snow, Water), then
Odin cards O1..O4.

Observation
-----------
An int8 vector of named pieces (``env.unwrapped.encoder.describe()`` returns the table;
``encoder.split(obs)`` returns named views). "my"/"opp" pieces are relative to the observer, and
two-value pieces list the observer first. The row is encoded for all 40 land cards that exist, so
no track length is ever cut off.

==================  ========  ==========================================================
piece               shape     meaning
==================  ========  ==========================================================
phase               6         one-hot: play, rearrange (O2-A), target card, target space
                              (O4-A), orient a land card, extend or not; zeros at the end
target_op           4         what a card target is for: O3-A, O3-B, O4-B first, second
to_act              2         one-hot: me, opponent
race_first          2         who started this race
track_length        1         land cards in the row, L
track_present       40        card k is in the row
my_path, opp_path   40 x 5    one-hot land type of card k on each path
ravens              2 x 41    one-hot raven position + 1 (0 = at the start)
stone               40 x 2    the Odin stone on card k, my path / the opponent's
pending_land        15        the land card being oriented (pair kind, ``data.PAIRS``)
swap_first          40        O4-B: the first card already chosen
my_hand             9         my hand by kind
my_aux              D x 9     my auxiliary deck **in order**, top first
rearranged          1         O2-A: cards already placed on top of the new order
my_draw             9         my draw pile by kind (its order is unknown)
opp_unseen          9         opponent's hand + aux + draw pile by kind (public: the deck
                              minus its face-up discard pile and Magic Way row)
hand_sizes          2         cards in hand
aux_sizes           2         cards in the auxiliary decks
draw_sizes          2         cards in the draw piles
discards            2 x 9     discard piles by kind (face up)
magic_way           6         symbols of the active Magic Way card (5 lands, Odin)
magic_way_rows      2 x 9     Magic Way rows by kind; magic_way_counts (2) their sizes
used_this_turn      2         cards taken this turn from hand, from the aux deck
o2b_used            1         O2-B already played this turn
land_deck_size      1         cards in the land deck; land_deck_counts (15) by pair kind
land_known          40        the land deck's bottom cards everybody saw (rejected at
                              setup, removed by O3-B), in draw order: pair kind + 1
race, totals        1, 2      race number; total points
last_race           5         last race: winner me/opp, its points, Magic Way me/opp
reshuffled          2 x 9     each draw pile's make-up at its last reshuffle
drawn_since         2         cards drawn since that reshuffle (or the deal)
race_turn, turn     16, 16    turns in this race / game, binary (bit 0 first)
==================  ========  ==========================================================

Never shown: the opponent's hand and auxiliary cards, the order of either draw pile and of the
land deck's unseen part, the face-down Magic Way cards.

Actions
-------
The action id is the engine's move id (``cardzoo.envs.odins_ravens.MOVES``, table in
``envs/odins_ravens/moves.py``). A payment taking ``aux`` cards takes the **top** ``aux`` cards
of the own auxiliary deck and the rest from hand; the land type ``t`` of the next space is fixed.

=========  ==================================================================
id         move
=========  ==================================================================
0..8       stash a hand card of kind ``a`` on the auxiliary deck
9, 10      fly paying 1 card of type t from hand / from the aux top
11..25     fly with a joker pair of kind ``j = (a-11) // 3``, ``(a-11) % 3`` from the aux
26..28     stone entry with 2 cards of type t, ``a - 26`` from the aux
29..48     stone entry with 1 card of type t + a pair of ``(a-29) // 4``, ``(a-29) % 4`` aux
49..93     stone entry with 2 pairs (j <= j2, pair kind ``(a-49) // 3``), 1..3 from the aux
94..103    play hand kind ``a - 94`` (103: the aux top) to the Magic Way
104..113   discard hand kind ``a - 104`` (113: the aux top) without effect
114..129   Odin card ``o = (a-114) // 4``, option A/B ``((a-114) // 2) % 2``, from hand/aux
130        end the plays of this turn
131, 132   do not extend / extend the path by one land card
133, 134   attach the drawn land card with its lower / higher land type on my path
135..143   O2-A: the next card from the top of the new order is kind ``a - 135``
144..183   O3-A rotate / O3-B remove / O4-B swap: land card ``a - 144``
184..263   O4-A: stone on card ``(a-184) // 2``, my path (even) or the opponent's (odd)
=========  ==================================================================

Rewards
-------
0 until the end of the game (several races). Default ``reward="win_loss"``: +1 for the winner, -1
for the loser (there is no draw: equal totals go to the last race's winner). ``reward="score"``:
the difference of the totals (the tiebreak winner of equal totals gets +0.5).

Episode end
-----------
Terminated when, after a race, a total is 12 or more. Truncated (not scored) after ``max_turns``
turns in the game (default 2000) or ``max_turns_per_race`` turns in one race (default 200); random
players often stall that long, good ones finish a race in a few turns. A race-ending turn counts
as a turn. ``env.unwrapped.game_state.truncated`` says whether a cap was reached.

Options
-------
Rule options (rules doc, options table): ``num_players`` (2 only), ``first_player`` ("random" or a
seat; later races start with the player with fewer points), ``land_cards`` and ``magic_way_cards``
(make-ups; None = the rulebook's), ``flight_cards_per_type`` (5), ``odin_copies_per_type`` (2),
``joker_requires_no_match`` (False), ``max_turns_per_race`` (200), ``max_turns`` (2000, the rules
doc's ``max_turns_per_game``). Env options: ``encoder`` ("default"), ``render_mode`` (None |
"ansi" | "human" | "rgb_array", the last with the ``render`` extra), ``illegal_action`` ("raise" |
"terminate"), ``reward`` ("win_loss" | "score"), ``obs_dtype`` ("int8" | "float32"), ``variant``
(none defined). ``env.unwrapped.game_state.render_for(seat)`` renders what one seat may see.

Rule decisions
--------------
Every **Decision** of the rules is implemented and tested; ``docs/rules/odins_ravens.md`` lists
them all with their tests. The engine adds (``envs/odins_ravens/game.py``): O2-A always takes
``len(aux) - 1`` steps (forced ones included, so the step count reveals nothing); the land card
drawn for O2-B or the extension is seen by both players; O4-B picks the lower card first; under
``joker_requires_no_match`` a joker pair is legal only if it is not of the target type and, after
the play, no card of the target type stays in hand and the aux card then on top is not one.

Version history
---------------
- v0: first release (encoder "default" v1).
- v0, rule fix under ``joker_requires_no_match=True`` only (default play unchanged): a play with
  a joker pair now also looks at the aux card left on top after the cards the play takes (stone
  entries, pairs from the aux), so a pair is refused where a matching card is still within reach;
  the opponent's deduction (``hidden.NO_MATCH``) always covers that top card.
"""

from __future__ import annotations

from typing import Any

from cardzoo.encoders.odins_ravens import ENCODERS
from cardzoo.envs.base import CardGameEnv, GameSpec
from cardzoo.envs.odins_ravens import Config, State
from cardzoo.envs.odins_ravens.svg import svg_for

GAME = GameSpec(
    name="odins_ravens",
    version=0,
    title="Odin's Ravens",
    config_cls=Config,
    state_cls=State,
    encoders=ENCODERS,
    player_counts=(2,),
    variants={},
    # Each value is a full conformance case (random games are long here): the one rule option
    # that changes what is legal and what a player learns.
    option_values={"joker_requires_no_match": (True,)},
    svg=svg_for,
)


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming convention)
    """The Odin's Ravens AEC env (the module docstring is its doc page). Use env() or raw_env()."""

    game = GAME
    metadata = {**CardGameEnv.metadata, "name": GAME.env_name}


def env(**kwargs: Any) -> raw_env:
    """The Odin's Ravens env. Order, bounds and legality checks are built in (no wrapper cost)."""
    return raw_env(**kwargs)
