"""Matches and tournaments between agents on duplicate deals: statistics with confidence intervals, and ratings.

Agent strength is measured, not asserted. ``play_match`` seats P agents (any ``Policy`` objects)
at a table of P and plays every deal once per *rotation* of the agents through the seats, so every
agent meets the same cards from every seat (duplicate). This package imports no agent: it takes
agent objects; ``agents/cli.py`` is the ``hearts-arena`` command that builds them by name.

    from hearts_env.arena import play_match
    from hearts_env.policy import RandomPolicy

    field = RandomPolicy()  # one object at three seats: one batched call per step
    result = play_match(None, [("candidate", RandomPolicy()), ("field", field), ("field", field), ("field", field)],
                        deals=500, seed=0, episode="hand")
    print(result.table())
    result.difference("candidate")  # points per hand minus the field's, with its 95% interval
    result.difference("candidate").excludes_zero  # better (or worse) than the field at 95%?

Seating
-------
``agents`` lists P entries, one per seat at rotation 0: a mapping ``{name: agent}``, a list of
``(name, agent)`` pairs, or a list of agents (named by their class). The same agent object (or
name) may fill several entries, e.g. ``[("heuristic", h), ("simple", s), ("simple", s), ("simple", s)]``.
In rotation ``r`` (0..P-1) entry ``i`` sits at seat ``(i + r) % P``, i.e. seat ``s`` holds entry
``(s - r) % P`` (``MatchResult.seating``): over the P rotations each entry sits each seat once.

Deals
-----
Deal ``d`` of seed ``s`` is game ``d`` of the seed: its key is ``seeding.game_keys(s, d)``
(independent of the number of deals, so deal ``d`` is the same in every match with that seed), or
``keys[d]`` when the match is given its deals' keys (``keys=``, e.g. a frozen deal set; the seed then
seeds the agents alone); the
P games of a deal start from that key (``core.new_games(keys=...)``), so their first deals are
equal and, in whole games, the n-th hand of every rotation is dealt the same cards. The games run
in batches through ``hearts_env.play.runner``: at each step every distinct agent object is called once,
batched, on the games where it is to act (finished games leave the batch as they end).

``episode="game"`` plays whole games to ``rules.target_score``, every game passing left, right,
across, none, ... from its first hand. ``episode="hand"`` plays one hand per game (the rules' target
score is set to None), and the deals cycle through the pass directions: deal ``d`` passes in
direction ``d mod L`` of the rules' cycle of length L (4 players: left, right, across, none; no
passing with ``pass_count=0``), in every rotation of the agents, so a single-hand match weighs
each direction as a whole game does. The deals of one direction (in a block) run as one batch
(its games start at hand 1 with the pass cycle rotated to begin at that direction).
``MatchResult.directions`` holds each deal's direction.

Blocks
------
The deals are played in blocks of ``block`` consecutive deals (``DEAL_BLOCK`` = 1000 by default),
one after the other: at the start of block ``b`` every agent with a ``seed`` method is reseeded
from the match seed ``s`` and ``b``, and the block's games run as batches of their own. So a
match is reproducible from its seed and block size, and each block can be played anywhere:
``executor=`` (anything with ``concurrent.futures.Executor``'s ``map``, e.g.
``hearts_env.arena.sharding.RayExecutor`` for a Ray cluster, or a ``ProcessPoolExecutor``) plays
the blocks, each with its own copy of the agents, and the results, put together in deal order,
are exactly those of the run without it. Deterministic agents give the same results at any block
size; agents that draw random numbers draw them per block, so compare runs of the same block size.
A block is also a batch: larger blocks play fast agents faster (a single-hand block is one batch
per pass direction, of ``block / L`` deals x P rotations for a pass cycle of L), smaller ones give
an executor more tasks to spread (slow agents such as PIMC gain nothing from large batches).
``plan_match`` (the same arguments) returns the ``MatchPlan`` without playing it: ``plan.blocks``,
``plan.play_block(b)`` (a ``BlockOutcome``) and ``plan.result(outcomes, seconds)``, for callers that
keep finished blocks (to resume an interrupted run) or spread many matches over one executor.
An agent's illegal card raises ``hearts_env.play.runner.IllegalCardError`` naming the agent and the deal.

Statistics
----------
Results are per agent *name* (entries with the same name are pooled). For each deal, a metric is
the ratio of the name's totals over every seat it held in the deal's P games:

| metric | per deal |
|---|---|
| ``points_per_hand`` | hand points taken (moon and JD rules applied) / hands played |
| ``game_score`` | final game totals / games (whole-game matches only) |
| ``win_rate`` | wins / games; k tied winners share a win, 1/k each |
| ``qs_per_hand`` | hands in which it took the QS / hands |
| ``moons_made_per_hand`` | hands in which it shot the moon / hands |
| ``moons_suffered_per_hand`` | hands in which another seat shot the moon / hands |
| ``payoff_per_hand`` | the zero-sum payoff (the mean of the other seats' points minus its own) / hands |

The payoff is higher for the better player; for a name at one seat of every game (a candidate
against a field) it is exactly minus its points-per-hand difference to the field.

Each metric is reported as an ``Estimate``: the mean of the N per-deal values with a 95% Student-t
interval, ``mean ± t(0.975, N - 1) * sd / sqrt(N)`` (sd of the per-deal values), and N, the deals
behind it. Deals are independent; the games within a deal are not, which is why the deal is the
unit (with single hands the direction is set by the deal's index, which makes the interval a
little wider than it need be). ``MatchResult.difference(a, b)`` is the same interval over the
per-deal differences of two names (paired by deal); with ``b=None`` the other side is the
*field*, every other name pooled. A candidate takes fewer points per hand than the field by a
margin whose 95% interval excludes zero when ``result.difference("candidate").high < 0``
(``excludes_zero``: either side).
Single-hand results are also given by pass direction: ``estimate`` and ``difference`` take
``direction="left"`` (the deals passing left alone), and summaries hold ``by_direction``.

``round_robin`` plays a match at each table of P drawn from more agents (every P-subset, or
random tables), all on the same deals, pools the statistics per name and rates the agents with
OpenSkill (``openskill`` package, Plackett-Luce), one rating update per game.

Output: ``result.table()`` (plain text; for single hands followed by points per hand by pass
direction), ``result.summary()`` (a JSON-ready dict; ``format_table`` and ``plot`` also take that
dict as loaded back from JSON) and ``result.plot(path)`` (PNG, needs matplotlib; for single hands
a panel of each agent's difference to the field by pass direction).

Modules: ``match`` (``play_match``, ``plan_match`` and their results), ``tournament``
(``round_robin``, its result and ratings), ``statistics``
(``Estimate``, ``DealSums``, t-quantiles), ``report`` (summaries, tables,
plots), ``sharding`` (``RayExecutor``: blocks as Ray tasks; ``RayActors``: objects on Ray
actors; imports Ray when used).
"""

from hearts_env.arena.match import (
    DEAL_BLOCK,
    EPISODES,
    BlockOutcome,
    MatchPlan,
    MatchResult,
    deal_keys,
    direction_cycle,
    plan_match,
    play_match,
)
from hearts_env.arena.report import format_table, plot
from hearts_env.arena.statistics import (
    CONFIDENCE,
    FIELD_METRICS,
    METRICS,
    DealSums,
    Estimate,
    t_quantile,
)
from hearts_env.arena.tournament import TournamentResult, round_robin

__all__ = [
    "BlockOutcome",
    "CONFIDENCE",
    "DEAL_BLOCK",
    "FIELD_METRICS",
    "EPISODES",
    "METRICS",
    "MatchPlan",
    "DealSums",
    "Estimate",
    "MatchResult",
    "TournamentResult",
    "deal_keys",
    "format_table",
    "direction_cycle",
    "plan_match",
    "play_match",
    "plot",
    "round_robin",
    "t_quantile",
]
