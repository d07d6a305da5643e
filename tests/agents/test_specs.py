"""Agents from specs (``hearts_env.agents.specs``): names and options checked with their names and
ranges, and each agent checked against the table's rules."""

from __future__ import annotations

import pytest

from hearts_env import HeartsRules
from hearts_env.agents import make_agent
from hearts_env.agents.specs import agent_from_spec, check_agents


def test_specs_name_the_agent_and_its_options():
    assert agent_from_spec("pimc:worlds=4", 0) is not None  # the example of hearts-arena's docstring
    with pytest.raises(ValueError, match="agent 'pimc:samples=20'.*samples"):
        agent_from_spec("pimc:samples=20", 0)
    with pytest.raises(ValueError, match=r"agent 'trained': the option 'path' is needed \(trained:path=\.\.\.\)"):
        agent_from_spec("trained", 0)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        agent_from_spec("nobody", 0)
    with pytest.raises(ValueError, match="is not key=value"):
        agent_from_spec("random:seed", 0)
    with pytest.raises(ValueError, match="missing file"):
        agent_from_spec("trained:path=/nowhere", 0)


def test_check_agents_refuses_tables_an_agent_cannot_play_without_touching_it():
    ppo = agent_from_spec("ppo", 0)
    random = agent_from_spec("random", 0)
    before = random.rng.bit_generator.state
    check_agents(HeartsRules(), [("ppo", ppo), ("random", random)])
    assert random.rng.bit_generator.state == before  # a copy decided
    for rules in (HeartsRules(num_players=5), HeartsRules(jack_of_diamonds=True)):
        with pytest.raises(ValueError, match="agent 'ppo' cannot play these rules"):
            check_agents(rules, [("random", random), ("ppo", ppo)])


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("pimc:worlds=abc", ["agent 'pimc:worlds=abc'", "worlds must be an int >= 1, got 'abc'"]),
        ("pimc:worlds=1.5", ["worlds must be an int >= 1, got 1.5"]),
        ("pimc:rollouts=0", ["rollouts must be an int >= 1, got 0"]),
        ("random:seed=-1", ["agent 'random:seed=-1'", "seed must be >= 0, got -1"]),
        ("pimc:worlds=1000000000", ["1,000,000,000 worlds", "GiB of memory"]),
        ("pimc-ppo:top_k=60", ["top_k must be an int in 1..52, got 60"]),
        ("pimc:objective=wins", ["objective must be one of points, margin"]),
        ("heuristic:spade_guard=2.5", ["spade_guard must be an int >= 0"]),
    ],
)
def test_agent_options_are_checked_with_their_names(spec: str, fragments: list[str]) -> None:
    with pytest.raises(ValueError) as error:
        agent_from_spec(spec, 0)
    for fragment in fragments:
        assert fragment in str(error.value)


@pytest.mark.parametrize(
    ("name", "option", "listed"),
    [
        ("heuristic", "foo", "seed, shoot_moon"),
        ("pimc", "wolrds", "seed, worlds, rollout"),  # its options go on to PIMCPolicy
        ("pimc-ppo-family-4", "temperature", "seed, path, worlds, top_k"),  # ... to PIMCPPOPolicy
        ("pimc-ppo-one", "network", "seed, path, worlds, top_k"),  # set by the agent itself
        ("ppo-family-4", "worlds", "seed, sample, path"),
    ],
)
def test_an_unknown_option_is_named_with_the_agents_options(name: str, option: str, listed: str) -> None:
    with pytest.raises(ValueError) as error:
        make_agent(name, **{option: 1})
    message = str(error.value)
    assert message.startswith(f"agent {name!r}: no option {option!r}; its options: {listed}")
    assert "network" not in message.partition("its options:")[2]  # never an option of the search's own
