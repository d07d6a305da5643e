"""A misbehaving ladder bot for the ladder's tests (run as a script): it plays its lowest legal
card, and

* ``flaky``: drops its connection in the middle of a batch every ``--every`` batches;
* ``stall-garbage``: every ``--every`` batches it stalls past the time limit, and half-way
  between it answers garbage;

and connects again a moment after each connection ends.

    python tests/bench/ladder_rogue.py flaky 127.0.0.1:7474 TOKEN --every 40
"""

from __future__ import annotations

import argparse
import socket
import time


def session(args: argparse.Namespace, batches: int) -> int:
    """One connection, until it ends; the batches answered so far."""
    host, _, port = args.address.rpartition(":")
    with socket.create_connection((host, int(port))) as sock, sock.makefile("rb") as lines:
        sock.sendall(f"hearts-ladder 1 token={args.token}\n".encode())
        answers: list[bytes] = []
        for line in lines:
            words = line.split()
            kind = words[0] if words else b""
            if kind == b"hearts-bot-protocol":
                sock.sendall(f"hearts-bot-protocol 1 name=rogue-{args.mode} tables=many\n".encode())
            elif kind in (b"pass", b"play"):
                legal = next(w for w in words if w.startswith(b"legal="))
                answers.append(words[1] + b" " + legal[6:8] + b"\n")
            elif kind == b"go":
                batches += 1
                if args.mode == "flaky" and batches % args.every == 0:
                    sock.sendall(answers[0])  # part of the batch, then gone
                    return batches
                if args.mode == "stall-garbage" and batches % args.every == 0:
                    time.sleep(args.stall)
                elif args.mode == "stall-garbage" and batches % args.every == args.every // 2:
                    answers = [b"this is no card\n"]
                sock.sendall(b"".join(answers))
                answers = []
    return batches


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("flaky", "stall-garbage"))
    parser.add_argument("address")
    parser.add_argument("token")
    parser.add_argument("--every", type=int, default=40)
    parser.add_argument("--stall", type=float, default=2.0)
    args = parser.parse_args()
    batches = 0
    while True:
        try:
            batches = session(args, batches)
        except OSError:
            pass
        time.sleep(0.1)


if __name__ == "__main__":
    main()
