"""Trained policies (``hearts_env.agents.learned.trained``): ``policy.json`` and ``policy.npz`` are untrusted
files, each refused with one error naming the file and what is wrong; and a trained policy never
chooses outside the mask."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from policy_files import export

import hearts_env.agents.learned.trained as trained
from hearts_env import HeartsRules
from hearts_env.agents.learned.trained import MAX_PARAMETERS, META_FILE, SHIPPED_DIR, WEIGHTS_FILE, TrainedPolicy
from hearts_env.engine.core import legal_mask, new_games, sample_actions, step
from hearts_env.engine.infoset import infoset
from hearts_env.engine.observation import ObservationLayout, encode


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
# A trained policy never chooses outside the mask


@pytest.mark.parametrize("scale", [1e30, 1e19, -1e30])
def test_extreme_but_finite_weights_still_choose_legal_cards(tmp_path: Path, scale: float) -> None:
    policy = TrainedPolicy(export(tmp_path / "extreme", HeartsRules(), scale=scale))
    rng = np.random.default_rng(0)
    state = new_games(HeartsRules(), batch_size=64, seed=0)
    for _ in range(60):
        info, mask = infoset(state), legal_mask(state)
        with np.errstate(all="ignore"):
            cards = policy(info, mask)
        assert mask[np.arange(64), cards].all()
        state = step(state, sample_actions(state, rng))


def test_masked_choice_with_nan_and_infinite_logits() -> None:
    from hearts_env.agents.learned.trained import masked_argmax

    mask = np.zeros((4, 52), bool)
    mask[:, [3, 7]] = True
    logits = np.zeros((4, 52), np.float32)
    logits[0] = np.nan
    logits[1, :] = -np.inf
    logits[2, 10] = np.inf  # an illegal card's logit wins nothing
    logits[3, [3, 7]] = [np.nan, -1e9]
    np.testing.assert_array_equal(masked_argmax(logits, mask), [3, 3, 3, 7])


def test_net_arch_must_agree_with_the_arrays(tmp_path: Path) -> None:
    folder = export(tmp_path / "p", HeartsRules())
    meta = json.loads((folder / META_FILE).read_text())
    meta["net_arch"] = [32]
    (folder / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=r"net_arch \[32\] disagrees with the arrays' hidden widths \[16\]"):
        TrainedPolicy(folder)
    del meta["net_arch"]  # optional: the arrays give the widths
    (folder / META_FILE).write_text(json.dumps(meta))
    assert TrainedPolicy(folder).hidden == [16]


def test_observations_of_another_layout_are_refused() -> None:
    """Another table's observations (or the compact layout where the network reads the trick's
    outcomes) would silently read the wrong weights: the forward pass names the widths instead."""
    network = TrainedPolicy(SHIPPED_DIR / "ppo")
    state = new_games(HeartsRules(num_players=5), batch_size=2, seed=0)
    other = encode(infoset(state), ObservationLayout(state.rules))
    wanted = rf"reads \(B, {network.layout.size}\) inputs, got an array of shape \(2, {other.shape[1]}\)"
    with pytest.raises(ValueError, match=wanted):
        network.logits(other)
    assert network.logits(other[:, : network.layout.size]).shape == (2, 52)  # the right width is read
