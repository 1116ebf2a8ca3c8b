"""An independent check of ``determinize`` samples: replay the explicit history behind them."""

from __future__ import annotations

from collections import Counter

from cardzoo.envs.sitting_ducks.data import ORDER_PHASE


def check_witness(state, player, owners, hands, draw, witness) -> None:
    """Assert that the sampled hands and draw pile, with the witness's card behind every hidden
    draw, make the whole public record of ``state`` possible."""
    log = state._log[: state._log_len]
    _, initial, pool0 = log[0]
    entries = list(log[1:])
    if state.phase == ORDER_PHASE:
        entries.append((state.current_player, state._turn_card, None, None, -1))
    n = state.num_players
    held = []
    for q in range(n):
        if q == player:
            held.append(list(initial[q]))
        else:
            held.append([witness[-2 - 3 * q - i] for i in range(len(initial[q]))])
    pools = [Counter({k: c for k, c in enumerate(pool0) if c})]
    drawn_from = [Counter(k for h in held for k in h)]
    colour = {q: c for c, q in enumerate(owners)}
    for j, (q, card, forced, reshuffled, drawn) in enumerate(entries):
        assert card in held[q], f"entry {j}: seat {q} plays {card} without holding it"
        if forced is not None:
            allowed = forced[colour[q]] if state.mode == "hidden" else forced[0]
            assert all(allowed >> k & 1 for k in held[q]), f"entry {j}: playable card held"
        held[q].remove(card)
        if reshuffled is not None:
            pools.append(Counter({k: c for k, c in enumerate(reshuffled) if c}))
            drawn_from.append(Counter())
        if drawn >= 0:
            kind = drawn if q == player else witness[j]
            held[q].append(kind)
            drawn_from[-1][kind] += 1
    for q in range(n):
        assert sorted(held[q]) == sorted(hands[q]), f"seat {q}: hand does not follow"
    for e in range(len(pools) - 1):
        assert drawn_from[e] == pools[e], f"epoch {e}: drawn cards differ from its pile"
    assert drawn_from[-1] + Counter(draw) == pools[-1], "the draw pile does not add up"
    for q in range(n):
        if state.mode == "hidden":
            assert state.colour_evidence[q] >> colour[q] & 1
    assert owners[next(c for c, o in enumerate(state.colour_owner) if o == player)] == player
