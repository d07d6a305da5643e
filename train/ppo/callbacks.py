"""The callbacks of ``hearts_env.train.ppo``'s training (stable-baselines3's ``BaseCallback``): what
runs between the rollouts and updates of MaskablePPO.

``PeriodicCallback`` fires every so many timesteps (at the same multiples in a resumed run as in an
uninterrupted one); on it ``SnapshotCallback`` refreshes the self-play snapshot, ``EvalCallback``
plays the arena evaluation (the model's policy net, deterministic, against the
``eval_opponent`` agents on ``eval_deals`` duplicate hands) and ``CheckpointCallback`` writes
``checkpoint.pt``. ``ThroughputCallback`` times collection and update apart, evaluation excluded;
``ProgressCallback`` draws the bar. The league's callback is ``hearts_env.train.ppo.league.LeagueCallback``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from stable_baselines3.common.callbacks import BaseCallback

from hearts_env.play.progress import progress_bar
from hearts_env.train.config import PPOSettings
from hearts_env.train.ppo.checkpoints import CHECKPOINT_FILE, Snapshot, save_checkpoint
from hearts_env.train.run_files import evaluate_policy


class PeriodicCallback(BaseCallback):
    """Calls ``fire()`` once each time the timesteps pass a multiple of ``every`` (never if 0)."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every, self.next = every, every

    def fire(self) -> None:
        raise NotImplementedError

    def _on_training_start(self) -> None:  # a resumed run fires at the same multiples as an uninterrupted one
        self.next = (self.model.num_timesteps // self.every + 1) * self.every if self.every > 0 else self.every

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps >= self.next:
            self.fire()
            self.next += self.every * ((self.num_timesteps - self.next) // self.every + 1)
        return True


class SnapshotCallback(PeriodicCallback):
    """Refresh the self-play snapshot with the learner's weights every ``every`` timesteps."""

    def __init__(self, snapshot: Snapshot, every: int) -> None:
        super().__init__(every)
        self.snapshot = snapshot

    def fire(self) -> None:
        self.snapshot.load(self.model)


class EvalCallback(PeriodicCallback):
    """Arena evaluation every ``config.eval_every`` timesteps and at the end, logged under ``charts/``
    and written to ``path`` as they come (an interrupted run keeps its curve). ``candidate`` plays
    the model's policy net as its export does (the legal card of the highest logit; a privileged
    critic plays no part) against ``eval_opponent`` agents on ``eval_deals`` duplicate hands."""

    def __init__(self, config: PPOSettings, path: Path, candidate: Snapshot) -> None:
        super().__init__(config.eval_every)
        self.config, self.path, self.candidate = config, path, candidate
        self.history: list[dict[str, float]] = []
        self.seconds = 0.0  # spent evaluating, kept out of the throughput figures

    def _on_training_end(self) -> None:
        if not self.history or self.history[-1]["timesteps"] != self.num_timesteps:
            self.run_eval()
            self.logger.dump(self.num_timesteps)

    def fire(self) -> None:
        self.run_eval()

    def run_eval(self) -> None:
        start = time.perf_counter()
        self.candidate.load(self.model)
        config = self.config
        scores = evaluate_policy(
            self.candidate, config.rules, config.eval_opponent, config.eval_deals, config.seed + 10_000
        )
        scores["charts/eval_seconds"] = time.perf_counter() - start
        self.seconds += scores["charts/eval_seconds"]
        for key, value in scores.items():
            self.logger.record(key, value)
        self.history.append({"timesteps": self.num_timesteps, **scores})
        self.path.write_text(json.dumps(self.history, indent=2) + "\n")
        if self.config.verbose:
            print(f"eval @ {self.num_timesteps}: {scores}")


class ThroughputCallback(BaseCallback):
    """Collection and update speed, apart: ``charts/collect_SPS`` (environment steps per second
    while the rollout is gathered) and ``charts/update_SPS`` (the same steps per second of the
    PPO update that follows), evaluation time excluded."""

    def __init__(self, evaluation: EvalCallback) -> None:
        super().__init__()
        self.evaluation = evaluation
        self.collect_seconds = self.update_seconds = 0.0
        self.collected = self.updated = 0
        self.mark: float | None = None  # when the last rollout ended (None before the first)

    def _clock(self) -> float:
        return time.perf_counter() - self.evaluation.seconds

    def _on_rollout_start(self) -> None:
        now = self._clock()
        steps = self.model.n_steps * self.training_env.num_envs
        if self.mark is not None:
            self.update_seconds += now - self.mark
            self.updated += steps
            self.logger.record("charts/update_SPS", steps / (now - self.mark))
        self.start = now

    def _on_rollout_end(self) -> None:
        self.mark = self._clock()
        steps = self.model.n_steps * self.training_env.num_envs
        self.collect_seconds += self.mark - self.start
        self.collected += steps
        self.logger.record("charts/collect_SPS", steps / (self.mark - self.start))

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self._on_rollout_start()  # the last update

    def summary(self) -> dict[str, float | None]:
        """Steps per second collecting, updating and overall; None where no step was taken (a run
        resumed at its last timestep)."""
        if not self.collected or not self.updated:
            return {"collect_steps_per_second": None, "update_steps_per_second": None, "steps_per_second": None}
        collect_sps = self.collected / max(self.collect_seconds, 1e-9)
        update_sps = self.updated / max(self.update_seconds, 1e-9)
        return {
            "collect_steps_per_second": collect_sps,
            "update_steps_per_second": update_sps,
            "steps_per_second": 1 / (1 / collect_sps + 1 / update_sps),
        }


class CheckpointCallback(PeriodicCallback):
    """``checkpoint.pt`` every ``every`` timesteps (weights and optimizer state only)."""

    def __init__(self, folder: Path, every: int) -> None:
        super().__init__(every)
        self.folder = folder

    def fire(self) -> None:
        save_checkpoint(self.model, self.folder / CHECKPOINT_FILE)


class ProgressCallback(BaseCallback):
    """A bar over timesteps (``hearts_env.play.progress``; SB3's own bar needs rich as well)."""

    def _on_training_start(self) -> None:
        self.bar = progress_bar(self.locals["total_timesteps"], "train", "step")

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()
