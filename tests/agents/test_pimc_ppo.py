"""Tests of ``hearts_env.agents.search.pimc_ppo``: the search guided by the shipped network.

* Rollouts: ``network_play`` plays the network's own greedy card for every seat (the same hand
  scores as stepping the ``ppo`` agent from its information sets), or the heuristic's at every
  seat but the searcher's (``rollout_others``), and a batch rolls out as each game alone.
* The agent: legal cards over whole hands (passing included) and many random positions, the
  network's passes, ``top_k=1`` plays exactly as ``ppo``, reproducible with a seed, candidates
  taken from the network's probabilities; ``objective="field"`` scores a sure moon for the points
  it gives the others.
* The rules check: tables the network was not trained for are refused (``check_agents`` and the
  command line), bad options are refused with a line naming the option.
* Two decks (Cancellation Hearts), ``pimc-ppo-family`` with the shipped family's networks:
  legal cards through whole hands at 6, 8 and 10 players; rollouts stop once every copy of every
  card that scores is taken and score as the core scores the finished hand (a moon under each
  moon rule too); reproducible with a seed; the one-deck models (value head, exact endgame,
  belief) refused in one line naming the option and the table.
* Expert iteration: the torch copy of the network is the network; one tiny round exports a
  policy that loads, plays legal cards and agrees more with the search than before; a family
  network goes through a round at its own table, measured against itself in every other seat; a
  collection split over two processes holds the one-process collection of the seed, then other deals; the
  teacher's rollouts can stop at the value head (``--rollout-tricks``), which its folder must hold,
  and end in the exact endgame (``--endgame``); its other seats can be rolled out by the heuristic
  (``--rollout-others``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil

import numpy as np
import pytest

from hearts_env import HeartsRules
from hearts_env.agents import cli as arena_cli
from hearts_env.agents import make_agent
from hearts_env.agents.learned.family import SHIPPED_FAMILY, table_rules
from hearts_env.agents.learned.trained import SHIPPED_DIR, TrainedPolicy, shipped_policy
from hearts_env.agents.search.pimc import one_hand_rules, rollout_scores
from hearts_env.agents.search.pimc_ppo import PIMCPPOPolicy, network_play
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.engine.cards import NUM_CARDS, deal_from_hands, parse_cards
from hearts_env.engine.core import GAME_OVER, PASS, PLAY, hand_score, legal_mask, new_games, sample_actions, step
from hearts_env.engine.infoset import infoset
from hearts_env.engine.observation import encode
from hearts_env.engine.records import concatenate

HAND = HeartsRules(target_score=None)


@pytest.fixture(scope="module")
def ppo():
    return shipped_policy()


def random_positions(count: int, seed: int, phase: int = PLAY, rules: HeartsRules = HAND) -> tuple:
    """States of ``count`` random games (``rules``, one hand) at random points of ``phase``, before
    its last three tricks, where the seat to act has more than one legal card."""
    rng = np.random.default_rng(seed)
    state = new_games(rules, batch_size=count, seed=seed)
    P, H = rules.num_players, rules.hand_size
    picked, when = [], rng.integers(0, P * (H - 3) if phase == PLAY else P * rules.pass_count, count)
    for n in range(P * (rules.pass_count + H - 1)):
        mask = legal_mask(state)
        rows = np.flatnonzero((when <= n) & (state.phase == phase) & (mask.sum(axis=1) > 1))
        if len(rows):
            picked.append(state[rows])
            when[rows] = 10**6
        state = step(state, sample_actions(state, rng))
    return concatenate(picked)


def test_network_play_is_the_network_playing_every_seat(ppo):
    """Rolled out from real positions (every seat's information known), the hand scores equal those
    of the ``ppo`` agent stepped from each seat's information set to the hand's end."""
    start = random_positions(48, seed=1)
    rolled = network_play(start[np.arange(48)], ppo, HAND).taken  # a copy: the rollout steps it in place
    state = start
    while not np.all(state.phase == GAME_OVER):
        state = step(state, np.where(state.phase == GAME_OVER, 0, ppo(infoset(state), legal_mask(state))))
    expected = hand_score(HAND, state.taken, start.scores)
    np.testing.assert_array_equal(hand_score(HAND, rolled, start.scores), expected)


def test_the_other_seats_roll_out_with_the_heuristic_where_asked(ppo):
    """With ``others``, the searcher's seat plays the network and every other seat the heuristic:
    the hand scores of stepping those two agents from each seat's information set."""
    start = random_positions(48, seed=5)
    searcher = start.to_play.astype(np.int64)
    heuristic = make_agent("heuristic")
    rolled = network_play(start[np.arange(48)], ppo, HAND, others=heuristic, searcher=searcher).taken
    state = start
    while not np.all(state.phase == GAME_OVER):
        info, mask = infoset(state), legal_mask(state)
        cards = np.where(state.to_play == searcher, ppo(info, mask), heuristic(info, mask))
        state = step(state, np.where(state.phase == GAME_OVER, 0, cards))
    expected = hand_score(HAND, state.taken, start.scores)
    np.testing.assert_array_equal(hand_score(HAND, rolled, start.scores), expected)
    assert not np.array_equal(rolled, network_play(start[np.arange(48)], ppo, HAND).taken)
    with pytest.raises(ValueError, match="'pimc-ppo:rollout_others=random': rollout_others must be one of network, h"):
        agent_from_spec("pimc-ppo:rollout_others=random", 0)
    search = make_agent("pimc-ppo-family-3", seed=0, worlds=2, rollout_others="heuristic")
    state = new_games(one_hand_rules(table_rules("8p-2d")), batch_size=4, seed=6)
    while not np.all(state.phase == PLAY):  # the passes, then a searched first trick at two decks
        state = step(state, sample_actions(state, np.random.default_rng(0)))
    for _ in range(8):
        mask = legal_mask(state)
        cards = search(infoset(state), mask)
        assert mask[np.arange(4), cards].all()
        state = step(state, cards)


def test_network_play_of_a_batch_equals_each_game_alone(ppo):
    start = random_positions(16, seed=3)
    together = network_play(start[np.arange(16)], ppo, HAND, max_batch=5).taken
    alone = np.concatenate([network_play(start[i], ppo, HAND).taken for i in range(16)])
    np.testing.assert_array_equal(together, alone)


def test_legal_cards_over_whole_hands_and_random_positions():
    agent = make_agent("pimc-ppo", seed=0, worlds=2, top_k=2)
    state = new_games(HAND, batch_size=8, seed=4)
    while not np.all(state.phase == GAME_OVER):  # pimc-ppo at every seat, passing included
        mask = legal_mask(state)
        cards = agent(infoset(state), mask)
        live = state.phase != GAME_OVER
        assert np.all(mask[live, cards[live]])
        state = step(state, np.where(live, cards, 0))
    for seed in range(3):
        start = random_positions(64, seed=10 + seed)
        mask = legal_mask(start)
        assert np.all(mask[np.arange(len(mask)), agent(infoset(start), mask)])


def test_passes_are_the_networks_and_top_k_1_plays_as_ppo(ppo):
    for phase in (PASS, PLAY):
        start = random_positions(64, seed=20, phase=phase)
        info, mask = infoset(start), legal_mask(start)
        expected = ppo(info, mask)
        np.testing.assert_array_equal(make_agent("pimc-ppo", seed=0, top_k=1)(info, mask), expected)
        if phase == PASS:
            np.testing.assert_array_equal(make_agent("pimc-ppo", seed=0)(info, mask), expected)


def test_reproducible_with_a_seed_and_searching_changes_cards(ppo):
    start = random_positions(64, seed=30)
    info, mask = infoset(start), legal_mask(start)
    first = make_agent("pimc-ppo", seed=5, worlds=8)(info, mask)
    np.testing.assert_array_equal(make_agent("pimc-ppo", seed=5, worlds=8)(info, mask), first)
    reseeded = make_agent("pimc-ppo", seed=9, worlds=8)
    reseeded.seed(5)
    np.testing.assert_array_equal(reseeded(info, mask), first)
    assert np.any(first != ppo(info, mask))  # the search overrules the network somewhere


def test_candidates_are_the_networks_most_probable_legal_cards():
    agent = PIMCPPOPolicy(top_k=2, min_prob=0.1)
    probs = np.zeros((3, 52))
    probs[0, [3, 7, 9]] = [0.5, 0.3, 0.2]  # the two most probable
    probs[1, [3, 7]] = [0.95, 0.05]  # 7 is below min_prob
    probs[2, [8]] = 1.0  # a single legal card
    chosen = agent.candidates(probs)
    assert [list(np.flatnonzero(row)) for row in chosen] == [[3, 7], [3], [8]]


@pytest.mark.parametrize(
    "rules",
    [HeartsRules(num_players=5), HeartsRules(jack_of_diamonds=True), HeartsRules(num_players=6, decks=2)],
    ids=["5 players", "JD rule", "two decks"],
)
def test_tables_the_network_was_not_trained_for_are_refused(rules):
    with pytest.raises(ValueError, match="agent 'pimc-ppo' cannot play these rules"):
        check_agents(rules, [("pimc-ppo", agent_from_spec("pimc-ppo", 0))])


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["pimc-ppo"] + ["random"] * 4 + ["--num-players", "5"], "num_players=5"),
        (["pimc-ppo"] + ["random"] * 3 + ["--jack-of-diamonds"], "jack_of_diamonds=True"),
        (["pimc-ppo:worlds=0"] + ["random"] * 3, "worlds"),
        (["pimc-ppo:min_prob=2"] + ["random"] * 3, "min_prob"),
        (["pimc-ppo:margin=x"] + ["random"] * 3, "margin"),
        (["pimc-ppo:top_k=2.5"] + ["random"] * 3, "top_k"),
    ],
)
def test_command_line_refuses_with_one_line(argv, fragment, capsys, monkeypatch):
    monkeypatch.setattr(arena_cli, "play_match", lambda *a, **k: pytest.fail("the match started"))
    with pytest.raises(SystemExit) as exit_:
        arena_cli.main(argv)
    assert exit_.value.code not in (0, None)
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(errors) == 1 and fragment in errors[0], errors


# ---------------------------------------------------------------------------------------------
# Two decks (Cancellation Hearts)


CANCELLATION = ("6p-2d", "8p-2d", "10p-2d")


@pytest.mark.parametrize("family", ["pimc-ppo-family", "pimc-ppo-family-2"])  # the second reads trick outcomes
@pytest.mark.parametrize("key", CANCELLATION)
def test_two_deck_hands_are_played_with_legal_cards(key, family):
    agent = make_agent(family, seed=0, worlds=2, top_k=2)
    state = new_games(one_hand_rules(table_rules(key)), batch_size=2, seed=4)
    while not np.all(state.phase == GAME_OVER):  # at every seat, passing included
        mask = legal_mask(state)
        cards = agent(infoset(state), mask)
        live = state.phase != GAME_OVER
        assert np.all(mask[live, cards[live]])
        state = step(state, np.where(live, cards, 0))


def play_out(state, network):
    """``state`` once ``network`` has played every seat from its information sets to the hand's end."""
    while not np.all(state.hand_over | (state.phase == GAME_OVER)):
        going = ~(state.hand_over | (state.phase == GAME_OVER))
        cards = network(infoset(state), legal_mask(state))
        state = step(state, np.where(going, cards, 0))
    return state


@pytest.mark.parametrize("key", CANCELLATION)
def test_two_deck_rollouts_stop_and_score_as_the_core(key):
    """From random positions (cancelled cards, the pot and the kitty among them), a rollout stops
    once every copy of every card that scores is taken, and its score is the one the core gives
    the hand played to its end."""
    rules = one_hand_rules(table_rules(key))
    network = TrainedPolicy(SHIPPED_FAMILY / key)
    start = random_positions(24, seed=50, rules=rules)
    rolled = network_play(start[np.arange(24)], network, rules)
    assert np.any(rolled.phase != GAME_OVER)  # some stopped before the hand's end
    expected = play_out(start, network).last_hand_points
    np.testing.assert_array_equal(rollout_scores(rules, rolled, start.scores), expected)


def test_the_field_objective_scores_a_sure_moon_for_the_points_it_gives_the_others():
    """Seat 0 holds every club: it wins every trick whatever anyone holds or plays, so every
    world's rollout ends in its moon (the others take 26 each). Its own hand score is 0 either
    way; minus the others' mean it is -26, and a bad objective or one that needs every seat's
    score with a cut rollout is refused in one line."""
    clubs = " ".join(f"{rank}C" for rank in "23456789TJQKA")
    rest = [card for card in range(NUM_CARDS) if card not in set(parse_cards(clubs))]
    deal = deal_from_hands([clubs] + [rest[i * 13 : (i + 1) * 13] for i in range(3)])
    rules = dataclasses.replace(HAND, pass_count=0)
    state = new_games(rules, deals=deal[None])
    for _ in range(4):  # the first trick: 2C, then the others' first legal cards
        state = step(state, np.argmax(legal_mask(state), axis=1))
    assert state.to_play[0] == 0 and legal_mask(state).sum() == 12
    info, mask = infoset(state), legal_mask(state)
    points = PIMCPPOPolicy(seed=1, worlds=8, top_k=13).evaluate(info, mask)
    field = PIMCPPOPolicy(seed=1, worlds=8, top_k=13, objective="field").evaluate(info, mask)
    np.testing.assert_array_equal(points[mask], 0.0)
    np.testing.assert_array_equal(field[mask], -26.0)
    assert np.isnan(field[~mask]).all()
    with pytest.raises(ValueError, match="objective must be one of points, field"):
        PIMCPPOPolicy(objective="margin")
    with pytest.raises(ValueError, match="objective='field' scores every seat of whole rollouts"):
        PIMCPPOPolicy(objective="field", endgame=2)


def moon_deal() -> np.ndarray:
    """A 6p-2d deal in which seat 0, leading the first trick, takes every trick whatever anyone
    plays: it holds both copies of 7C to AC and a 6C, the other 6C lies in the kitty it takes with
    the first trick, and no other seat holds a club above 5C."""
    shooter, kitty = "AC AC KC KC QC QC JC JC TC TC 9C 9C 8C 8C 7C 7C 6C", "6C AH"
    left = [card for card in range(NUM_CARDS) for _ in range(2)]
    for card in parse_cards(f"{shooter} {kitty}"):
        left.remove(card)
    return deal_from_hands([shooter] + [left[i * 17 : (i + 1) * 17] for i in range(5)], kitty, decks=2)


@pytest.mark.parametrize(
    ("moon", "shooter"), [("add_to_others", 0), ("subtract_from_self", -52), ("shooter_choice", -52)]
)
def test_a_two_deck_moon_scores_as_the_core(moon, shooter):
    """Seat 0 shoots the moon (every copy of every card that scores); with these game totals adding
    52 to the others would end the game with seat 0 above the lowest, so ``shooter_choice``
    subtracts: the rollout's score is the core's for the hand under the real rules."""
    rules = dataclasses.replace(table_rules("6p-2d"), moon=moon, pass_count=0)
    totals = np.array([[95, 50, 50, 50, 50, 0]], np.int32)
    network = TrainedPolicy(SHIPPED_FAMILY / "6p-2d")
    real, hand = (new_games(r, deals=moon_deal()[None]) for r in (rules, one_hand_rules(rules)))
    real.scores[:], hand.scores[:] = totals, totals
    expected = play_out(real, network).last_hand_points
    assert expected[0, 0] == shooter and set(expected[0, 1:]) == {52 if shooter == 0 else 0}
    rolled = network_play(hand, network, rules)
    np.testing.assert_array_equal(rollout_scores(rules, rolled, totals), expected)


def test_two_deck_search_is_reproducible_with_a_seed():
    start = random_positions(32, seed=60, rules=one_hand_rules(table_rules("8p-2d")))
    info, mask = infoset(start), legal_mask(start)
    first = make_agent("pimc-ppo-family", seed=5, worlds=4)(info, mask)
    np.testing.assert_array_equal(make_agent("pimc-ppo-family", seed=5, worlds=4)(info, mask), first)
    reseeded = make_agent("pimc-ppo-family", seed=9, worlds=4)
    reseeded.seed(5)
    np.testing.assert_array_equal(reseeded(info, mask), first)
    assert np.any(first != TrainedPolicy(SHIPPED_FAMILY / "8p-2d")(info, mask))  # the search overrules the network


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"rollout_tricks": 1}, "rollout_tricks (the value head)"),
        ({"endgame": 2}, "endgame (the exact solver)"),
        ({"inference": "belief"}, "inference='belief' (the belief model)"),
    ],
)
def test_the_one_deck_models_are_refused_at_two_deck_tables(options, option, tmp_path):
    for name in ("policy.npz", "policy.json"):
        shutil.copy(SHIPPED_FAMILY / "8p-2d" / name, tmp_path)
    for name in ("value.npz", "value.json"):  # a head to load (the shipped network's): refused before it is read
        shutil.copy(SHIPPED_DIR / "ppo" / name, tmp_path)
    agent = PIMCPPOPolicy(path=tmp_path, **options)
    message = f"agent 's' cannot play these rules: pimc-ppo's {option} plays one deck, the table 8p-2d has two"
    with pytest.raises(ValueError, match=re.escape(message)):
        check_agents(table_rules("8p-2d"), [("s", agent)])


# ---------------------------------------------------------------------------------------------
# Expert iteration (train/distill/expert_iteration.py)


@pytest.mark.training
def test_expert_iteration_round_exports_a_policy_that_agrees_more_with_the_search(ppo, tmp_path):
    torch = pytest.importorskip("torch")
    from hearts_env.train.distill.expert_iteration import DEMOS_FILE, ExItConfig, Network, main
    from hearts_env.train.ppo.imitation import Demonstrations

    start = random_positions(32, seed=40)
    obs = encode(infoset(start), ppo.layout)
    with torch.no_grad():
        np.testing.assert_allclose(Network(ppo)(torch.as_tensor(obs)).numpy(), ppo.logits(obs), rtol=1e-4, atol=1e-4)
    folder = main(
        ExItConfig(decisions=200, worlds=2, top_k=2, epochs=2, learning_rate=1e-3, eval_deals=2, run_dir=str(tmp_path))
    )
    metrics = json.loads((folder / "exit.json").read_text())
    assert metrics["agreement_after"] > metrics["agreement_before"]
    apprentice = TrainedPolicy(folder)
    trained_on = apprentice.meta["trained_on"]
    assert trained_on["algorithm"].startswith("expert iteration") and trained_on["decisions"] > 0
    assert trained_on["from"] == ppo.meta["trained_on"] | {"path": str(ppo.path)}  # the chain back to PPO
    info, mask = infoset(start), legal_mask(start)
    assert np.all(mask[np.arange(32), apprentice(info, mask)])
    # The collection is kept; a fit from it alone makes the same network.
    demos = Demonstrations.load(folder / DEMOS_FILE)
    assert len(demos) == trained_on["decisions"] and demos.values.shape == (len(demos), 52)
    searched = ~np.all(np.isnan(demos.values), axis=1)
    rows = np.flatnonzero(searched)
    assert 0 < len(rows) < len(demos)  # passes and single candidates are not searched
    chosen = demos.values[rows, demos.actions[rows]]
    np.testing.assert_array_equal(chosen, np.nanmin(demos.values[rows], axis=1))  # it plays its best card
    again = main(
        ExItConfig(
            exp_name="refit",
            demos=str(folder / DEMOS_FILE),
            epochs=2,
            learning_rate=1e-3,
            eval_deals=0,
            run_dir=str(tmp_path),
        )
    )  # its own name: a run folder is named to the second, and this one may start within the first one's
    assert not (again / DEMOS_FILE).exists()
    with np.load(folder / "policy.npz") as first, np.load(again / "policy.npz") as second:
        for name in first.files:
            np.testing.assert_array_equal(first[name], second[name], err_msg=name)
    soft = main(
        ExItConfig(
            exp_name="soft", demos=str(folder / DEMOS_FILE), temperature=1.0, epochs=2, learning_rate=1e-3,
            eval_deals=0, run_dir=str(tmp_path),
        )
    )  # fmt: skip
    with np.load(again / "policy.npz") as hard, np.load(soft / "policy.npz") as shared:
        assert not np.array_equal(hard["action.weight"], shared["action.weight"])  # the values moved it


@pytest.mark.training
@pytest.mark.parametrize("key", ["3p", "5p"])
def test_expert_iteration_rounds_a_family_network_at_its_own_table(key, tmp_path):
    pytest.importorskip("torch")
    from hearts_env.train.distill.expert_iteration import ExItConfig, main

    rules = table_rules(key)
    config = ExItConfig(
        rules=rules, policy=str(SHIPPED_FAMILY / key), decisions=100, worlds=2, top_k=2, epochs=1, eval_deals=2,
        run_dir=str(tmp_path),
    )  # fmt: skip
    folder = main(config)
    apprentice = TrainedPolicy(folder)
    apprentice.check_rules(rules)  # plays the table it came from
    metrics = json.loads((folder / "exit.json").read_text())
    assert "new_minus_old" in metrics  # measured against the old network in every other seat


def test_expert_iteration_soft_targets_share_the_searched_cards_by_their_values():
    from hearts_env.train.distill.expert_iteration import search_targets

    values = np.full((3, 52), np.nan)
    values[0, [4, 9]] = [2.0, 3.0]  # card 9 one point worse
    values[1, 7] = 1.0  # one card searched: nothing to share
    actions = np.array([4, 7, 11])  # the third decision was not searched
    hard = search_targets(actions, values, 0.0)
    np.testing.assert_array_equal(hard, np.eye(52, dtype=np.float32)[actions])
    soft = search_targets(actions, values, 1.0)
    np.testing.assert_allclose(soft[0, [4, 9]], [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1))], rtol=1e-6)
    assert soft[0].sum() == pytest.approx(1) and np.count_nonzero(soft[0]) == 2
    np.testing.assert_array_equal(soft[1:], hard[1:])
    cold = search_targets(actions, values, 0.01)
    np.testing.assert_allclose(cold[0], hard[0], atol=1e-6)  # a low temperature is the search's card


@pytest.mark.processes
def test_expert_iteration_workers_split_the_collection_worker_zero_playing_the_seeds_games():
    pytest.importorskip("torch")
    from hearts_env.train.distill.expert_iteration import ExItConfig, collect_parallel, worker_seeds

    config = ExItConfig(decisions=400, worlds=2, top_k=2, seed=3, workers=2, progress_bar=False)
    seeds = worker_seeds(3, 2)
    assert seeds[0] == 3 and seeds[1] != 3 and worker_seeds(3, 3)[:2] == seeds
    both = collect_parallel(config, HAND)
    alone = collect_parallel(dataclasses.replace(config, workers=1, decisions=200), HAND)
    n = len(alone)
    assert n > 0 and len(both) > n
    for name in ("observations", "masks", "actions", "returns", "hands", "seats"):
        np.testing.assert_array_equal(getattr(both, name)[:n], getattr(alone, name), err_msg=name)
    assert not np.array_equal(both.observations[n : n + 13], alone.observations[:13])  # other deals
    assert both.hands[n:].min() > both.hands[:n].max()  # the second worker's hands numbered apart


def test_expert_iteration_teacher_cuts_its_rollouts_with_the_head_and_needs_one(tmp_path):
    pytest.importorskip("torch")
    from hearts_env.train.distill.expert_iteration import ExItConfig, collect_parallel

    config = ExItConfig(decisions=120, worlds=2, top_k=2, rollout_tricks=1, seed=5, progress_bar=False)
    assert config.teacher().value is not None and "rollout_tricks=1" in repr(config.teacher())
    demos = collect_parallel(config, HAND)
    rows = np.flatnonzero((~np.isnan(demos.values)).sum(axis=1) > 1)
    assert len(rows) > 0  # the cut search's card is its best value
    np.testing.assert_array_equal(demos.values[rows, demos.actions[rows]], np.nanmin(demos.values[rows], axis=1))
    whole = collect_parallel(dataclasses.replace(config, rollout_tricks=0), HAND)
    assert not np.array_equal(demos.values[rows[:20]], whole.values[rows[:20]])  # another search on the same deals
    for name in ("policy.npz", "policy.json"):
        (tmp_path / name).write_bytes((shipped_policy().path / name).read_bytes())
    with pytest.raises(ValueError, match=re.escape(f"missing file {tmp_path / 'value.json'}")):
        ExItConfig(policy=str(tmp_path), rollout_tricks=1, run_dir=str(tmp_path / "runs"))
    with pytest.raises(ValueError, match="rollout_tricks must be >= 0"):
        ExItConfig(rollout_tricks=-1, run_dir=str(tmp_path / "runs"))


def test_expert_iteration_teacher_can_solve_the_endgame(tmp_path):
    pytest.importorskip("torch")
    from hearts_env.train.distill.expert_iteration import ExItConfig

    assert "endgame=3" in repr(ExItConfig(endgame=3, run_dir=str(tmp_path)).teacher())
    for bad, message in ((-1, "endgame must be >= 0"), (7, "endgame must be an int in 0..6")):
        with pytest.raises(ValueError, match=message):
            ExItConfig(endgame=bad, run_dir=str(tmp_path))


def test_expert_iteration_teacher_can_roll_the_other_seats_out_with_the_heuristic(tmp_path):
    pytest.importorskip("torch")
    from hearts_env.train.distill.expert_iteration import ExItConfig, collect_parallel

    config = ExItConfig(decisions=120, worlds=2, top_k=2, seed=5, progress_bar=False, rollout_others="heuristic")
    assert "rollout_others='heuristic'" in repr(config.teacher())
    demos = collect_parallel(config, HAND)
    rows = np.flatnonzero((~np.isnan(demos.values)).sum(axis=1) > 1)[:20]
    assert len(rows) > 0
    network = collect_parallel(dataclasses.replace(config, rollout_others="network"), HAND)
    assert not np.array_equal(demos.values[rows], network.values[rows])  # other rollouts on the same deals
    with pytest.raises(ValueError, match="rollout_others"):
        ExItConfig(rollout_others="random", run_dir=str(tmp_path))


def test_expert_iteration_refuses_demonstrations_it_cannot_fit_before_any_work(tmp_path):
    from hearts_env.train.distill.expert_iteration import ExItConfig, main
    from hearts_env.train.ppo.imitation import Demonstrations

    (tmp_path / "junk.npz").write_bytes(b"not an npz")
    n = 3
    Demonstrations(
        np.zeros((n, 5), np.uint8), np.ones((n, 52), bool), np.zeros(n, np.int64), np.zeros(n, np.float32),
        np.arange(n), np.zeros(n, np.int64),
    ).save(tmp_path / "narrow.npz")  # fmt: skip
    np.savez(tmp_path / "short.npz", observations=np.zeros((2, 765), np.uint8))
    runs = tmp_path / "runs"
    for name, temperature, fragment in (
        ("junk.npz", 0.0, "junk.npz: not a readable .npz"),
        ("narrow.npz", 0.0, "narrow.npz: observations of 5 numbers, the network reads 765"),
        ("short.npz", 0.0, "short.npz: arrays ['observations'], expected"),
        ("narrow.npz", 1.0, "narrow.npz: no search values, which --temperature needs"),
    ):
        with pytest.raises(ValueError, match=re.escape(fragment)):
            main(ExItConfig(demos=str(tmp_path / name), temperature=temperature, run_dir=str(runs)))
    assert not runs.exists() or not any(runs.iterdir())  # no run folder made


def test_expert_iteration_refuses_bad_settings_with_one_line(capsys):
    from hearts_env.train.cli import expert_iteration as cli

    for argv, fragment in (
        (["--num-players", "5"], "num_players=5"),
        (["--decisions", "0"], "decisions"),
        (["--workers", "0"], "workers"),
        (["--temperature", "-1"], "temperature"),
        (["--play-share", "1.5"], "play_share"),
    ):
        with pytest.raises(SystemExit) as exit_:
            cli(argv)
        assert exit_.value.code not in (0, None)
        errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
        assert len(errors) == 1 and fragment in errors[0], errors
