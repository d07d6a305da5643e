"""What identifies a trained network: ``weights_hash(policy)``, the SHA-256 of the arrays of the MLP
a policy plays with (``ppo``, ``trained:...``, an SB3 model, the network inside ``pimc-ppo``), of
every table's network of a family (``ppo-family``, ``pimc-ppo-family``), or None for a policy
without one. The same arrays give the same hash however they were loaded (an export or an SB3
``.zip``). The benchmark pins its pool's networks by it; a training run records the network it
started from by it."""

from __future__ import annotations

import hashlib

import numpy as np

from hearts_env.agents.learned.trained import MLPPolicy
from hearts_env.play.policy import PhaseSplit


def network_of(policy: object) -> MLPPolicy | None:
    """The MLP a policy plays with: itself, its ``network`` (``pimc-ppo``), or the network of a
    ``PhaseSplit``'s play policy (then its pass policy); None if it has none."""
    if isinstance(policy, MLPPolicy):
        return policy
    if isinstance(getattr(policy, "network", None), MLPPolicy):
        return policy.network
    if isinstance(policy, PhaseSplit):
        return network_of(policy.play_policy) or network_of(policy.pass_policy)
    return None


def weights_hash(policy: object) -> str | None:
    """The SHA-256 (hex) of the weights of ``network_of(policy)``: its activation, input scale and
    every layer's (weight, bias), as little-endian float32; for a family of tables (a ``members``
    dict of table key -> policy, ``hearts_env.agents.learned.family.TableFamily``), of each table's
    key and hash in key order; None without a network."""
    members = getattr(policy, "members", None)
    if isinstance(members, dict):
        family = hashlib.sha256()
        for key in sorted(members):
            family.update(f"{key}={weights_hash(members[key])};".encode())
        return family.hexdigest()
    network = network_of(policy)
    if network is None:
        return None
    return arrays_hash(network.activation.__name__, [network.scale, *(a for layer in network.layers for a in layer)])


def arrays_hash(activation: str, arrays: list[np.ndarray]) -> str:
    """The SHA-256 (hex) of a network's activation name and arrays, each as its shape and its
    numbers in little-endian float32 (what ``weights_hash`` hashes of a policy's MLP)."""
    digest = hashlib.sha256(activation.lstrip("_").encode())
    for array in arrays:
        digest.update(str(array.shape).encode())
        digest.update(np.ascontiguousarray(array, "<f4").tobytes())
    return digest.hexdigest()
