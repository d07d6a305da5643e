"""Pictures of the table: every state a game can reach draws (each phase, 3 to 11 players, two
decks, the end of a hand and of the game), cards show as cards, hidden hands stay hidden, and the
environments' rgb_array and human modes and Gymnasium's RecordVideo work headless."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL")

from hearts_env.engine import core  # noqa: E402
from hearts_env.engine.rules import HeartsRules  # noqa: E402
from hearts_env.envs.aec import env as aec_env  # noqa: E402
from hearts_env.envs.gym_env import HeartsEnv, HeartsVectorEnv  # noqa: E402
from hearts_env.render import describe, render_view  # noqa: E402
from hearts_env.render.image import BLACK, RED, draw_table  # noqa: E402

TABLES = [(p, 1) for p in range(3, 8)] + [(p, 2) for p in range(6, 12)]


def states_of_a_game(rules: HeartsRules, seed: int = 0, every: int = 15) -> list[core.State]:
    """States of one random game: every ``every``-th, each hand's first and last, the end."""
    state, rng, out = core.new_games(rules, batch_size=1, seed=seed), np.random.default_rng(seed), []
    step = 0
    while not state.done[0]:
        if step % every == 0 or state.hand_over[0]:
            out.append(state)
        state = core.step(state, core.sample_actions(state, rng))
        step += 1
    return [*out, state]


def colour_share(frame: np.ndarray, colour: tuple[int, int, int], tolerance: int = 40) -> float:
    return float((np.abs(frame.astype(int) - colour).sum(axis=2) < tolerance).mean())


@pytest.mark.parametrize(("players", "decks"), TABLES)
def test_every_state_of_a_game_draws(players: int, decks: int) -> None:
    rules = HeartsRules(num_players=players, decks=decks, target_score=40 if decks == 1 else 60)
    states = states_of_a_game(rules)
    phases = {int(s.phase[0]) for s in states}
    assert phases == {core.PASS, core.PLAY, core.GAME_OVER} and any(s.hand_over[0] for s in states)
    for i, state in enumerate(states):
        size = (640, 480) if i % 2 else (1280, 720)
        frame = draw_table(describe(state, viewer=i % players), size)
        assert frame.shape == (size[1], size[0], 3) and frame.dtype == np.uint8
    assert render_view(describe(states[-1])).startswith(f"Hand {int(states[-1].hand_number[0])}")


def test_cards_are_drawn_red_and_black_and_hidden_hands_as_backs() -> None:
    state = core.new_games(HeartsRules(), batch_size=1, seed=0)
    shown = draw_table(describe(state), (640, 480))
    assert colour_share(shown, RED) > 0.003 and colour_share(shown, BLACK) > 0.003
    hidden = describe(state, face_up=[0])
    assert all(s.hand == () and s.held == 13 for s in hidden.seats[1:]) and len(hidden.seats[0].hand) == 13
    frame = draw_table(hidden, (640, 480))
    assert colour_share(frame, (40, 70, 160)) > 0.02 > colour_share(shown, (40, 70, 160))  # the backs
    assert colour_share(frame, RED) < colour_share(shown, RED)


def test_the_view_shows_what_the_table_shows() -> None:
    rules = HeartsRules()
    state, rng = core.new_games(rules, batch_size=1, seed=2), np.random.default_rng(2)
    for _ in range(5):  # seat 0 picks three cards, seat 1 two
        state = core.step(state, core.sample_actions(state, rng))
    view = describe(state, face_up=[0])
    assert [s.picks for s in view.seats] == [3, 2, 0, 0] and len(view.seats[0].picked) == 3
    assert view.seats[1].picked == () and view.receiver(0) == 1 and view.pass_direction == "left"
    while state.phase[0] == core.PASS or state.trick_size[0] < 2:
        state = core.step(state, core.sample_actions(state, rng))
    view = describe(state)
    assert [s for s, _ in view.trick] == [int(state.leader[0]), (int(state.leader[0]) + 1) % 4]
    assert view.seats[view.to_play].to_play and set(view.legal) == set(core.bits_to_cards(state.legal[0]))
    assert describe(state, face_up=[view.leader]).legal == ()  # the seat to act is face down: no legal cards
    data = view.to_dict()
    assert data["trick"][0]["name"] == core.card_name(view.trick[0][1]) and data["seats"][0]["hand_names"]


def test_bad_views_and_sizes_are_refused() -> None:
    state = core.new_games(HeartsRules(), batch_size=2, seed=0)
    with pytest.raises(ValueError, match="game must be in 0..1"):
        describe(state, game=2)
    with pytest.raises(ValueError, match="face_up and viewer must be seats 0..3"):
        describe(state, face_up=[4])
    with pytest.raises(ValueError, match="render size must be from 320x240"):
        draw_table(describe(state), (100, 100))
    with pytest.raises(ValueError, match="render_hands must be one of all, learner"):
        HeartsEnv(render_mode="rgb_array", render_hands="mine")
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        HeartsEnv(render_mode="video")


def test_environments_return_frames() -> None:
    env = HeartsEnv(render_mode="rgb_array", render_size=(800, 600), render_hands="learner", learner_seat=2)
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (600, 800, 3) and frame.dtype == np.uint8
    assert env.metadata["render_fps"] > 0 and "rgb_array" in env.metadata["render_modes"]
    vec = HeartsVectorEnv(3, render_mode="rgb_array", render_size=(640, 480))
    vec.reset(seed=0)
    frames = vec.render()
    assert len(frames) == 3 and all(f.shape == (480, 640, 3) for f in frames)
    assert not np.array_equal(frames[0], frames[1])  # three different deals
    table = aec_env(render_mode="rgb_array", render_hands="player_1")
    table.reset(seed=0)
    assert table.render().shape == (720, 960, 3)


def test_human_mode_opens_a_window_headless(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = HeartsEnv(render_mode="human", render_size=(640, 480))
    env.reset(seed=0)  # shows the first frame
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.render() is None and env._renderer.window.is_open
    env.close()
    assert not env._renderer.window.is_open


@pytest.mark.processes
def test_display_libraries_are_imported_only_to_draw() -> None:
    code = (
        "import sys, hearts_env; from hearts_env.envs.gym_env import HeartsEnv\n"
        "e = HeartsEnv(render_mode='ansi'); e.reset(seed=0); e.render()\n"
        "assert not {'PIL', 'pygame', 'moviepy'} & set(sys.modules), sorted({'PIL', 'pygame'} & set(sys.modules))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_record_video_writes_every_frame_of_a_hand(tmp_path: Path) -> None:
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = HeartsEnv(render_mode="rgb_array", render_size=(640, 480), episode="hand")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # moviepy's own chatter
        recorder = RecordVideo(env, str(tmp_path), episode_trigger=lambda episode: True, disable_logger=True)
        _, info = recorder.reset(seed=0)
        steps, done = 0, False
        while not done:
            _, _, done, _, info = recorder.step(int(np.flatnonzero(info["action_mask"])[0]))
            steps += 1
        recorder.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    assert steps == 13 + 3  # three picks and thirteen cards
    from moviepy import VideoFileClip

    with VideoFileClip(str(videos[0])) as clip:
        assert clip.size == [640, 480]
        assert clip.reader.n_frames == steps + 1  # the deal, then a frame after each step
