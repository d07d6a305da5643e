"""Hostile input at every entry point: each bad value, file or flag gets one clear error naming it,
before any work starts and with nothing changed or written.

Families: the rules knobs and their flags; the trained-policy loader (``policy.json`` and
``policy.npz`` as untrusted files); the training checkpoint loader; the training settings; the
command lines ``hearts-train``, ``hearts-main-job``, ``hearts-demo``, ``hearts-arena`` and
``hearts-play`` (called in-process: each must exit with one ``error:`` line, no traceback, before
playing or writing anything); and the documentation the code is checked against.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import re
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

import hearts_env.agents.arena_cli as arena_cli
import hearts_env.agents.trained as trained
from hearts_env import HeartsRules
from hearts_env.agents.play import main as play_main
from hearts_env.agents.specs import agent_from_spec, check_agents
from hearts_env.agents.trained import MAX_PARAMETERS, META_FILE, SHIPPED_DIR, WEIGHTS_FILE, TrainedPolicy
from hearts_env.cli.demo import main as demo_main
from hearts_env.engine.core import State
from hearts_env.engine.rules import add_rules_arguments, rules_from_args

ROOT = Path(__file__).resolve().parents[1]


def refused(capsys: pytest.CaptureFixture[str], run, *fragments: str) -> str:
    """Run a command line's main, expect it to exit non-zero with one error line holding every
    fragment (and no traceback); returns that line."""
    with pytest.raises(SystemExit) as exit_:
        run()
    assert exit_.value.code not in (0, None)
    err = capsys.readouterr().err
    if isinstance(exit_.value.code, str):  # sys.exit("prog: error: ...") prints nothing itself
        err += exit_.value.code
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    return lines[0]


# ---------------------------------------------------------------------------------------------
# The rules knobs and their flags


@pytest.mark.parametrize(
    ("knobs", "knob"),
    [
        ({"pass_cycle": 5}, "pass_cycle"),
        ({"pass_cycle": [["left"]]}, "pass_cycle"),
        ({"pass_cycle": {"left": 1}}, "pass_cycle"),
        ({"moon": []}, "moon"),
        ({"moon": np.array(["add_to_others", "x"])}, "moon"),
        ({"target_score": [100]}, "target_score"),
        ({"num_players": None}, "num_players"),
    ],
)
def test_rules_refuse_any_type_naming_the_knob(knobs, knob):
    with pytest.raises(ValueError, match=knob):
        HeartsRules(**knobs)


def test_rules_from_dict_refuses_non_mappings_and_unknown_knobs():
    assert HeartsRules.from_dict(HeartsRules(num_players=5, moon="shooter_choice").to_dict()) == HeartsRules(
        num_players=5, moon="shooter_choice"
    )
    assert HeartsRules.from_dict(json.loads(json.dumps(HeartsRules().to_dict()))) == HeartsRules()
    with pytest.raises(ValueError, match="rules must be a mapping"):
        HeartsRules.from_dict([4])
    with pytest.raises(ValueError, match="unknown rules knob jokers"):
        HeartsRules.from_dict({"jokers": 2})


def rules_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="x")
    add_rules_arguments(parser)
    return parser


def test_rules_flags_are_the_dataclass_fields():
    parser = rules_parser()
    knobs = [f.name for f in dataclasses.fields(HeartsRules) if f.init]
    assert {a.dest for a in parser._actions} - {"help"} == set(knobs)
    assert rules_from_args(parser.parse_args([]), parser) == HeartsRules()
    variant = parser.parse_args(
        "--num-players 5 --pass-count 2 --pass-cycle left,none --points-on-first-trick --no-queen-breaks-hearts "
        "--jack-of-diamonds --moon shooter_choice --target-score 0".split()
    )
    assert rules_from_args(variant, parser) == HeartsRules(
        num_players=5,
        pass_count=2,
        pass_cycle=("left", "none"),
        no_points_on_first_trick=False,
        queen_breaks_hearts=False,
        jack_of_diamonds=True,
        moon="shooter_choice",
        target_score=None,
    )
    again = parser.parse_args(["--points-on-first-trick", "--no-points-on-first-trick", "--pass-cycle", "standard"])
    assert rules_from_args(again, parser) == HeartsRules()
    for flag in ("--num-players", "--moon", "--jack-of-diamonds", "--no-points-on-first-trick"):
        assert flag in parser.format_help()


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--num-players", "9"], "num_players"),
        (["--num-players", "four"], "--num-players"),
        (["--pass-count", "99"], "pass_count"),
        (["--pass-cycle", "up"], "pass_cycle"),
        (["--pass-cycle", "across", "--num-players", "5"], "pass_cycle"),
        (["--moon", "sometimes"], "moon"),
        (["--target-score", "-1"], "target_score"),
    ],
)
def test_rules_flags_refuse_naming_the_knob(argv, fragment, capsys):
    parser = rules_parser()
    refused(capsys, lambda: rules_from_args(parser.parse_args(argv), parser), fragment)


# ---------------------------------------------------------------------------------------------
# The trained-policy loader: policy.json and policy.npz are untrusted files


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    """A copy of the shipped policy's two files, to damage."""
    folder = tmp_path / "policy"
    folder.mkdir()
    for name in (WEIGHTS_FILE, META_FILE):
        shutil.copy(SHIPPED_DIR / "ppo" / name, folder / name)
    return folder


def meta_of(folder: Path) -> dict:
    return json.loads((folder / META_FILE).read_text())


def arrays_of(folder: Path) -> dict[str, np.ndarray]:
    with np.load(folder / WEIGHTS_FILE) as npz:
        return {name: npz[name] for name in npz.files}


def refuse_policy(folder: Path, file: str, *fragments: str) -> str:
    with pytest.raises(ValueError) as info:
        TrainedPolicy(folder)
    message = str(info.value)
    assert str(folder / file) in message, message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def npy_member(archive: zipfile.ZipFile, name: str, header: dict, data: bytes = b"") -> None:
    """Write ``name.npy`` with a hand-made header (it may lie about the data)."""
    with archive.open(f"{name}.npy", "w", force_zip64=True) as f:
        np.lib.format.write_array_header_1_0(f, header)
        f.write(data)


def rewrite_npz(folder: Path, arrays: dict[str, np.ndarray], **members: tuple[dict, bytes]) -> None:
    """``policy.npz`` with ``arrays`` saved normally and ``members`` written by hand."""
    np.savez(folder / WEIGHTS_FILE, **arrays)
    with zipfile.ZipFile(folder / WEIGHTS_FILE, "a") as archive:
        for name, (header, data) in members.items():
            npy_member(archive, name, header, data)


def test_the_copied_policy_loads(policy):
    loaded, shipped = TrainedPolicy(policy), TrainedPolicy(SHIPPED_DIR / "ppo")
    for (w, b), (w0, b0) in zip(loaded.layers, shipped.layers, strict=True):
        np.testing.assert_array_equal(w, w0)
        np.testing.assert_array_equal(b, b0)
    np.testing.assert_array_equal(loaded.layers[0][0], arrays_of(policy)["pi.0.weight"])


def test_a_header_claiming_a_trillion_floats_is_refused_before_any_read(policy):
    arrays = arrays_of(policy)
    del arrays["pi.0.weight"]
    header = {"descr": "<f4", "fortran_order": False, "shape": (10**6, 10**6)}
    rewrite_npz(policy, arrays, **{"pi.0.weight": (header, b"\0" * 64)})
    refuse_policy(policy, WEIGHTS_FILE, "'pi.0.weight'", "(1000000, 1000000)")
    # a shape that chains but is far too big is refused by the cap, not by an allocation
    header["shape"] = (10**9, 765)
    rewrite_npz(policy, arrays, **{"pi.0.weight": (header, b"\0" * 64)})
    refuse_policy(policy, WEIGHTS_FILE, "'pi.0.weight'")
    assert MAX_PARAMETERS < 10**9


def test_layers_that_chain_past_the_cap_are_refused(policy, monkeypatch):
    """Each array under the cap, all of them over it: refused from the headers."""
    sizes = {name: array.size for name, array in arrays_of(policy).items()}
    assert max(sizes.values()) < 200_000 < sum(sizes.values())
    monkeypatch.setattr(trained, "MAX_PARAMETERS", 200_000)
    refuse_policy(policy, WEIGHTS_FILE, "more than 200000 numbers")


def test_an_unused_entry_is_never_read(policy, monkeypatch):
    """A large entry that policy.json does not name (zeros compress to almost nothing) is not
    opened, let alone decompressed into memory."""
    arrays = arrays_of(policy)
    np.savez(policy / WEIGHTS_FILE, **arrays)
    with zipfile.ZipFile(policy / WEIGHTS_FILE, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("junk.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": (2**23,)})
            for _ in range(8):
                f.write(bytes(2**22))
    assert (policy / WEIGHTS_FILE).stat().st_size < 2_000_000
    opened = []
    real_open = zipfile.ZipFile.open

    def spy(self, name, *args, **kwargs):
        opened.append(getattr(name, "filename", name))
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    TrainedPolicy(policy)
    assert opened and "junk.npy" not in opened


def test_an_npy_saved_as_npz_is_refused(policy):
    np.save(policy / "plain.npy", np.zeros(3, np.float32))
    (policy / "plain.npy").replace(policy / WEIGHTS_FILE)
    refuse_policy(policy, WEIGHTS_FILE, "corrupt file", "not a zip file")


@pytest.mark.parametrize(
    ("name", "array", "fragment"),
    [
        ("pi.0.bias", np.array(["1.0"] * 256), "dtype <U3, expected float32"),
        ("pi.0.bias", np.zeros(256, np.float64), "dtype float64"),
        ("pi.0.bias", np.zeros(256, np.int32), "dtype int32"),
        ("pi.0.bias", np.zeros(255, np.float32), "layer 'pi.0' has weight (256, 765) and bias (255,)"),
        ("action.weight", np.zeros((51, 256), np.float32), "layer 'action'"),
        ("input.scale", np.zeros((765, 1), np.float32), "input.scale must have shape (765,)"),
        ("pi.1.bias", np.full(256, np.nan, np.float32), "'pi.1.bias' holds NaN or infinite numbers"),
    ],
)
def test_arrays_of_the_wrong_kind_are_refused(policy, name, array, fragment):
    arrays = arrays_of(policy) | {name: array}
    np.savez(policy / WEIGHTS_FILE, **arrays)
    refuse_policy(policy, WEIGHTS_FILE, fragment)


def test_other_byte_orders_and_fortran_order_load_the_same(policy):
    shipped = TrainedPolicy(policy)
    arrays = arrays_of(policy)
    arrays["pi.0.weight"] = np.asfortranarray(arrays["pi.0.weight"])
    arrays["pi.1.weight"] = arrays["pi.1.weight"].astype(">f4")
    np.savez(policy / WEIGHTS_FILE, **arrays)
    loaded = TrainedPolicy(policy)
    for (w, b), (w0, b0) in zip(loaded.layers, shipped.layers, strict=True):
        np.testing.assert_array_equal(w, w0)
        np.testing.assert_array_equal(b, b0)
        assert w.dtype == np.float32


def test_damaged_archives_are_refused(policy):
    data = bytearray((policy / WEIGHTS_FILE).read_bytes())
    start = data.index(b"pi.1.weight.npy") + 200  # inside that member's data (stored, uncompressed)
    data[start : start + 8] = b"\xff" * 8
    (policy / WEIGHTS_FILE).write_bytes(bytes(data))
    refuse_policy(policy, WEIGHTS_FILE, "corrupt file", "CRC")
    (policy / WEIGHTS_FILE).write_bytes(bytes(data[: len(data) // 2]))
    refuse_policy(policy, WEIGHTS_FILE, "corrupt file")
    arrays = arrays_of(SHIPPED_DIR / "ppo")
    header = {"descr": "<f4", "fortran_order": False, "shape": (256,)}
    del arrays["pi.0.bias"]
    rewrite_npz(policy, arrays, **{"pi.0.bias": (header, b"\0" * 100)})  # the header says more than is there
    refuse_policy(policy, WEIGHTS_FILE, "'pi.0.bias'", "holds 100 bytes")
    with zipfile.ZipFile(policy / WEIGHTS_FILE, "w") as archive:
        archive.writestr("pi.0.bias.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': 1}    \n")
        archive.writestr("input.scale.npy", b"not an array at all")
    refuse_policy(policy, WEIGHTS_FILE, "'input.scale' has a corrupt header")


def test_missing_arrays_are_refused(policy):
    arrays = arrays_of(policy)
    del arrays["action.bias"]
    np.savez(policy / WEIGHTS_FILE, **arrays)
    refuse_policy(policy, WEIGHTS_FILE, "lacks the array 'action.bias'")


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"activation": []}, "unknown activation []"),
        ({"activation": "gelu"}, "unknown activation 'gelu'"),
        ({"layers": 5}, "layers must be a list"),
        ({"layers": []}, "layers must be a list"),
        ({"layers": ["pi.0", "pi.0", "action"]}, "distinct"),
        ({"layers": ["pi.0", 1, "action"]}, "layers must be a list"),
        ({"obs_size": "765"}, "obs_size '765'"),
        ({"obs_size": 764}, "obs_size 764"),
        ({"history": "no"}, "history must be true or false"),
        ({"layout_version": True}, "layout version True"),
        ({"layout_version": [2]}, "layout version [2]"),
        ({"format": {"a": 1}}, "format {'a': 1}"),
        ({"rules": [4]}, "invalid rules: rules must be a mapping"),
        ({"rules": {"num_players": 4, "jokers": 2}}, "invalid rules: unknown rules knob jokers"),
        ({"rules": {"num_players": "4"}}, "invalid rules: num_players"),
        ({"rules": {"pass_cycle": 5}}, "invalid rules: pass_cycle"),
        ({"num_players": [4]}, "num_players=[4]"),
    ],
)
def test_bad_policy_json_entries_are_refused(policy, change, fragment):
    (policy / META_FILE).write_text(json.dumps(meta_of(policy) | change))
    refuse_policy(policy, META_FILE, fragment)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"format": ' + "9" * 5000 + "}", "corrupt file"),
        ("[1, 2]", "not a JSON object"),
        ("{}", "lacks format"),
        ('{"format": "hearts-mlp-v1"', "corrupt file"),
    ],
)
def test_bad_policy_json_texts_are_refused(policy, text, fragment):
    (policy / META_FILE).write_text(text)
    refuse_policy(policy, META_FILE, fragment)


def test_policy_json_is_read_only_up_to_a_cap(policy):
    (policy / META_FILE).write_text(json.dumps(meta_of(policy) | {"padding": "x" * 2_000_000}))
    refuse_policy(policy, META_FILE, "at most")
    (policy / META_FILE).write_bytes(b"\xff\xfe{}")
    refuse_policy(policy, META_FILE, "corrupt file")


def test_a_path_that_is_no_path_is_refused():
    with pytest.raises(ValueError, match="path must be a run folder"):
        TrainedPolicy(5)


# ---------------------------------------------------------------------------------------------
# Agents from specs, checked against the table's rules


def test_specs_name_the_agent_and_its_options():
    assert agent_from_spec("pimc:worlds=4", 0) is not None  # the example of hearts-arena's docstring
    with pytest.raises(ValueError, match="agent 'pimc:samples=20'.*samples"):
        agent_from_spec("pimc:samples=20", 0)
    with pytest.raises(ValueError, match="agent 'trained'.*path"):
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


# ---------------------------------------------------------------------------------------------
# hearts-demo


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--num-players", "9"], "num_players"),
        (["--target-score", "-1"], "target_score"),
        (["--seed", "-1"], "--seed"),
        (["--pass-count", "20"], "pass_count"),
        (["--moon", "maybe"], "moon"),
        (["--pass-cycle", "across", "--num-players", "3"], "pass_cycle"),
    ],
)
def test_demo_refuses_bad_flags(argv, fragment, capsys):
    refused(capsys, lambda: demo_main(argv), "hearts-demo: error:", fragment)
    assert "Hand 1" not in capsys.readouterr().out


def test_demo_plays_any_variant(capsys):
    demo_main(["--seed", "3", "--num-players", "5", "--jack-of-diamonds", "--target-score", "0", "--pass-count", "1"])
    out = capsys.readouterr().out
    assert "=== Hand 1 (pass left) ===" in out and "Game over after 1 hands" in out


# ---------------------------------------------------------------------------------------------
# hearts-arena: everything checked before the first deal


@pytest.fixture
def no_match(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("the match started")

    monkeypatch.setattr(arena_cli, "play_match", fail)
    monkeypatch.setattr(arena_cli, "round_robin", fail)


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["ppo"] + ["random"] * 4 + ["--num-players", "5"], ["agent 'ppo' cannot play", "num_players=5"]),
        (["ppo"] + ["random"] * 3 + ["--jack-of-diamonds"], ["agent 'ppo' cannot play", "jack_of_diamonds=True"]),
        (["random"] * 4 + ["--json", "/missing/dir/x.json"], ["--json", "/missing/dir"]),
        (["random"] * 4 + ["--plot", "/missing/dir/x.png"], ["--plot", "/missing/dir"]),
        (["random"] * 4 + ["--json", "."], ["--json", "is a folder"]),
        (["trained"] + ["random"] * 3, ["agent 'trained'", "path"]),
        (["trained:path=/nowhere"] + ["random"] * 3, ["missing file"]),
        (["pimc:samples=20"] + ["random"] * 3, ["samples"]),
        (["random"] * 4 + ["--episode", "game", "--target-score", "0"], ["--target-score"]),
        (["random"] * 4 + ["--num-players", "9"], ["num_players"]),
        (["random"] * 4 + ["--pass-cycle", "sideways"], ["pass_cycle"]),
        (["random"] * 4 + ["--seed", "-1"], ["--seed"]),
        (["random"] * 4 + ["--deals", "0"], ["--deals"]),
        (["random"] * 4 + ["--deals", "many"], ["--deals"]),
        (["random"] * 3, ["a match needs 4 agents"]),
        (["--round-robin", "random", "random"], ["distinct agents"]),
    ],
)
def test_arena_refuses_before_the_match(argv, fragments, capsys, no_match):
    refused(capsys, lambda: arena_cli.main(argv), "hearts-arena: error:", *fragments)


def test_arena_plays_a_variant_named_by_flags(capsys):
    argv = ["random"] * 5 + ["--num-players", "5", "--moon", "shooter_choice", "--points-on-first-trick"]
    arena_cli.main(argv + ["--deals", "2", "--episode", "hand", "--json", "-", "--no-progress"])
    rules = json.loads(capsys.readouterr().out)["rules"]
    assert rules["num_players"] == 5 and rules["moon"] == "shooter_choice"
    assert rules["no_points_on_first_trick"] is False


# ---------------------------------------------------------------------------------------------
# hearts-play


def quit_at_once(prompt: str) -> str:
    return "quit"


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--opponents", "trained"], ["agent 'trained'", "path"]),
        (["--opponents", "ppo", "--num-players", "5"], ["agent 'ppo' cannot play"]),
        (["--opponents", "heuristic", "ppo", "random", "--moon", "shooter_choice"], []),
        (["--opponents", "ppo", "--jack-of-diamonds"], ["agent 'ppo' cannot play"]),
        (["--seed", "-1"], ["--seed"]),
        (["--pass-cycle", "up"], ["pass_cycle"]),
        (["--seat", "7"], ["--seat"]),
    ],
)
def test_play_refuses_before_the_game(argv, fragments, capsys):
    if not fragments:  # shooter_choice is not a layout knob: the shipped agent plays it
        assert play_main(argv, input_fn=quit_at_once, output=io.StringIO()) == 0
        return
    output = io.StringIO()
    refused(capsys, lambda: play_main(argv, input_fn=quit_at_once, output=output), "hearts-play: error:", *fragments)
    assert output.getvalue() == ""


def test_play_takes_a_trained_policy_by_path():
    output = io.StringIO()
    spec = f"trained:path={SHIPPED_DIR / 'ppo'}"
    assert play_main(["--opponents", spec, "--seed", "0"], input_fn=quit_at_once, output=output) == 0
    assert spec in output.getvalue()


@pytest.mark.parametrize(("num_players", "opener"), [(4, "2♣"), (5, "3♣"), (6, "2♣"), (7, "2♣"), (3, "2♣")])
def test_play_help_names_the_tables_opening_card(num_players, opener):
    output = io.StringIO()
    lines = iter(["help", "quit"])
    play_main(["--num-players", str(num_players), "--seed", "0"], input_fn=lambda p: next(lines), output=output)
    assert f"{opener} opens the first trick" in output.getvalue()


# ---------------------------------------------------------------------------------------------
# Documentation that the code is checked against


def test_no_file_cites_a_folder_outside_the_repository():
    texts = [p for p in ROOT.rglob("*") if p.suffix in (".py", ".md", ".ipynb") and ".venv" not in p.parts]
    for path in set(texts) - {Path(__file__).resolve()}:
        text = path.read_text(encoding="utf-8")
        assert "shared/" not in text, f"{path} cites a shared/ folder"
    assert (ROOT / "docs" / "rules.md").is_file()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for link in re.findall(r"\]\(([^)#]+)", readme):
        if not link.startswith("http"):
            assert (ROOT / link).exists(), f"README links {link}, which is not in the repository"


def test_docs_list_every_state_field():
    page = (ROOT / "docs" / "environments.md").read_text(encoding="utf-8")
    fields_section = page[page.index("`State` fields") :]
    for name in State.FIELDS:
        assert f"`{name}`" in fields_section, name


# ---------------------------------------------------------------------------------------------
# Training: the checkpoint loader, the settings, hearts-train and hearts-main-job


class Payload:
    """Unpickling this would create ``marker``: a checkpoint must never run it."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.fixture(scope="module")
def ppo():
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from hearts_env.train import ppo

    return ppo


def small_config(ppo, tmp_path: Path, **overrides):
    settings = dict(num_envs=2, n_steps=8, batch_size=16, net_arch="8", run_dir=str(tmp_path / "runs"))
    return ppo.PPOConfig(**(settings | overrides))


def small_model(ppo, config):
    from hearts_env.envs.gym_env import HeartsVectorEnv
    from hearts_env.envs.sb3 import SB3VecEnv

    return ppo.build_model(config, SB3VecEnv(HeartsVectorEnv(config.num_envs, config.rules)))


def trained_a_step(model) -> None:
    """One optimizer step on a dummy loss, so the optimizer holds per-parameter state."""
    loss = sum(p.sum() for p in model.policy.parameters())
    model.policy.optimizer.zero_grad()
    loss.backward()
    model.policy.optimizer.step()


def snapshot(model) -> list[np.ndarray]:
    tensors = [t.detach().clone().numpy() for t in model.policy.state_dict().values()]
    for state in model.policy.optimizer.state_dict()["state"].values():
        tensors += [v.detach().clone().numpy() for v in state.values()]
    return tensors + [np.array(model.num_timesteps)]


def test_checkpoint_loader_refuses_everything_but_a_checkpoint_and_loads_nothing(ppo, tmp_path):
    import torch

    from hearts_env.train.checkpoints import load_checkpoint, save_checkpoint

    config = small_config(ppo, tmp_path)
    source, target = small_model(ppo, config), small_model(ppo, config)
    trained_a_step(source)
    source.num_timesteps = 123
    good = tmp_path / "good.pt"
    save_checkpoint(source, good)
    state = torch.load(good, weights_only=True)
    other = small_model(ppo, small_config(ppo, tmp_path, net_arch="16"))
    trained_a_step(other)
    other_state = {"policy": other.policy.state_dict(), "optimizer": other.policy.optimizer.state_dict()}
    trained_a_step(target)
    marker = tmp_path / "payload-ran"
    bad_optimizer = state["optimizer"] | {"state": {0: {"exp_avg": torch.zeros(3), "step": torch.tensor(1.0)}}}
    cases = {
        "pickle": (state | {"policy": Payload(marker)}, "cannot load"),
        "bare tensor": (torch.zeros(3), "expected a dict"),
        "list": ([state["policy"], state["optimizer"]], "expected a dict"),
        "missing key": ({k: v for k, v in state.items() if k != "optimizer"}, "expected a dict"),
        "other network": (state | {"policy": other_state["policy"]}, "another shape"),
        "other optimizer": (state | {"optimizer": other_state["optimizer"]}, "optimizer state"),
        "optimizer of other shapes": (state | {"optimizer": bad_optimizer}, "optimizer state exp_avg"),
        "float timesteps": (state | {"num_timesteps": torch.tensor(1.5)}, "num_timesteps"),
        "negative timesteps": (state | {"num_timesteps": torch.tensor(-1)}, "num_timesteps"),
    }
    before = snapshot(target)
    for case, (payload, fragment) in cases.items():
        path = tmp_path / f"{case}.pt"
        torch.save(payload, path)
        with pytest.raises(ValueError, match="resume: cannot load") as info:
            load_checkpoint(target, path)
        assert fragment in str(info.value) and str(path) in str(info.value), (case, str(info.value))
        for a, b in zip(before, snapshot(target), strict=True):
            np.testing.assert_array_equal(a, b, err_msg=case)
    assert not marker.exists()
    data = good.read_bytes()
    for case, damaged in {"truncated": data[: len(data) // 2], "empty": b"", "noise": bytes(range(256)) * 8}.items():
        path = tmp_path / f"{case}.pt"
        path.write_bytes(damaged)
        with pytest.raises(ValueError, match=f"resume: cannot load {re.escape(str(path))}"):
            load_checkpoint(target, path)
    load_checkpoint(target, good)  # and the real one loads whole
    assert target.num_timesteps == 123
    for a, b in zip(snapshot(source), snapshot(target), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        ({"num_envs": "3"}, "num_envs must be int"),
        ({"num_envs": 0}, "num_envs must be >= 1"),
        ({"total_timesteps": True}, "total_timesteps must be int"),
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"gamma": 1.5}, "gamma"),
        ({"opponents": ["heuristic", 3]}, "opponents must be a list of names"),
        ({"opponents": ["heuristic", "nobody", "random"]}, "opponents: unknown 'nobody'"),
        ({"opponents": ["random", "random"]}, "give 1 name or 3"),
        ({"rules": {"num_players": 9}}, "num_players"),
        ({"rules": "standard"}, "rules must be HeartsRules"),
        ({"exp_name": "a/b"}, "exp_name"),
        ({"exp_name": ".."}, "exp_name"),
        ({"net_arch": "64,,64"}, "net_arch"),
        ({"activation": "gelu"}, "activation"),
        ({"reward": "money"}, "reward"),
        ({"episode": "set"}, "episode"),
        ({"eval_opponent": "self"}, "eval_opponent"),
        ({"bc_teacher": "nobody"}, "bc_teacher"),
        ({"device": "toaster"}, "device"),
    ],
)
def test_training_settings_are_checked(ppo, settings, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        ppo.PPOConfig(**settings)


def test_training_config_round_trips_through_json(ppo):
    config = ppo.PPOConfig(rules=HeartsRules(num_players=5, moon="shooter_choice"), opponents=["simple"])
    assert ppo.PPOConfig(**json.loads(json.dumps(config.to_dict()))) == config


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--activation", "bogus"], "activation"),
        (["--num-players", "9"], "num_players"),
        (["--resume", "MISSING"], "resume: no checkpoint.pt in MISSING"),
        (["--exp-name", "../../x"], "exp_name"),
        (["--opponents", "ppo", "--num-players", "5"], "agent 'ppo' cannot play"),
        (["--eval-opponent", "ppo", "--jack-of-diamonds"], "agent 'ppo' cannot play"),
        (["--bc-teacher", "ppo", "--num-players", "3", "--opponents", "random"], "agent 'ppo' cannot play"),
        (["--opponents", "random", "random"], "give 1 name or 3"),
        (["--total-timesteps", "lots"], "--total-timesteps"),
        (["--progress-bar", "maybe"], "--progress-bar"),
        (["--seed", "-1"], "seed must be >= 0"),
    ],
)
def test_train_command_refuses_before_making_the_run_folder(ppo, argv, fragment, capsys, tmp_path):
    runs = tmp_path / "runs"
    refused(capsys, lambda: ppo.cli(argv + ["--run-dir", str(runs)]), "hearts-train: error:", fragment)
    assert not runs.exists()


def test_train_command_refuses_a_damaged_checkpoint_before_making_the_run_folder(ppo, capsys, tmp_path):
    from hearts_env.train.checkpoints import CHECKPOINT_FILE

    (tmp_path / "old").mkdir()
    (tmp_path / "old" / CHECKPOINT_FILE).write_bytes(b"PK\x03\x04 truncated")
    runs = tmp_path / "runs"
    argv = ["--resume", str(tmp_path / "old"), "--run-dir", str(runs), "--num-envs", "2", "--net-arch", "8"]
    refused(capsys, lambda: ppo.cli(argv), "hearts-train: error: resume: cannot load")
    assert not runs.exists()


def test_train_command_refuses_a_run_dir_that_is_a_file(ppo, capsys, tmp_path):
    (tmp_path / "runs").write_text("not a folder")
    argv = ["--run-dir", str(tmp_path / "runs"), "--num-envs", "2", "--net-arch", "8", "--bc-teacher", ""]
    refused(capsys, lambda: ppo.cli(argv), "hearts-train: error: run_dir: cannot make the run folder")


def test_train_command_takes_every_rules_flag(ppo):
    config = ppo.parse_args(["--num-players", "5", "--moon", "subtract_from_self", "--points-on-first-trick"])
    assert config.rules == HeartsRules(num_players=5, moon="subtract_from_self", no_points_on_first_trick=False)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--baselines", "random", "nobody"], "baselines: unknown 'nobody'"),
        (["--num-players", "5"], "agent 'ppo' cannot play"),
        (["--jack-of-diamonds", "--baselines", "random", "ppo", "--shipped", "false"], "agent 'ppo' cannot play"),
        (["--deals", "0"], "deals must be >= 1"),
        (["--exp-name", "../x"], "exp_name"),
    ],
)
def test_benchmark_command_refuses_before_training(ppo, argv, fragment, capsys, tmp_path, monkeypatch):
    from hearts_env.train import main_job

    monkeypatch.setattr(ppo, "main", lambda config: pytest.fail("the training started"))
    runs = tmp_path / "runs"
    refused(capsys, lambda: main_job.cli(argv + ["--run-dir", str(runs)]), "hearts-main-job: error:", fragment)
    assert not runs.exists()


def test_benchmark_of_a_variant_without_the_shipped_agent_starts(ppo, monkeypatch):
    from hearts_env.train import main_job

    class Started(Exception):
        pass

    def started(config):
        assert config.rules.num_players == 5 and not config.shipped
        raise Started

    monkeypatch.setattr(ppo, "main", started)
    with pytest.raises(Started):
        main_job.cli(["--num-players", "5", "--shipped", "false", "--opponents", "random"])


def test_play_refuses_two_decks_at_a_small_table(capsys) -> None:
    from hearts_env.agents import play

    with pytest.raises(SystemExit):
        play.main(["--decks", "2", "--num-players", "4"], input_fn=lambda prompt: "")
    assert "decks" in capsys.readouterr().err
