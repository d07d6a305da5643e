"""Any agent as the benchmark's candidate: what a user names, made into a ``Policy`` and checked.

``load_candidate(what)`` accepts

* a registry name or spec, ``heuristic``, ``pimc:worlds=16`` (``hearts_env.agents.specs``);
* a trained export, ``trained:path=runs/RUN`` (``hearts_env.agents.learned.trained.TrainedPolicy``);
* a stable-baselines3 model file, ``model.zip`` or ``sb3:path=model.zip``
  (``hearts_env.agents.learned.sb3_model.SB3Policy``, read without unpickling);
* an import path to a factory, ``mypkg.agents:make`` (with options, ``mypkg.agents:make:size=3``):
  ``make(seed=..., **options)`` (``seed`` only if it takes one), which must return a ``Policy``;
* a ``Policy`` object (the Python API).

A factory may return a per-game callable wrapped by ``per_game_policy``: the one adapter for a
policy trained elsewhere (RLlib, Tianshou, TorchRL, ...) on this project's AEC environment,

    # mypkg/agents.py
    from hearts_env.bench import per_game_policy

    def make():
        net = load_my_network()  # (observation, action_mask) -> card, as the AEC env gives them
        return per_game_policy(lambda observation, action_mask: int(net(observation, action_mask)))

and ``hearts-bench run mypkg.agents:make``. ``observation`` is the uint8 vector of
``hearts_env.engine.observation.encode`` (``hearts_env.envs.aec`` observes the same vector) and ``action_mask``
the int8 legal-card mask; the adapter calls the callable once per game of a batch (a Python loop:
such policies decide one game at a time anyway).

A candidate that cannot be built (a bad spec, a missing file, a model of other rules or layout, a
factory that raises or returns something that is not a policy) raises ``BenchError`` before
anything is played. During the run the candidate plays behind ``time_limited`` (a policy that
follows its games, such as a bot program, still does): a call that raises, or that takes longer
than ``time_limit`` seconds a decision, ends the run with a ``CandidateError`` naming it.
"""

from __future__ import annotations

import importlib
import inspect
import re
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba.core.event
import numpy as np

from hearts_env.agents import AGENTS
from hearts_env.agents.learned.hashing import weights_hash
from hearts_env.agents.specs import agent_from_spec, check_agents, parse_spec
from hearts_env.bench.suite import BenchError
from hearts_env.engine.infoset import InfoSet
from hearts_env.engine.observation import ObservationLayout, encode
from hearts_env.engine.rules import HeartsRules
from hearts_env.play.policy import GamePolicy, Policy, Turn
from hearts_env.play.runner import Step

TIME_LIMIT = 10.0
"""Seconds a decision may take by default: a call deciding n games may take n times this."""
MAX_TIME_LIMIT = 86_400.0
"""The most seconds a decision may be given (a day): more would overflow the alarm timer."""
_IMPORT_PATH = re.compile(r"(?P<module>[A-Za-z_][\w.]*):(?P<attr>[A-Za-z_][\w.]*)(?::(?P<options>.*))?")


class CandidateError(RuntimeError):
    """The candidate failed while playing: it raised, or overran its time limit."""


@dataclass(frozen=True)
class Candidate:
    """The agent under test, as built: its name in reports, how it was given, and its policy."""

    name: str
    spec: str  # what the user gave (a spec, a path, an import path), or a description of an object
    kind: str  # "registry", "sb3", "factory" or "object"
    policy: Policy
    weights_sha256: str | None  # the hash of its network's weights, if it has one

    @property
    def history(self) -> bool:
        """Whether it reads the trick history (the games must then record it)."""
        layout = getattr(self.policy, "layout", None)
        return bool(getattr(layout, "history", False) or getattr(self.policy, "history", False) is True)


def load_candidate(what: str | Policy, name: str | None = None, seed: int = 0) -> Candidate:
    """The candidate ``what`` names (see the module docstring), built with ``seed``; ``name``
    labels it in reports (default: the spec). ``BenchError`` if it cannot be built."""
    if not isinstance(what, str):
        if not callable(what) or isinstance(what, type):
            raise BenchError(f"candidate {what!r} is not a policy (a callable policy(info, mask) -> cards)")
        spec = f"object:{type(what).__module__}.{type(what).__qualname__}"
        return Candidate(name or type(what).__name__, spec, "object", what, weights_hash(what))
    spec = what.strip()
    head = spec.partition(":")[0]
    if spec.endswith(".zip") and head not in AGENTS:
        kind, policy = "sb3", _build(spec, lambda: AGENTS["sb3"](path=spec, seed=seed))
    elif head not in AGENTS and (match := _IMPORT_PATH.fullmatch(spec)):
        kind, policy = "factory", _from_factory(spec, match, seed)
    else:
        kind = "sb3" if head == "sb3" else "registry"
        policy = _build(spec, lambda: agent_from_spec(spec, seed))
    return Candidate(name or spec, spec, kind, policy, weights_hash(policy))


def _build(spec: str, make: Callable[[], Policy]) -> Policy:
    try:
        return make()
    except (ValueError, OSError) as error:
        raise BenchError(f"candidate {spec!r} cannot be built: {error}") from None


def _from_factory(spec: str, match: re.Match[str], seed: int) -> Policy:
    """The policy a factory named by an import path returns, checked."""
    module_name, attr = match.group("module"), match.group("attr")
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as error:  # noqa: BLE001  (a user's module may fail to import in any way)
        raise BenchError(
            f"candidate {spec!r}: cannot import {module_name!r}: {type(error).__name__}: {error}"
        ) from None
    for part in attr.split("."):
        if not hasattr(target, part):
            raise BenchError(f"candidate {spec!r}: {module_name!r} has no attribute {attr!r}")
        target = getattr(target, part)
    if not callable(target):
        raise BenchError(f"candidate {spec!r}: {module_name}:{attr} is not callable (a factory returning a Policy)")
    _, options = parse_spec(f"factory:{match.group('options') or ''}")
    try:
        parameters = inspect.signature(target).parameters
        takes_seed = "seed" in parameters or any(p.kind == p.VAR_KEYWORD for p in parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature
        takes_seed = False
    if takes_seed:
        options.setdefault("seed", seed)
    try:
        policy = target(**options)
    except Exception as error:  # noqa: BLE001  (the factory is the user's code)
        raise BenchError(f"candidate {spec!r}: the factory raised {type(error).__name__}: {error}") from None
    if not callable(policy) or isinstance(policy, type):
        raise BenchError(
            f"candidate {spec!r}: the factory returned {type(policy).__name__} {policy!r:.60}, not a Policy "
            "(a callable policy(info, mask) -> cards; wrap a per-game callable with per_game_policy)"
        )
    return policy


# ---------------------------------------------------------------------------------------------
# The per-game adapter


class PerGamePolicy:
    """A batched ``Policy`` over a per-game callable ``act(observation, action_mask) -> card``:
    ``observation`` as ``hearts_env.engine.observation.encode`` (uint8; with ``history``, the trick
    history appended, as ``hearts_env.envs.aec.env(history=True)`` gives it), ``action_mask`` int8."""

    def __init__(self, act: Callable[[np.ndarray, np.ndarray], Any], history: bool = False) -> None:
        if not callable(act):
            raise ValueError(f"per_game_policy needs a callable act(observation, action_mask) -> card, got {act!r}")
        self.act, self.history = act, bool(history)
        self._layouts: dict[HeartsRules, ObservationLayout] = {}

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        """Reseed the callable if it can be (it has a ``seed`` method)."""
        if callable(getattr(self.act, "seed", None)):
            self.act.seed(seed)

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        layout = self._layouts.get(info.rules)
        if layout is None:
            layout = self._layouts[info.rules] = ObservationLayout(info.rules, self.history)
        observations, masks = encode(info, layout), np.asarray(mask, np.int8)
        cards = np.empty(len(masks), np.int64)
        for g in range(len(masks)):
            card = self.act(observations[g], masks[g])
            try:
                cards[g] = int(card)
            except (TypeError, ValueError, OverflowError):
                raise ValueError(f"per-game policy {self.act!r:.60} returned {card!r:.40}, not a card id") from None
        return cards

    def __repr__(self) -> str:
        return f"per_game_policy({self.act!r:.60})"


def per_game_policy(act: Callable[[np.ndarray, np.ndarray], Any], history: bool = False) -> PerGamePolicy:
    """The documented adapter: a per-game callable ``act(observation, action_mask) -> card`` as a
    batched ``Policy`` (see ``PerGamePolicy``)."""
    return PerGamePolicy(act, history)


# ---------------------------------------------------------------------------------------------
# The time limit


def check_time_limit(limit: object) -> float:
    """``limit`` as seconds a decision, if it is a number in (0, ``MAX_TIME_LIMIT``]; ``BenchError`` otherwise
    (inf, NaN or 1e300 would pass a bare ``> 0`` and then overflow the timer, blamed on the candidate)."""
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0 < limit <= MAX_TIME_LIMIT:
        raise BenchError(f"the time limit must be a number of seconds in (0, {MAX_TIME_LIMIT:g}], got {limit!r}")
    return float(limit)


class TimeLimited:
    """The candidate as it plays in the suite: each call may take ``limit`` seconds per decision
    (n games: n times that), not counting the time numba spends compiling kernels on their first
    calls; a call that raises, or overruns, raises ``CandidateError`` naming ``name``. The limit
    interrupts a call that hangs in Python code (an alarm signal, in a process's main thread); a
    call elsewhere, or stuck in compiled code, is caught when it returns."""

    def __init__(self, policy: Policy, name: str, limit: float = TIME_LIMIT) -> None:
        self.policy, self.name, self.limit = policy, name, check_time_limit(limit)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        if callable(getattr(self.policy, "seed", None)):
            self.policy.seed(seed)

    def __call__(self, info: InfoSet, mask: np.ndarray) -> np.ndarray:
        return self._timed(len(mask), lambda: self.policy(info, mask))

    def _timed(self, decisions: int, call: Callable[[], np.ndarray]) -> np.ndarray:
        deadline = _Deadline(self.limit * decisions)
        try:
            with deadline:
                cards = call()
        except _Overrun:
            raise CandidateError(self._overran(decisions, deadline.charged())) from None
        except CandidateError:
            raise
        except Exception as error:  # noqa: BLE001  (whatever the user's policy raises ends the run, said once)
            raise CandidateError(f"agent {self.name!r} raised {type(error).__name__}: {error}") from None
        if deadline.charged() > deadline.allowed:
            raise CandidateError(self._overran(decisions, deadline.charged()))
        return cards

    def _overran(self, decisions: int, seconds: float) -> str:
        return (
            f"agent {self.name!r} took {seconds:.1f} s over {decisions} decision(s), past its time limit of "
            f"{self.limit:g} s a decision"
        )

    def __repr__(self) -> str:
        return repr(self.policy)


class TimeLimitedGame(TimeLimited):
    """``TimeLimited`` for a policy that follows its games (``GamePolicy``: a bot program sees
    each table's events), which it keeps doing behind the limit."""

    def decide(self, turn: Turn) -> np.ndarray:
        return self._timed(len(turn.games), lambda: self.policy.decide(turn))

    def observe(self, step: Step) -> None:
        if callable(observe := getattr(self.policy, "observe", None)):
            observe(step)


def time_limited(policy: Policy, name: str, limit: float = TIME_LIMIT) -> TimeLimited:
    """The candidate behind its time limit, following its games if it does (``TimeLimitedGame``)."""
    return (TimeLimitedGame if isinstance(policy, GamePolicy) else TimeLimited)(policy, name, limit)


class _Overrun(BaseException):
    """Raised by the alarm inside a call that overran (a BaseException: the policy's own ``except
    Exception`` cannot swallow it)."""


class _Compiling(numba.core.event.Listener):
    """The seconds numba has spent compiling (a kernel's first call with new types), in this process."""

    def __init__(self) -> None:
        self.depth, self.total, self.since = 0, 0.0, 0.0

    def on_start(self, event: object) -> None:
        if self.depth == 0:
            self.since = time.perf_counter()
        self.depth += 1

    def on_end(self, event: object) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.total += time.perf_counter() - self.since

    def seconds(self) -> float:
        """Compiling time so far, the compile under way included."""
        return self.total + (time.perf_counter() - self.since if self.depth else 0.0)


_COMPILING: list[_Compiling] = []  # the one listener, registered on first use


class _Deadline:
    """A context that charges its time less numba's compiling, and raises ``_Overrun`` once it has
    charged ``allowed`` seconds (by SIGALRM, re-armed while compiling; only in the main thread of a
    process whose alarm timer is free, else ``charged`` is checked after the call)."""

    def __init__(self, allowed: float) -> None:
        if not _COMPILING:
            _COMPILING.append(_Compiling())
            numba.core.event.register("numba:compile", _COMPILING[0])
        self.allowed, self.compiling = allowed, _COMPILING[0]
        self.armed = (
            hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0
        )

    def charged(self) -> float:
        return time.perf_counter() - self.start - (self.compiling.seconds() - self.compiled_before)

    def __enter__(self) -> None:
        self.start, self.compiled_before = time.perf_counter(), self.compiling.seconds()
        if self.armed:
            self.previous = signal.signal(signal.SIGALRM, self._ring) or signal.SIG_DFL
            signal.setitimer(signal.ITIMER_REAL, self.allowed)

    def __exit__(self, *exc: object) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)

    def _ring(self, signum: int, frame: object) -> None:
        left = self.allowed - self.charged()
        if self.compiling.depth or left > 0:  # never interrupt numba's compiler
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.5))
            return
        raise _Overrun


def refusal(candidate: Candidate, rules: HeartsRules, where: str, limit: float = TIME_LIMIT) -> str | None:
    """Why the candidate cannot play a table of ``rules`` (it raises ``ValueError`` on its first
    position, as the shipped ``ppo`` does at other tables than it was trained for), or None if it
    can. ``BenchError`` naming ``where`` if it raises anything else there or overruns ``limit``."""
    try:
        with _Deadline(limit):
            check_agents(rules, [(candidate.name, candidate.policy)])
    except _Overrun:
        raise BenchError(
            f"candidate {candidate.name!r} took more than {limit:g} s on the first position of {where}"
        ) from None
    except ValueError as error:
        return str(error)
    except Exception as error:  # noqa: BLE001  (the user's policy)
        raise BenchError(
            f"candidate {candidate.name!r} raised {type(error).__name__} on the first position of {where}: {error}"
        ) from None
    return None
