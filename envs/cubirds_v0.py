"""Cubirds (``cubirds_v0``): collect flocks of birds, 2 to 5 players.

=====================  ==========================================================
Import                 ``from cardzoo.envs import cubirds_v0``
Actions                Discrete(75)
Agents                 ``player_0`` ... ``player_{N-1}``, N = 2..5 (default 2)
Observation shape      ``(286 + 26 N,)`` int8: 338 (2p), 364 (3p), 390 (4p), 416 (5p)
Observation values     raw card counts, 0..110 (bound of each piece in the space)
Action mask            int8 ``(75,)``, in ``obs["action_mask"]``
Rules                  ``docs/rules/cubirds.md`` (every decision implemented)
=====================  ==========================================================

Players lay all their birds of one species at an end of one of four rows; birds of that species
already in the row enclose the birds between, which the player takes into hand. Completing flocks
banks birds in a collection; the first player with 7 species or two species of 3 wins.

**A turn is several steps.** The same agent acts again until its turn is over: first a lay; then,
if the lay captured nothing, the choice to take 2 cards or decline; then the choice of a flock or a
pass. With ``flock_step="auto"`` (default) that last step is skipped when passing is the only
choice; with ``flock_step="always"`` it is always asked (pass is then the only legal action when
nothing can be flocked).

Observation
-----------
An int8 vector of card counts in named pieces (``env.unwrapped.encoder.describe()`` prints the
table; ``encoder.split(obs)`` returns named views). Per-seat pieces are relative: the observer
first, then the others in turn order.

=================  =======  ========================================================
piece              shape    meaning
=================  =======  ========================================================
phase              3        one-hot decision I must make: lay, draw, flock; all
                            zeros while another player is to act (see below)
to_act             N        one-hot relative seat of the player to act
my_hand            8        cards of each species in my hand
hand_sizes         N        hand size of each seat
known_hands        N x 8    cards publicly known to be in each hand (captured face up
                            and not laid or flocked since)
exact              N x 8    1 if that seat holds exactly its known cards of the
                            species: it laid or flocked the species (all of them
                            leave the hand) since it last took cards unseen
collections        N x 8    each seat's collection
rows               4x8x8    ``rows[r, b, s]`` = size of the b-th block from the left
                            of row r, if that block is species s (each species is
                            one block in a row)
draw_size          1        cards in the draw pile
draw_pool          8        the draw pile's *pool*: cards of each species I know to
                            be in the pile or among the cards drawn from it unseen
                            since its composition was last known (setup, a round end
                            with the hands shown, a reshuffle of a public discard)
draw_pool_unknown  1        further cards of that pool whose species I do not know
                            (0 unless round-end discards are face down)
discard_size       1        cards in the discard pile
discard_seen       8        discard-pile cards whose species I know (flocks, hands
                            shown at round end; face down: the captured cards in
                            them and my own thrown-away hand)
=================  =======  ========================================================

Species order: Pink Flamingo, Owl, Toucan, Duck, Parrot, Magpie, Reed Warbler, Robin.
``sum(draw_pool) + draw_pool_unknown - draw_size`` cards of the pool were drawn unseen (into
hands, by 2-card draws and deals): they are known only as a group.

**Information.** An observation depends only on what that seat may see (rules §9), also while
another player is acting. The pending decision (``phase``) is shown only to the player who must
make it. The timing caveat of ``flock_step="auto"``: an agent that observes *during another
player's turn* (e.g. every seat after every step) sees whether that player is still to act after
its lay and draw step, which tells whether it holds a flock; every observation an agent gets at
its own turn is the same either way. ``flock_step="always"`` removes this signal, at the cost of
one more step in most turns.

``env.unwrapped.game_state.determinize(seat)`` returns a copy of the game in which everything that
seat has not seen is resampled consistently with everything it has seen: each other hand's unseen
cards are drawn again from the pile they came from (a reshuffled public discard pile is never mixed
with cards hidden earlier), no seat gets a species it is known not to hold, and with face-down
round-end discards a seat keeps the hand it threw away. It replays the game's record of unseen
draws (``cardzoo.envs.cubirds.hidden``). Measured in random play: with the default public
round-end discards every one of 15,854 calls found a fully resampled game (0.9 ms on average).
With face-down round-end discards, 1.8 % of 6,328 calls fell back to a last resort that keeps the
unseen cards drawn before the current draw pile was formed as they are: still consistent with
what the seat has seen, but those kept cards are the true ones (11 ms per call on average).

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
player gets its score minus the mean score of the others, where the score
(``game_state.scores()``) is the collection size, except that a player who wins outright (7
species or two triples) with a collection no larger than another's scores one more than the
largest other collection. So a winner always scores more than every loser and tied winners score
the same.

Episode end
-----------
Terminated on a win, a failed deal or (default) cards running out mid-turn. Truncated (no result)
after ``max_turns`` completed turns (default 1000; random play averages under 100).

Options
-------
Rule options (rules spec §12): ``num_players`` (2), ``first_player`` ("random"),
``draw_after_empty_hand`` (False), ``midturn_exhaustion`` ("end_game" | "partial"),
``reveal_round_end_discards`` (True), ``flock_step`` ("auto" | "always"), ``max_turns`` (1000). Env
options: ``encoder`` ("default" | "lookahead"), ``render_mode`` (None | "ansi" | "human" |
"rgb_array", the last with the ``render`` extra), ``illegal_action`` ("raise" | "terminate"),
``reward`` ("win_loss" | "score"), ``obs_dtype`` ("int8" | "float32"), ``variant`` (None |
"online").

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

Encoder "lookahead" (opt-in)
----------------------------
``cubirds_v0.env(encoder="lookahead")`` appends two pieces to the default ones (size
``286 + 26 N + 139``), filled for the player to act only (zeros for every other seat, like
``phase``), from its view alone: ``move_value`` (75), the heuristic's one-ply value of each legal
move (``CubirdsHeuristic.move_values``), 61 for the best and 2 less per point of value below it,
at least 1 for a legal move, 0 for an illegal one; and ``lay_captures`` (64), the cards each legal
lay would capture. A policy network cannot easily compute what a lay leads to from the row blocks
(docs/cubirds_ablations.md); these pieces show it, at the cost of about one heuristic decision
(about 1 ms) per observation of the player to act.

Version history
---------------
- v0: first release (encoder "default" v1).
- encoder "default" v2 (env still v0; the rules are unchanged): ``phase`` shown only to the player
  to act; new pieces ``exact``, ``draw_pool`` and ``draw_pool_unknown``; with face-down round-end
  discards, ``discard_seen`` also counts the captured cards in the thrown-away hands and the
  seat's own hand; size ``277 + 18 N`` -> ``286 + 26 N``. New rule option ``flock_step``; global
  state (``state()``); ``determinize`` consistent with every unseen draw; ``reward="score"``
  never pays a winner less than a loser.
- encoder "lookahead" v1 (opt-in): the default pieces plus ``move_value`` and ``lay_captures``.
"""

from __future__ import annotations

from typing import Any

from cardzoo.encoders.cubirds import ENCODERS
from cardzoo.envs.base import CardGameEnv, GameSpec
from cardzoo.envs.cubirds import Config, State
from cardzoo.envs.cubirds.svg import svg_for

GAME = GameSpec(
    name="cubirds",
    version=0,
    title="Cubirds",
    config_cls=Config,
    state_cls=State,
    encoders=ENCODERS,
    player_counts=(2, 3, 4, 5),
    variants={"online": {"draw_after_empty_hand": True}},
    # draw_after_empty_hand=True is the "online" variant, already a case of its own.
    option_values={
        "reveal_round_end_discards": (False,),
        "flock_step": ("always",),
        "midturn_exhaustion": ("partial",),
    },
    svg=svg_for,
)


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming convention)
    """The Cubirds AEC env (the module docstring is its doc page). Use env() or raw_env()."""

    game = GAME
    metadata = {**CardGameEnv.metadata, "name": GAME.env_name}


def env(**kwargs: Any) -> raw_env:
    """The Cubirds env. Order, bounds and legality checks are built in (no wrapper cost)."""
    return raw_env(**kwargs)
