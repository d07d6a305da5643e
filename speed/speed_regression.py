"""The speed regression check: each loop's rate against OpenSpiel's ``hearts`` in the same run,
compared with the ratio recorded in ``speed/recorded_ratios.json``. A ratio that falls more than
the recorded tolerance below its record fails the check (exit status 1, naming the loop), so a
change that slows a loop is seen when it lands. Ratios, not rates: the machine's speed and load
weigh on both sides of a ratio alike (the measurements take turns, ``interleaved``).

    python speed/speed_regression.py              # check (make speed runs it)
    python speed/speed_regression.py --record     # write today's ratios as the new record

The loops: the PettingZoo AEC env (whole games, ``last()`` at every decision) against OpenSpiel
with its information-state tensor at every decision, and the core at B = 1 (``step_in_place``
over whole hands of random legal cards) against OpenSpiel's random play.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections.abc import Callable
from pathlib import Path

from openspiel_reference import interleaved, random_play_rate
from speed_core import PLAYS_PER_HAND, measure_engine
from speed_env import measure_aec

RECORD = Path(__file__).with_name("recorded_ratios.json")


def openspiel(seed: int, infostate: bool) -> Callable[[float], float]:
    def measure(seconds: float) -> float:
        rates = random_play_rate(seconds, seed, infostate=infostate)
        if rates is None:
            sys.exit("speed_regression: needs open-spiel (pip install open-spiel), the reference of every ratio")
        return rates[1] if infostate else rates[0] * PLAYS_PER_HAND

    return measure


def ratios(seconds: float, seed: int) -> dict[str, float]:
    """Each loop's rate over OpenSpiel's in the same run."""
    rates = interleaved(
        {
            "openspiel_infostate": openspiel(seed, infostate=True),
            "openspiel": openspiel(seed, infostate=False),
            "aec_env": lambda s: measure_aec(s, seed),
            "core_b1": lambda s: measure_engine(1, s, seed, in_place=True)["plays_per_s"],
        },
        seconds,
    )
    return {
        "aec_env_vs_openspiel_infostate": rates["aec_env"] / rates["openspiel_infostate"],
        "core_b1_vs_openspiel": rates["core_b1"] / rates["openspiel"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=12.0, help="time spent on each loop, over 6 rounds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", action="store_true", help="write today's ratios as the record")
    args = parser.parse_args(argv)
    record = json.loads(RECORD.read_text())
    measured = ratios(args.seconds, args.seed)
    if args.record:
        record["measured"] = datetime.date.today().isoformat()
        record["ratios"] = {name: round(value, 2) for name, value in measured.items()}
        RECORD.write_text(json.dumps(record, indent=2) + "\n")
        print(f"recorded {record['ratios']} in {RECORD.name}")
        return 0
    tolerance = record["tolerance"]
    slower = []
    for name, value in measured.items():
        floor = record["ratios"][name] * (1 - tolerance)
        verdict = "ok" if value >= floor else "SLOWER"
        recorded = f"recorded {record['ratios'][name]:.2f} on {record['measured']}, floor {floor:.2f}"
        print(f"{name}: {value:.2f} ({recorded}) {verdict}")
        if value < floor:
            slower.append(name)
    if slower:
        print(f"speed_regression: slower than recorded by more than {tolerance:.0%}: {', '.join(slower)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
