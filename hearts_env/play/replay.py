"""Recorded games: every deal and every card of a match, written as JSON lines and read back
checked card by card through the core.

``hearts-arena ... --record games.jsonl`` writes one (``hearts_env.arena.play_match(...,
record=True)`` keeps the games in ``MatchResult.games``; ``save`` writes them); the browser table
(``hearts-web``) replays them step by step. The file is plain text, one JSON object a line:

* line 1, the header: ``{"format": "hearts-replay", "version": 1, "rules": {...knobs},
  "episode": "game" or "hand", "seed": ..., "agents": [...], "games": N, "hearts_env": "0.1.0"}``;
* then one line per game: ``{"deal": d, "rotation": r, "key": "...", "seats": [agent at each
  seat], "pass_cycle": [...], "hands": [{"deal": ["2C 7C ...", ...], "kitty": "...", "cards":
  "2C 5C ..."}, ...], "scores": [...]}``: the match's deal and seat rotation, the game's key
  (``State.key``, decimal), who sat where, the game's pass cycle (a single-hand match starts each
  deal's cycle at its own direction), then every hand: the cards dealt to each seat (and, with two
  decks, to the kitty) and every card played, passes included, in order; the final totals.

``load`` refuses, with one line naming the file, the line and the problem (``ReplayError``), a
file that is not such a file, of another format version, truncated (fewer games than its
header announces, or a line cut short), edited or of other rules: each game is played again
through the core (``core.new_games`` from its key, ``core.step`` for each card), so a deal that
is not the one its key deals, an illegal card (named, with the rule it breaks), a hand whose
cards stop early or run on, or totals that differ from the replay's are all refused. No code is
ever loaded: the file is JSON read with size limits.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.engine import cards, core
from hearts_env.engine.rules import HeartsRules
from hearts_env.play import runner

FORMAT = "hearts-replay"
VERSION = 1
MAX_LINE_BYTES = 1_000_000
"""The longest line read (a whole game to 100 points takes a few kilobytes)."""
MAX_FILE_BYTES = 200_000_000
MAX_NAME = 300
"""The longest agent name at a seat (an agent spec)."""


class ReplayError(ValueError):
    """A replay file that cannot be used; the message names the file, the line and the problem."""


@dataclass(frozen=True)
class HandRecord:
    """One hand: the deal and every card played (passes first), as card ids."""

    deal: tuple[tuple[int, ...], ...]  # (P,) the cards dealt to each seat (a card dealt twice, twice)
    kitty: tuple[int, ...]  # two decks: the cards dealt to the kitty
    cards: tuple[int, ...]  # every card in the order played, passes included


@dataclass(frozen=True)
class GameRecord:
    """One game of a match, as recorded."""

    deal: int  # the match's deal index
    rotation: int  # the seat rotation of the agents
    key: int  # the game's key (State.key): it deals every hand
    seats: tuple[str, ...]  # (P,) the agent at each seat
    pass_cycle: tuple[str, ...]  # the game's pass cycle
    hands: tuple[HandRecord, ...]
    scores: tuple[int, ...]  # (P,) final game totals

    def rules(self, rules: HeartsRules) -> HeartsRules:
        """The rules this game was played under: the match's, with its own pass cycle."""
        return dataclasses.replace(rules, pass_cycle=self.pass_cycle)

    def to_json(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "rotation": self.rotation,
            "key": str(self.key),
            "seats": list(self.seats),
            "pass_cycle": list(self.pass_cycle),
            "hands": [
                {"deal": [_names(h) for h in hand.deal], "kitty": _names(hand.kitty), "cards": _names(hand.cards)}
                for hand in self.hands
            ],
            "scores": list(self.scores),
        }


@dataclass(frozen=True)
class Replay:
    """A checked replay file: its header, rules and games."""

    path: str
    header: dict[str, Any]
    rules: HeartsRules
    games: tuple[GameRecord, ...]

    def states(self, game: int) -> list[core.State]:
        """Every state of game ``game`` (batches of one), from its first deal to its end."""
        record = self.games[game]
        state = core.new_games(record.rules(self.rules), keys=np.array([record.key], np.uint64))
        out = [state]
        for hand in record.hands:
            for card in hand.cards:
                state = core.step(state, np.array([card]))
                out.append(state)
        return out


# ---------------------------------------------------------------------------------------------
# Recording


class Recorder:
    """Collects every card and every deal of a batch of games through ``runner.play``'s ``on_step``
    (arrays per step; split per game only at the end, by ``hands``)."""

    def __init__(self, start: core.State) -> None:
        self.start = start
        self._cards: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (games, hand numbers, cards)
        self._deals: list[tuple[np.ndarray, core.State]] = [(np.arange(start.batch_size), start)]

    def __call__(self, step: runner.Step) -> None:
        self._cards.append((step.games, step.state.hand_number, step.actions))
        dealt = step.after.hand_over & ~step.after.done
        if dealt.any():
            self._deals.append((step.games[dealt], step.after[dealt]))

    def hands(self) -> list[list[HandRecord]]:
        """Each game's hands, in the batch's order."""
        B = self.start.batch_size
        deals: list[dict[int, tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]]] = [{} for _ in range(B)]
        for games, state in self._deals:
            for i, g in enumerate(games):
                deals[g][int(state.hand_number[i])] = dealt(state, i)
        games, hand_numbers, played = (np.concatenate(parts) for parts in zip(*self._cards, strict=True))
        order = np.argsort(games, kind="stable")  # by game, each game's cards in the order played
        bounds = np.searchsorted(games[order], np.arange(B + 1))
        out = []
        for g in range(B):
            rows = order[bounds[g] : bounds[g + 1]]
            numbers, ids = hand_numbers[rows], played[rows]
            out.append(
                [
                    HandRecord(deal=seats, kitty=kitty, cards=tuple(ids[numbers == n].tolist()))
                    for n, (seats, kitty) in sorted(deals[g].items())
                ]
            )
        return out


def dealt(state: core.State, game: int = 0) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """The hand game ``game`` of ``state`` holds now, as a ``HandRecord``'s ``deal`` and ``kitty``:
    each seat's cards (sorted; a card held twice, twice) and, with two decks, the kitty's."""
    two = state.decks == 2
    seats = tuple(
        tuple(_pile(state.hands[game, s], state.hands2[game, s] if two else 0)) for s in range(state.num_players)
    )
    return seats, tuple(_pile(*state.kitty[game])) if two else ()


def lines(matches: Sequence[Any]) -> list[str]:
    """The lines of the replay file of ``matches`` (``MatchResult``s of one rules and episode,
    played with ``record=True``), each ending in a newline."""
    first = matches[0]
    games = [g for m in matches for g in m.games]
    if any(not m.games for m in matches):
        raise ValueError("these matches recorded no games: play them with record=True")
    agents = list(dict.fromkeys(n for m in matches for n in m.names))
    return file_lines(first.rules, first.episode, first.seed, agents, [g.to_json() for g in games])


def file_lines(
    rules: HeartsRules, episode: str, seed: int, agents: Sequence[str], games: Sequence[dict[str, Any]]
) -> list[str]:
    """The lines of a replay file of games given as ``GameRecord.to_json`` made them (games kept
    elsewhere, e.g. a database), each ending in a newline."""
    header = {
        "format": FORMAT,
        "version": VERSION,
        "rules": rules.to_dict(),
        "episode": episode,
        "seed": seed,
        "agents": list(agents),
        "games": len(games),
        "hearts_env": _version(),
    }
    return [json.dumps(header) + "\n", *(json.dumps(g, separators=(",", ":")) + "\n" for g in games)]


def save(path: str | os.PathLike, matches: Sequence[Any]) -> int:
    """Write the recorded games of ``matches`` (see ``lines``) to ``path``; returns the number of
    games written."""
    written = lines(matches)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(written)
    return len(written) - 1


# ---------------------------------------------------------------------------------------------
# Reading


def load(path: str | os.PathLike) -> Replay:
    """The replay at ``path``, every game checked by playing it again (see the module docstring);
    ``ReplayError`` naming the file, the line and the problem otherwise."""
    name = str(path)
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise ReplayError(f"{name}: {size} bytes, more than a replay file may hold ({MAX_FILE_BYTES})")
        with open(path, "rb") as f:
            return parse(f, name)
    except OSError as error:
        raise ReplayError(f"{name}: cannot read it: {error.strerror or error}") from None


def parse(lines: Iterable[bytes], name: str = "replay") -> Replay:
    """A replay from its lines (bytes, as read from a file or an upload); see ``load``."""
    header: dict[str, Any] | None = None
    rules: HeartsRules | None = None
    games: list[GameRecord] = []
    number = 0
    for number, raw in enumerate(lines, start=1):
        where = f"{name}: line {number}"
        if len(raw) > MAX_LINE_BYTES:
            raise ReplayError(f"{where}: longer than {MAX_LINE_BYTES} bytes")
        if not raw.endswith(b"\n"):
            raise ReplayError(f"{where}: the file ends in the middle of a line (truncated)")
        try:
            entry = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise ReplayError(f"{where}: not a JSON line") from None
        if not isinstance(entry, dict):
            raise ReplayError(f"{where}: not a JSON object")
        if rules is None:
            header, rules = entry, _read_header(entry, where)
        else:
            games.append(_read_game(entry, rules, where))
    if header is None or rules is None:
        raise ReplayError(f"{name}: empty file, not a replay")
    if len(games) != header["games"]:
        raise ReplayError(
            f"{name}: the header announces {header['games']} games, the file holds {len(games)} (truncated)"
        )
    _check_by_replay(rules, games, name)
    return Replay(name, header, rules, tuple(games))


def _read_header(entry: dict[str, Any], where: str) -> HeartsRules:
    if entry.get("format") != FORMAT:
        raise ReplayError(f"{where}: not a replay file (its format is {entry.get('format')!r:.40}, not {FORMAT!r})")
    if entry.get("version") != VERSION:
        raise ReplayError(
            f"{where}: replay format version {entry.get('version')!r:.20}; this hearts_env reads {VERSION}"
        )
    try:
        rules = HeartsRules.from_dict(entry.get("rules"))
    except (TypeError, ValueError) as error:
        raise ReplayError(f"{where}: rules this hearts_env cannot play: {error}") from None
    if entry.get("episode") not in ("game", "hand") or (entry["episode"] == "hand") != (rules.target_score is None):
        raise ReplayError(f"{where}: episode must be 'game' (with a target score) or 'hand' (without)")
    if not _is_int(entry.get("games")) or entry["games"] < 0:
        raise ReplayError(f"{where}: 'games' must count the games that follow")
    return rules


def _read_game(entry: dict[str, Any], rules: HeartsRules, where: str) -> GameRecord:
    P = rules.num_players
    assert rules.pass_cycle is not None  # HeartsRules made None the standard cycle
    missing = [k for k in ("deal", "rotation", "key", "seats", "pass_cycle", "hands", "scores") if k not in entry]
    if missing:
        raise ReplayError(f"{where}: a game line lacks {', '.join(missing)}")
    try:
        key = int(entry["key"]) if isinstance(entry["key"], str) and entry["key"].isdigit() else -1
        if not 0 <= key < 2**64:
            raise ValueError(f"key must be a decimal string of a uint64, got {entry['key']!r:.30}")
        for field in ("deal", "rotation"):
            if not _is_int(entry[field]) or entry[field] < 0:
                raise ValueError(f"{field} must be a non-negative int")
        seats = entry["seats"]
        if not isinstance(seats, list) or len(seats) != P or not all(_is_name(s) for s in seats):
            raise ValueError(
                f"seats must name the agent at each of the {P} seats, each 1 to {MAX_NAME} printable characters"
            )
        cycle = entry["pass_cycle"]
        if not isinstance(cycle, list) or not (
            _rotation(cycle, rules) or (rules.pass_count == 0 and cycle == ["none"])
        ):
            raise ValueError(
                f"pass cycle {cycle!r:.60} is not a rotation of the header rules' {list(rules.pass_cycle)}"
            )
        scores = entry["scores"]
        if not isinstance(scores, list) or len(scores) != P or not all(_is_int(s) for s in scores):
            raise ValueError(f"scores must be {P} ints")
        hands = entry["hands"]
        if not isinstance(hands, list) or not hands:
            raise ValueError("hands must list the game's hands")
        records = tuple(_read_hand(hand, rules, h + 1) for h, hand in enumerate(hands))
    except ValueError as error:
        raise ReplayError(f"{where}: {error}") from None
    return GameRecord(
        entry["deal"], entry["rotation"], key, tuple(seats), tuple(cycle), records, tuple(int(s) for s in scores)
    )


def _read_hand(hand: object, rules: HeartsRules, number: int) -> HandRecord:
    if not isinstance(hand, dict) or not {"deal", "cards"} <= set(hand):
        raise ValueError(f"hand {number} must give its deal and its cards")
    deal = hand["deal"]
    if not isinstance(deal, list) or len(deal) != rules.num_players:
        raise ValueError(f"hand {number}: the deal must list the cards of each of the {rules.num_players} seats")
    try:
        seats = tuple(tuple(cards.parse_cards(_text(d))) for d in deal)
        kitty = tuple(cards.parse_cards(_text(hand.get("kitty", ""))))
        played = tuple(cards.parse_cards(_text(hand["cards"])))
    except ValueError as error:
        raise ValueError(f"hand {number}: {error}") from None
    return HandRecord(seats, kitty, played)


def _check_by_replay(rules: HeartsRules, games: list[GameRecord], name: str) -> None:
    """Play every game again through the core, a batch per pass cycle, and refuse the first line
    whose deals, cards or totals the core does not give."""
    by_cycle: dict[tuple[str, ...], list[int]] = {}
    for i, game in enumerate(games):
        by_cycle.setdefault(game.pass_cycle, []).append(i)
    for cycle, ids in by_cycle.items():
        _replay_batch(dataclasses.replace(rules, pass_cycle=cycle), [games[i] for i in ids], ids, name)


def _replay_batch(rules: HeartsRules, games: list[GameRecord], ids: list[int], name: str) -> None:
    B = len(games)
    flat = [np.array([c for hand in g.hands for c in hand.cards], np.int64) for g in games]
    ends = [np.cumsum([len(hand.cards) for hand in g.hands]) for g in games]  # cards played by each hand's end
    lengths = np.array([len(f) for f in flat])
    played = np.zeros((B, max(lengths.max(), 1)), np.int64)
    for g, f in enumerate(flat):
        played[g, : len(f)] = f

    def refuse(g: int, problem: str) -> None:
        raise ReplayError(f"{name}: line {ids[g] + 2}: {problem}")

    state = core.new_games(rules, keys=np.array([g.key for g in games], np.uint64))
    hand_of = np.zeros(B, np.int64)  # the hand each game is in (0-based)
    _check_deals(state, np.arange(B), games, hand_of, refuse)
    for t in range(played.shape[1]):
        live = np.flatnonzero((t < lengths) & ~state.done)  # cards past a game's end are refused below
        if not len(live):
            break
        sub = state[live]
        try:
            after = core.step(sub, played[live, t])
        except core.IllegalMoveError as error:
            g = int(live[error.game])
            refuse(g, f"hand {hand_of[g] + 1}, card {t + 1}: {error.describe()}")
        ended = np.flatnonzero(after.hand_over)
        for i in ended:
            g = int(live[i])
            if t + 1 != ends[g][hand_of[g]]:
                refuse(g, f"hand {hand_of[g] + 1} ends after {t + 1} cards of the game, its record has more (edited?)")
            hand_of[g] += 1
        for i in np.flatnonzero(~after.hand_over):
            g = int(live[i])
            if hand_of[g] < len(games[g].hands) and t + 1 == ends[g][hand_of[g]]:
                refuse(g, f"hand {hand_of[g] + 1}: its cards stop before the hand ends (truncated or edited)")
        next_deal = ended[~after.done[ended]]
        if len(next_deal):
            _check_deals(after[next_deal], live[next_deal], games, hand_of, refuse)
        data = state.data.copy()
        data[live] = after.data
        state = state.with_data(data)
    for g in range(B):
        if not state.done[g]:
            refuse(g, f"the game is not over after its {lengths[g]} cards (truncated)")
        if hand_of[g] != len(games[g].hands):
            refuse(g, f"the game ended after {hand_of[g]} hands, its record holds {len(games[g].hands)}")
        replayed = state.scores[g].tolist()
        if replayed != list(games[g].scores):
            refuse(g, f"its recorded totals {list(games[g].scores)} are not the replay's {replayed} (edited)")


def _check_deals(state: core.State, rows: np.ndarray, games: list[GameRecord], hand_of: np.ndarray, refuse) -> None:
    """The deal of the hand each game of ``rows`` now starts must be the one recorded."""
    for i, g in enumerate(rows):
        h = int(hand_of[g])
        if h >= len(games[g].hands):
            refuse(int(g), f"the game goes on to hand {h + 1}, its record ends after {h} hands (truncated)")
        record = games[g].hands[h]
        seats, kitty = dealt(state, i)
        if tuple(tuple(sorted(s)) for s in record.deal) != seats or tuple(sorted(record.kitty)) != kitty:
            refuse(int(g), f"hand {h + 1}: the recorded deal is not the one the game's key deals (edited?)")


# ---------------------------------------------------------------------------------------------


def _pile(once: int | np.integer, twice: int | np.integer = 0) -> list[int]:
    return sorted(core.bits_to_cards(once) + core.bits_to_cards(twice))


def _names(ids: Iterable[int]) -> str:
    return " ".join(cards.card_name(c) for c in ids)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"cards must be written as a string of names, got {value!r:.40}")
    return value


def _is_name(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_NAME and value.isprintable()


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _rotation(cycle: list[str], rules: HeartsRules) -> bool:
    assert rules.pass_cycle is not None  # HeartsRules made None the standard cycle
    base = list(rules.pass_cycle)
    return any(base[k:] + base[:k] == cycle for k in range(len(base)))


def _version() -> str:
    from hearts_env import __version__

    return __version__
