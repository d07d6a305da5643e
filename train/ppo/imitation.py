"""Behaviour cloning: start a policy from a teacher agent's choices before reinforcement learning.

``collect`` lets a teacher (any batched ``Policy``, e.g. the heuristic) play every seat of many
games on the batched core and records each decision as the learner would see it: the observation
of the seat to act, its legal cards, the teacher's card, and the return that followed under a
reward mode (what that seat was paid from this decision to the end of the hand). ``pretrain``
fits an sb3-contrib ``MaskableActorCriticPolicy`` to them: cross-entropy of the masked action
logits against the teacher's card, and the value head against the return, so that PPO starts
from the teacher's play with a critic that already knows what positions are worth.

    demos = collect(HeartsRules(), make_agent("heuristic"), decisions=1_000_000, seed=0)
    pretrain(model.policy, demos, epochs=3, seed=0)
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from pathlib import Path

import numpy as np
import torch
from gymnasium import spaces

from hearts_env.engine import checks
from hearts_env.engine.core import new_games
from hearts_env.engine.global_state import GlobalStateLayout, global_state
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.observation import ObservationLayout, encode
from hearts_env.engine.rewards import check_reward_mode, step_rewards
from hearts_env.engine.rules import HeartsRules
from hearts_env.engine.seeding import MIXED_PLAY, derive, game_keys
from hearts_env.play.policy import Policy
from hearts_env.play.progress import progress_bar
from hearts_env.play.runner import Step, play
from hearts_env.train.ppo.masked_policy import MASKED_LOGIT


@dataclass(frozen=True)
class Demonstrations:
    """N recorded decisions."""

    observations: np.ndarray  # (N, obs size) uint8
    masks: np.ndarray  # (N, 52) bool: legal cards
    actions: np.ndarray  # (N,) int64: the teacher's card
    returns: np.ndarray  # (N,) float32: reward paid to the deciding seat from here to the hand's end
    hands: np.ndarray  # (N,) int64: which hand the decision belongs to (numbered in the order dealt)
    seats: np.ndarray  # (N,) int64: the deciding seat
    values: np.ndarray | None = None  # (N, 52) float32: the teacher's value of each card, NaN where it gave none
    states: np.ndarray | None = None  # (N, state size) uint8: the global state seen from the deciding seat

    def __len__(self) -> int:
        return len(self.actions)

    def save(self, path: str | Path) -> None:
        """Write the arrays to ``path`` (a compressed ``.npz``; read back by ``load``)."""
        np.savez_compressed(
            path, **{f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}
        )

    @classmethod
    def load(cls, path: str | Path) -> Demonstrations:
        """Demonstrations written by ``save`` (no pickles are read); ``ValueError`` naming the file
        for a missing array or arrays of different lengths."""
        try:
            with np.load(path, allow_pickle=False) as arrays:
                found = {name: arrays[name] for name in arrays.files}
        except (OSError, ValueError) as error:
            raise ValueError(f"demonstrations {path}: not a readable .npz ({error})") from None
        names = [f.name for f in fields(cls)]
        required = [f.name for f in fields(cls) if f.default is MISSING]
        if not set(required) <= set(found) <= set(names):
            optional = "values, states optional"
            raise ValueError(f"demonstrations {path}: arrays {sorted(found)}, expected {names} ({optional})")
        if len({len(array) for array in found.values()}) != 1:
            raise ValueError(f"demonstrations {path}: the arrays differ in length")
        return cls(**found)


def collect(
    rules: HeartsRules,
    teacher: Policy,
    decisions: int,
    seed: int = 0,
    num_games: int | None = None,
    reward: str = "points",
    progress: bool = False,
    values: bool = False,
    player: Policy | None = None,
    player_share: float = 0.0,
    states: bool = False,
    layout: ObservationLayout | None = None,
) -> Demonstrations:
    """At least ``decisions`` decisions of ``teacher`` playing every seat of whole games (``num_games``
    at a time, by default enough for a few hands each, at most 1024; a fresh batch is dealt once
    half of them are over). Game i of the collection is game i of ``seed`` (``seeding.game_keys``).
    Only the decisions of completed hands count and are kept, so every return is complete. With
    ``values`` the teacher's ``decide_with_values`` (``pimc-ppo``'s) also gives each decision's
    card values, kept in ``values``. With a ``player``, that policy's card is played instead of
    the teacher's at a ``player_share`` of the decisions (drawn from ``seed``), while the teacher's
    card is still the one recorded: the learner's own positions labelled by the teacher (DAgger).
    ``states`` also keeps the global state seen from each deciding seat (for a privileged critic).
    The observations have ``layout`` (by default the compact one of ``rules``)."""
    decisions = checks.integer("decisions", decisions, 1)
    if num_games is None:
        num_games = int(np.clip(decisions // 256, 1, 1024))
    num_games = checks.integer("num_games", num_games, 1)
    check_reward_mode(reward)
    if values and not callable(getattr(teacher, "decide_with_values", None)):
        raise ValueError(f"teacher {teacher!r} gives no card values (it has no decide_with_values)")
    if not 0 <= player_share <= 1:
        raise ValueError(f"player_share must be in [0, 1], got {player_share}")
    if player_share > 0 and player is None:
        raise ValueError("player_share needs a player whose cards are played")
    rng = np.random.default_rng(int(derive(seed, MIXED_PLAY, 0)))
    labeller = _LabellingTeacher(teacher, values, player, player_share, rng)
    state_layout = GlobalStateLayout(rules) if checks.flag("states", states) else None
    layout = ObservationLayout(rules) if layout is None else layout
    recorder = _Recorder(layout, state_layout, reward, decisions, num_games, progress, labeller)
    games_dealt = 0
    while recorder.complete < decisions:
        state = new_games(rules, keys=game_keys(seed, games_dealt + np.arange(num_games)))
        games_dealt += num_games
        recorder.new_batch()
        play(state, [labeller] * rules.num_players, on_step=recorder.record)
    recorder.bar.close()
    return _assemble(recorder.records, recorder.finals, recorder.next_hand, rules.num_players)


class _LabellingTeacher:
    """The teacher as the runner calls it (one call a step: it plays every seat), keeping for the
    recorder its cards of the last call and, with ``values``, its card values; at a ``player_share``
    of the decisions the ``player``'s card is the one played."""

    def __init__(
        self, teacher: Policy, values: bool, player: Policy | None, player_share: float, rng: np.random.Generator
    ) -> None:
        self.teacher, self.values, self.player, self.player_share, self.rng = teacher, values, player, player_share, rng
        self.chosen: np.ndarray | None = None
        self.last: np.ndarray | None = None

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        if self.values:
            actions, values = self.teacher.decide_with_values(info, mask)
            self.last = np.asarray(values, np.float32)
        else:
            actions = self.teacher(info, mask)
        self.chosen = np.asarray(actions)
        if self.player_share == 0:
            return actions
        played = self.rng.random(len(self.chosen)) < self.player_share
        return np.where(played, self.player(info, mask), self.chosen)


class _Recorder:
    """Records each decision of a batch of games as the runner plays them, and what every seat was
    paid over each hand; asks the runner to stop once enough decisions are in or half the games are over."""

    def __init__(
        self,
        layout: ObservationLayout,
        state_layout: GlobalStateLayout | None,
        reward: str,
        decisions: int,
        num_games: int,
        progress: bool,
        labeller: _LabellingTeacher,
    ) -> None:
        self.layout, self.reward, self.decisions, self.num_games = layout, reward, decisions, num_games
        self.state_layout, self.labeller = state_layout, labeller
        self.records: list[dict[str, np.ndarray]] = []  # a step's arrays by Demonstrations field, and "before"
        self.finals: list[tuple[np.ndarray, np.ndarray]] = []  # (hand ids, (n, P) paid over each hand)
        self.complete = self.next_hand = 0  # decisions of completed hands; hands numbered
        self.bar = progress_bar(decisions, "collect", "decision", enabled=progress)

    def new_batch(self) -> None:
        P = self.layout.rules.num_players
        self.hand_id = self.next_hand + np.arange(self.num_games)  # the hand each game is playing
        self.next_hand += self.num_games
        self.paid = np.zeros((self.num_games, P), np.float32)  # reward paid to each seat so far this hand
        self.in_hand = np.zeros(self.num_games, np.int64)  # decisions recorded in each game's hand so far
        self.games_over = 0

    def record(self, step: Step) -> bool:
        games, seat = step.games, step.seats.astype(np.int64)
        before = self.paid[games, seat]
        record = {
            "observations": encode(step.info, self.layout),
            "masks": step.mask,
            "actions": self.labeller.chosen,
            "hands": self.hand_id[games],
            "seats": seat,
            "before": before,
        }
        if self.labeller.last is not None:
            record["values"] = self.labeller.last
        if self.state_layout is not None:
            record["states"] = global_state(step.state, self.state_layout, seat)
        self.records.append(record)
        self.paid[games] += step_rewards(step.state, step.after, self.reward)
        self.in_hand[games] += 1
        ended = games[step.after.hand_over]
        self.finals.append((self.hand_id[ended], self.paid[ended]))
        self.hand_id[ended] = self.next_hand + np.arange(len(ended))
        self.next_hand += len(ended)
        self.paid[ended] = 0
        done = int(self.in_hand[ended].sum())  # decisions of the hands that ended: kept
        self.in_hand[ended] = 0
        # the hands that end last carry the count past the target: the bar stops at the target
        self.bar.update(min(self.complete + done, self.decisions) - min(self.complete, self.decisions))
        self.complete += done
        self.games_over += np.count_nonzero(step.after.done)
        return self.complete >= self.decisions or self.games_over > self.num_games // 2


def _assemble(
    records: list[dict[str, np.ndarray]], finals: list[tuple[np.ndarray, np.ndarray]], hands: int, P: int
) -> Demonstrations:
    """The kept decisions as one array per field; the observations and states are copied out chunk
    by chunk, each chunk let go once copied, so a large collection is not held twice."""
    ids, seats, before = (np.concatenate([r[k] for r in records]) for k in ("hands", "seats", "before"))
    total = np.full((hands, P), np.nan, np.float32)  # paid over each hand; NaN for hands cut off
    for done_ids, done_paid in finals:
        total[done_ids] = done_paid
    returns = total[ids, seats] - before
    keep = ~np.isnan(returns)
    arrays = {"returns": returns[keep].astype(np.float32), "hands": ids[keep], "seats": seats[keep]}
    for name in ("masks", "actions", "values"):
        if name in records[0]:
            arrays[name] = np.concatenate([r[name] for r in records])[keep]
    for name in ("observations", "states"):
        if name in records[0]:
            arrays[name] = _kept_rows(records, name, keep)
    return Demonstrations(**arrays)


def _kept_rows(records: list[dict[str, np.ndarray]], name: str, keep: np.ndarray) -> np.ndarray:
    """The kept rows of every record's ``name`` array in one array; each record lets go of it once copied."""
    first = records[0][name]
    out = np.empty((np.count_nonzero(keep), first.shape[1]), first.dtype)
    row = start = 0
    for record in records:
        chunk = record.pop(name)
        kept = chunk[keep[start : start + len(chunk)]]
        out[row : row + len(kept)] = kept
        row, start = row + len(kept), start + len(chunk)
    return out


def pretrain(
    policy: torch.nn.Module,
    demos: Demonstrations,
    epochs: int = 3,
    batch_size: int = 2048,
    learning_rate: float = 1e-3,
    action_coef: float = 1.0,
    value_coef: float = 0.5,
    holdout: float = 0.05,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, float]:
    """Fit ``policy`` (a ``MaskableActorCriticPolicy``) to the demonstrations with Adam (``action_coef``
    0 leaves the policy net as it is and fits the value net alone); returns the
    final training losses and, on a held-out share of the decisions, the loss and the accuracy
    (share of decisions with more than one legal card where the policy's top card is the teacher's)."""
    if len(demos) < 2:
        raise ValueError(f"pretrain needs recorded decisions of whole hands, got {len(demos)}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(demos))
    cut = int(len(order) * (1 - holdout))
    train_rows, test_rows = order[:cut], np.sort(order[cut:])
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate, fused=True)  # one kernel a step, the same maths
    policy.train()
    steps = epochs * -(-len(train_rows) // batch_size)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, max(steps, 1))
    bar = progress_bar(steps, "pretrain", "batch", enabled=progress)
    metrics: dict[str, float] = {}
    for _ in range(epochs):
        rng.shuffle(train_rows)
        for start in range(0, len(train_rows), batch_size):
            rows = np.sort(train_rows[start : start + batch_size])
            action_loss, value_loss, _ = _losses(policy, demos, rows)
            loss = action_coef * action_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            bar.update(1)
        metrics |= {"bc/action_loss": action_loss.item(), "bc/value_loss": value_loss.item()}
    bar.close()
    policy.eval()
    with torch.no_grad():
        chunks = np.array_split(test_rows, max(1, len(test_rows) // 8192))
        parts = [_losses(policy, demos, chunk) for chunk in chunks]
    sizes = [len(chunk) for chunk in chunks]
    choices = demos.masks[test_rows].sum(axis=1) > 1
    hits = np.concatenate([p[2] for p in parts])
    metrics |= {
        "bc/holdout_action_loss": float(np.average([float(p[0]) for p in parts], weights=sizes)),
        "bc/holdout_value_loss": float(np.average([float(p[1]) for p in parts], weights=sizes)),
        "bc/holdout_accuracy": float(hits[choices].mean()),
    }
    return metrics


def _losses(policy: torch.nn.Module, demos: Demonstrations, rows: np.ndarray) -> tuple[torch.Tensor, ...]:
    """Cross-entropy of the masked logits, squared value error, and per-row top-card hits."""
    obs: torch.Tensor | dict[str, torch.Tensor] = torch.as_tensor(demos.observations[rows], device=policy.device)
    if demos.states is not None and isinstance(policy.observation_space, spaces.Dict):  # a privileged critic's
        obs = {"observation": obs, "state": torch.as_tensor(demos.states[rows], device=policy.device)}
    mask = torch.as_tensor(demos.masks[rows], device=policy.device)
    actions = torch.as_tensor(demos.actions[rows], device=policy.device)
    returns = torch.as_tensor(demos.returns[rows], device=policy.device)
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
    logits = policy.action_net(latent_pi).masked_fill(~mask, MASKED_LOGIT)
    values = policy.value_net(latent_vf).squeeze(-1)
    hits = (logits.argmax(dim=1) == actions).cpu().numpy()
    return torch.nn.functional.cross_entropy(logits, actions), torch.nn.functional.mse_loss(values, returns), hits
