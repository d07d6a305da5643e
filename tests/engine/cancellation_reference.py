"""Cancellation Hearts (two decks) in plain Python, written from docs/rules.md, for the tests.

``RefGame2`` plays one game at a time with multisets (``collections.Counter``) of card ids and
nothing from ``hearts_env.engine.core``: deals come from outside (the engine's, once the tests have
checked that they are a partition of the 104 cards), and ``expected()`` gives what the engine's
state must hold, field by field, as (at least once, twice) bitboard pairs.
"""

from __future__ import annotations

from collections import Counter

SUITS = "CDSH"
RANKS = "23456789TJQKA"
PASS, PLAY, GAME_OVER = 0, 1, 2


def cid(name: str) -> int:
    """Card id ``suit * 13 + (rank - 2)`` of a name such as ``"QS"``."""
    return SUITS.index(name[1]) * 13 + RANKS.index(name[0])


def name(card: int) -> str:
    return RANKS[card % 13] + SUITS[card // 13]


def suit(card: int) -> int:
    return card // 13


HEARTS = frozenset(range(cid("2H"), cid("AH") + 1))
QS, JD = cid("QS"), cid("JD")
POINTS = HEARTS | {QS}
PLAYERS = (6, 7, 8, 9, 10, 11)
HAND_SIZE = {6: 17, 7: 14, 8: 13, 9: 11, 10: 10, 11: 9}
KITTY_SIZE = {6: 2, 7: 6, 8: 0, 9: 5, 10: 4, 11: 5}
FULL = Counter({c: 2 for c in range(52)})
DEFAULTS = dict(
    num_players=8,
    pass_count=3,
    pass_cycle=None,
    no_points_on_first_trick=True,
    queen_breaks_hearts=True,
    jack_of_diamonds=False,
    moon="add_to_others",
    target_score=100,
    decks=2,
)
MOONS = ("add_to_others", "subtract_from_self", "shooter_choice")


def knobs_of(**kw: object) -> dict:
    unknown = set(kw) - set(DEFAULTS)
    assert not unknown, unknown
    return {**DEFAULTS, **kw}


def receiver_offset(knobs: dict, hand_number: int) -> int:
    """Receiver = giver + offset (mod P); 0 = no pass. The cycle is left, right unless given."""
    if knobs["pass_count"] == 0:
        return 0
    cycle = knobs["pass_cycle"] or ("left", "right")
    direction = cycle[(hand_number - 1) % len(cycle)]
    return {"left": 1, "right": knobs["num_players"] - 1, "none": 0}[direction]


def pair(pile: Counter) -> tuple[int, int]:
    """A multiset as the engine's two bitboards: the cards present at least once, and twice."""
    once = twice = 0
    for c, n in pile.items():
        assert 0 <= n <= 2, f"{name(c)} {n} times"
        once |= (n >= 1) << c
        twice |= (n == 2) << c
    return once, twice


def ref_hand_points(knobs: dict, taken: list[Counter], totals: list[int]) -> tuple[list[int], str | None]:
    """A hand's score: 1 per heart, 13 per QS; a moon is every point card (all 26 hearts and both
    QS) in one pile and is worth 52; -10 per JD with the JD rule, on top."""
    p = len(taken)
    raw = [sum(n for c, n in t.items() if c in HEARTS) + 13 * t[QS] for t in taken]
    bonus = [-10 * t[JD] if knobs["jack_of_diamonds"] else 0 for t in taken]
    shooters = [s for s in range(p) if all(taken[s][c] == 2 for c in POINTS)]
    if not shooters:
        return [r + b for r, b in zip(raw, bonus, strict=True)], None
    (shooter,) = shooters
    add = [(0 if s == shooter else 52) + bonus[s] for s in range(p)]
    sub = [(-52 if s == shooter else 0) + bonus[s] for s in range(p)]
    moon = knobs["moon"]
    if moon == "shooter_choice":
        after = [t + a for t, a in zip(totals, add, strict=True)]
        target = knobs["target_score"] or None
        ends = target is None or max(after) >= target
        moon = "subtract_from_self" if ends and after[shooter] > min(after) else "add_to_others"
    return (add if moon == "add_to_others" else sub), moon


class RefGame2:
    """One game of Cancellation Hearts in plain Python. Deals come from outside."""

    def __init__(self, knobs: dict, hands: list[Counter], kitty: Counter) -> None:
        self.k = knobs
        self.p = knobs["num_players"]
        self.hand_size = HAND_SIZE[self.p]
        self.hand_number = 1
        self.scores = [0] * self.p
        self.last_hand_points = [0] * self.p
        self.last_hand_taken = [Counter() for _ in range(self.p)]
        self.winners = [False] * self.p
        self.last_trick = [-1] * self.p
        self.last_trick_winner = -1
        self.hand_over = False
        self.over = False
        self.moon_used: str | None = None
        self.events: Counter[str] = Counter()
        self.deal(hands, kitty)

    def deal(self, hands: list[Counter], kitty: Counter) -> None:
        assert sum(hands, Counter()) + kitty == FULL
        assert all(h.total() == self.hand_size for h in hands) and kitty.total() == KITTY_SIZE[self.p]
        self.hands = [Counter(h) for h in hands]
        self.kitty = Counter(kitty)
        self.pot: Counter[int] = Counter()
        self.passed = [Counter() for _ in range(self.p)]
        self.taken = [Counter() for _ in range(self.p)]
        self.played = [Counter() for _ in range(self.p)]  # by seat, completed tricks
        self.trick: list[tuple[int, int]] = []  # (seat, card) in the order played
        self.tricks: list[list[int]] = []
        self.trick_leaders: list[int] = []
        self.broken = False
        self.tricks_played = 0
        self.offset = receiver_offset(self.k, self.hand_number)
        if self.offset:
            self.phase, self.to_play = PASS, 0
        else:
            self.start_play()

    def start_play(self) -> None:
        """The seat left of the dealer leads: seat (h - 1) mod P in hand h."""
        self.phase = PLAY
        self.to_play = self.leader = self.winner = (self.hand_number - 1) % self.p

    def legal(self) -> set[int]:
        if self.over:
            return set()
        hand = set(+self.hands[self.to_play])
        if self.phase == PASS:
            return hand
        first = self.tricks_played == 0
        if not self.trick:
            if first and self.k["no_points_on_first_trick"] and hand - POINTS:
                self.events["lead: first trick, no points"] += 1
                return hand - POINTS
            if self.broken or hand <= POINTS:
                return hand
            return hand - HEARTS
        led = suit(self.trick[0][1])
        follow = {c for c in hand if suit(c) == led}
        if follow:
            return follow
        if first and self.k["no_points_on_first_trick"] and hand - POINTS:
            return hand - POINTS
        return hand

    def trick_winner(self) -> int:
        """The seat of the highest card of the led suit played once to the trick; -1 if none."""
        led = suit(self.trick[0][1])
        count = Counter(c for _, c in self.trick)
        alive = [(c, s) for s, c in self.trick if suit(c) == led and count[c] == 1]
        return max(alive)[1] if alive else -1

    def step(self, card: int) -> bool:
        """Apply the action of the seat to act; True when the next hand must be dealt."""
        self.hand_over = False
        if self.over:
            return False
        assert card in self.legal(), f"reference: {name(card)} is illegal"
        seat = self.to_play
        self.hands[seat][card] -= 1
        self.hands[seat] = +self.hands[seat]
        if self.phase == PASS:
            self.passed[seat][card] += 1
            if self.passed[seat][card] == 2:
                self.events["both copies passed"] += 1
            if self.passed[seat].total() == self.k["pass_count"]:
                self.to_play += 1
            if self.to_play == self.p:
                for giver in range(self.p):
                    self.hands[(giver + self.offset) % self.p] += self.passed[giver]
                self.start_play()
            return False
        self.trick.append((seat, card))
        self.broken |= card in HEARTS or (card == QS and self.k["queen_breaks_hearts"])
        self.winner = self.trick_winner()
        self.to_play = (seat + 1) % self.p
        if len(self.trick) < self.p:
            return False
        self.end_trick()
        if self.tricks_played < self.hand_size:
            return False
        return self.end_hand()

    def end_trick(self) -> None:
        cards_ = Counter(c for _, c in self.trick)
        pairs = sum(1 for n in cards_.values() if n == 2)
        if pairs >= 2:
            self.events["two cancelling pairs"] += 1
        for s, c in self.trick:
            self.played[s][c] += 1
        last = self.tricks_played + 1 == self.hand_size
        taker = self.winner
        if taker < 0:
            self.events["trick without a winner" + (", the last" if last else "")] += 1
            if self.tricks_played == 0 and self.kitty:
                self.events["first trick without a winner, the kitty waits"] += 1
            taker = self.leader if last else -1
        self.pot += cards_
        if taker >= 0:
            if self.pot != cards_:
                self.events["the pot taken"] += 1
            self.taken[taker] += self.pot + self.kitty
            self.pot, self.kitty = Counter(), Counter()
        self.last_trick = [-1] * self.p
        for s, c in self.trick:
            self.last_trick[s] = c
        self.tricks.append(self.last_trick)
        self.trick_leaders.append(self.leader)
        self.last_trick_winner = taker
        if taker >= 0:
            self.leader = taker
        self.to_play = self.winner = self.leader
        self.trick = []
        self.tricks_played += 1

    def end_hand(self) -> bool:
        points, self.moon_used = ref_hand_points(self.k, self.taken, self.scores)
        if self.moon_used:
            self.events["moon"] += 1
        self.last_hand_points = points
        self.last_hand_taken = self.taken
        self.scores = [s + pt for s, pt in zip(self.scores, points, strict=True)]
        self.hand_over = True
        target = self.k["target_score"] or None
        if target is None or max(self.scores) >= target:
            self.over = True
            self.phase, self.to_play = GAME_OVER, -1
            low = min(self.scores)
            self.winners = [s == low for s in self.scores]
            return False
        self.hand_number += 1
        return True

    def expected(self, history: bool) -> dict:
        """The engine's state fields, as lists, that this game must show."""
        p = self.p
        trick = [-1] * p
        for s, c in self.trick:
            trick[s] = c
        out = dict(
            hand_number=self.hand_number,
            phase=self.phase,
            to_play=self.to_play,
            trick=trick,
            trick_size=len(self.trick),
            tricks_played=self.tricks_played,
            last_trick=self.last_trick,
            last_trick_winner=self.last_trick_winner,
            hearts_broken=self.broken,
            scores=self.scores,
            last_hand_points=self.last_hand_points,
            hand_over=self.hand_over,
            winners=self.winners,
            kitty=list(pair(self.kitty)),
            pot=list(pair(self.pot)),
            legal=pair(Counter(self.legal()))[0],
        )
        for field, piles in (
            ("hands", self.hands),
            ("passed", self.passed),
            ("played", self.played),
            ("taken", self.taken),
            ("last_hand_taken", self.last_hand_taken),
        ):
            pairs = [pair(pile) for pile in piles]
            out[field] = [once for once, _ in pairs]
            out[field + "2"] = [twice for _, twice in pairs]
        if self.phase != PASS:  # leader and winner are not defined while the cards are being passed
            out["leader"] = self.leader
            out["winner"] = self.winner
        if history:
            tricks = self.tricks + [[-1] * p] * (self.hand_size - len(self.tricks))
            out["tricks"] = tricks
            out["trick_leaders"] = self.trick_leaders + [-1] * (self.hand_size - len(self.trick_leaders))
        return out
