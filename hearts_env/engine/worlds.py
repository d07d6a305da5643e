"""Sampled worlds: deals of the cards one seat cannot see, consistent with its information set.

A search (``hearts_env.agents.search.pimc``) or a game that must resample what a player cannot see
(``hearts_env.envs.openspiel``'s ``resample_from_infostate``) draws hidden hands here, in the play
phase, and turns them into core states with ``hearts_env.engine.infoset.world_states``.

What a sampled world respects (``sample_worlds``):

* the observer's hand is exact; every card played this hand (current trick included) is gone;
* the cards the observer passed are held by their receiver, unless the receiver played them;
* each other seat holds exactly its hand size minus the cards it has played (passing leaves
  every hand size unchanged);
* a seat known to be void in a suit (``InfoSet.voids``: it failed to follow) holds none of it.

Softer inferences (a heart discarded on the first trick means only point cards were left; a
heart led before hearts broke means only hearts were left) are not used. A world is drawn by
rejection first: the unseen cards are shuffled and dealt to the seats' free places, and a deal
that breaks a void is redrawn, up to ``rejection_rounds`` times (64 by default: compiled, a
round costs about a hundredth of a constructive world); an accepted deal is exactly uniform
over the consistent deals. A world still rejected (void-heavy positions: 20% of the worlds over
random-play states after 4 rounds, 2% after 64) is built constructively (``deal_constructive``):
card by card, most constrained suits first, each card to a seat not void in its suit with
probability proportional to the seat's room, among only the seats after which the rest can
still be placed (Hall's condition over the 15 sets of suits, so it never dead-ends). That
proposal is biased, so ``proposals`` deals are drawn and one is kept with weight 1 / q
(sampling-importance-resampling, ``deal_resampled``), which brings it close to uniform (exactly
uniform as ``proposals`` grows).
Every world is consistent either way.

Inference (``belief``): a caller that has a belief of where the unseen cards lie (a model of the
opponents: ``hearts_env.agents.search.belief``) passes it as a positive weight b[r, c] of each
card c at each place r. The target is then the consistent deals weighted by the product of
b[r, c] over the cards dealt (the uniform target when every weight is the same): each world is
the importance resample of ``proposals`` constructive deals whose every card goes to a seat with
chance proportional to its room times the seat's weight of the card (weight p / q, p the
product, q the proposal's chance). The hard facts above hold in every world, whatever the belief.

With two decks (Cancellation Hearts) a world deals the copies the observer has not seen (a card
whose copies are both unseen is dealt twice) to the other seats and the face-down kitty, as many
as each holds; the observer's passed copies stay with their receiver less as many copies as it
has played since (those may have been its own). Hall's condition and the importance weights
treat the two copies as distinct cards, so the target is the uniform deal of the physical cards.

The sampling is compiled (``world_kernels``), with counter-based random streams keyed from the
caller's generator (``stream_key``): a seeded caller is reproducible.
"""

from __future__ import annotations

import numpy as np

from hearts_env.engine import world_kernels as kern
from hearts_env.engine.cards import NUM_CARDS
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.kernels import rule_params

_U64 = np.uint64
_ERRORS = {
    kern.ERROR_NOT_PLAY: "worlds can only be sampled in the play phase",
    kern.ERROR_SIZES: "inconsistent information set: hand sizes do not match the unseen cards",
    kern.ERROR_NO_DEAL: "inconsistent information set: no consistent deal of the unseen cards",
}


def _raise_for(errors: np.ndarray) -> None:
    if np.any(errors):
        raise ValueError(_ERRORS[int(errors[np.flatnonzero(errors)[0]])])


def stream_key(rng: np.random.Generator) -> np.uint64:
    """A key for the kernels' counter-based random streams, drawn from the caller's generator."""
    return _U64(rng.integers(2**63))


def constraints(info: InfoSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the observer knows about where the cards are, in the play phase.

    Returns ``known`` (B, P) uint64: cards known to be in each relative seat's hand (its own hand;
    the cards it passed, at the receiver, unless played since); ``need`` (B, P) int: how many
    more (unseen) cards each seat holds; ``unseen`` (B,) uint64: the cards to share out.
    """
    if info.rules.decks != 1:
        raise ValueError("constraints() describes one deck; with two decks use sample_worlds")
    B, P = info.batch_size, info.num_players
    known, need = np.zeros((B, P), _U64), np.zeros((B, P), np.int64)
    unseen, errors = np.zeros(B, _U64), np.zeros(B, np.int64)
    kern.constraints(info.data, info.layout.offsets, rule_params(info.rules), known, need, unseen, errors)
    _raise_for(errors)
    return known, need, unseen


def sample_worlds(
    info: InfoSet,
    worlds: int,
    rng: np.random.Generator,
    rejection_rounds: int = 64,
    proposals: int = 16,
    belief: np.ndarray | None = None,
) -> np.ndarray:
    """(B, worlds, P) uint64: hands of every relative seat (0 = the observer) in sampled deals
    consistent with each game's information set (play phase only; see the module docstring).
    With two decks (B, worlds, 2, P + 1): [..., 0, :] the cards each place holds at least once,
    [..., 1, :] those it holds twice; the places are the relative seats, then the kitty.

    Each world is drawn by rejection (up to ``rejection_rounds`` shuffled deals, exactly uniform
    when accepted); a world still rejected is the importance resample of ``proposals`` constructive
    deals (``deal_constructive``), nearly uniform. With ``belief`` (B, places, 52) (the relative
    seats, then with two decks the kitty), the positive weight of each card at each place, every
    world is the importance resample of ``proposals`` constructive deals drawn towards it (the
    module docstring); the observer's own weights (place 0) are not read."""
    P, two = info.num_players, info.rules.decks == 2
    places = P + 1 if two else P
    out = np.zeros((info.batch_size, int(worlds), 2 if two else 1, places), _U64)
    errors = np.zeros(info.batch_size, np.int64)
    ioff, rp = info.layout.offsets, rule_params(info.rules)
    weights = _checked_belief(belief, (info.batch_size, places, NUM_CARDS))
    key = stream_key(rng)
    kern.sample_worlds(info.data, ioff, rp, key, int(rejection_rounds), int(proposals), weights, out, errors)
    _raise_for(errors)
    return out if two else out[:, :, 0]


def _checked_belief(belief: np.ndarray | None, shape: tuple[int, int, int]) -> np.ndarray:
    """The kernel's belief array: (0, places, 52) for none; ``ValueError`` unless ``belief`` has
    ``shape`` and holds positive finite weights."""
    if belief is None:
        return np.ones((0, *shape[1:]))
    belief = np.ascontiguousarray(belief, np.float64)
    if belief.shape != shape:
        raise ValueError(f"belief must have shape {shape} (games, places, cards), got {belief.shape}")
    if not np.all(np.isfinite(belief) & (belief > 0)):
        raise ValueError("belief must hold positive finite weights")
    return belief


def deal_resampled(
    need: np.ndarray, unseen: np.ndarray, voids: np.ndarray, rng: np.random.Generator, proposals: int = 16
) -> np.ndarray:
    """(n, P) hands respecting the voids: for each row, one of ``proposals`` constructive deals
    drawn with weight 1 / q (sampling-importance-resampling towards the uniform deal)."""
    return _deal_rows(need, unseen, voids, rng, max(1, int(proposals)))[0]


def deal_constructive(
    need: np.ndarray, unseen: np.ndarray, voids: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Deal the ``unseen`` cards (n,) to seats with room ``need`` (n, P), none into a suit the
    seat is void in (``voids`` (n, P) suit bits), card by card; returns the hands (n, P) and the
    log-probability (n,) of the deal under this sampler (for importance weights).

    Cards go in order of their suit's constraint (suits more seats are void in first). Each card
    goes to a seat not void in its suit with probability proportional to the seat's room, among
    only the seats after which the remaining cards can still be placed: by Hall's condition, for
    every set S of suits, the cards left in S fit in the room of the seats not void in all of S.
    So the deal never dead-ends. Without voids this is exactly a uniform random deal.
    """
    return _deal_rows(need, unseen, voids, rng, 0)


def _deal_rows(
    need: np.ndarray, unseen: np.ndarray, voids: np.ndarray, rng: np.random.Generator, proposals: int
) -> tuple[np.ndarray, np.ndarray]:
    need = np.ascontiguousarray(need, np.int64)
    voids = np.ascontiguousarray(voids, np.int64)
    unseen = np.ascontiguousarray(unseen, _U64)
    n = len(need)
    hands, log_q, ok = np.zeros(need.shape, _U64), np.zeros(n), np.ones(n, bool)
    kern.deal_rows(need, unseen, voids, stream_key(rng), proposals, hands, log_q, ok)
    if not ok.all():  # cannot happen for a consistent information set
        raise ValueError(_ERRORS[kern.ERROR_NO_DEAL])
    return hands, log_q
