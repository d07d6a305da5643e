"""The distribution as a user installs it: the wheel and the sdist build, the wheel installs into a
fresh virtual environment outside the repository with one top-level import name (``hearts_env``,
never ``agents`` or ``train``, which other distributions own), the shipped policy inside, ``pip
check`` clean, and the arena and the AEC environment run from another folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parents[2]

AEC_QUICK_START = """
import numpy as np
import hearts_env

table = hearts_env.env(num_players=4, reward="points")
table.reset(seed=0)
rng = np.random.default_rng(0)
for agent in table.agent_iter():
    observation, reward, termination, truncation, info = table.last()
    action = None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"])))
    table.step(action)
print("done", hearts_env.__version__, hearts_env.__file__)
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and the sdist, built from the repository's files as ``python -m build`` builds
    them, from a copy: setuptools writes its scratch beside the sources, and two test processes
    may build at once."""
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("dist")
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    source = tmp_path_factory.mktemp("source")
    for name in files:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--sdist", "--outdir", str(out), str(source)],
        cwd=out,  # not the checkout, whose build/ folder (setuptools' scratch) would shadow the package
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def test_the_wheel_has_one_import_name_and_the_shipped_policy(built: Path) -> None:
    (wheel,) = built.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {
        "hearts_env",
        f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info",
    }
    for needed in (
        "hearts_env/py.typed",
        "hearts_env/agents/policies/ppo/policy.npz",
        "hearts_env/agents/policies/ppo-family/family.json",
        "hearts_env/agents/policies/ppo-family/5p/policy.npz",
        "hearts_env/agents/policies/ppo-family-2/family.json",
        "hearts_env/agents/policies/ppo-family-2/8p-2d/policy.npz",
        "hearts_env/agents/policies/ppo-family-3/family.json",
        "hearts_env/agents/policies/ppo-family-3/4p-jd/policy.npz",
        "hearts_env/agents/policies/ppo-family-4/family.json",
        "hearts_env/agents/policies/ppo-family-4/7p/policy.npz",
        "hearts_env/agents/policies/ppo-family-5/family.json",
        "hearts_env/agents/policies/ppo-family-5/8p-2d/policy.npz",
        "hearts_env/agents/policies/ppo-one/policy.npz",
        "hearts_env/train/ppo/trainer.py",
        "hearts_env/bench/suites/v1.json",
        "hearts_env/bench/schemas/report.schema.json",
    ):
        assert needed in names
    top_level = [n for n in names if n.endswith("top_level.txt")]
    assert not top_level or zipfile.ZipFile(wheel).read(top_level[0]).decode().split() == ["hearts_env"]


def test_the_sdist_holds_the_repository_layout(built: Path) -> None:
    (sdist,) = built.glob("*.tar.gz")
    names = {name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name}
    for needed in (
        "pyproject.toml",
        "hearts_env/engine/core.py",
        "agents/rule_based/heuristic.py",
        "train/ppo/trainer.py",
        "bench/suites/v1.json",
        "README.md",
    ):
        assert needed in names


def test_the_wheel_installs_and_runs_outside_the_repository(built: Path, tmp_path: Path) -> None:
    (wheel,) = built.glob("*.whl")
    home = tmp_path / "venv"
    venv.create(home, with_pip=True)
    python = home / "bin" / "python"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "NUMBA_CACHE_DIR")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run(args, cwd=elsewhere, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        return done

    run(str(python), "-m", "pip", "install", "-q", str(wheel))
    run(str(python), "-m", "pip", "check")
    found = run(
        str(python), "-c", "import importlib.util as u; print([bool(u.find_spec(n)) for n in ('agents', 'train')])"
    )
    assert found.stdout.strip() == "[False, False]"  # the generic names stay free for other distributions
    quick = run(str(python), "-c", AEC_QUICK_START)
    assert quick.stdout.startswith("done") and str(home) in quick.stdout  # the installed copy, not the checkout
    arena = run(
        str(home / "bin" / "hearts-arena"), "ppo", "random", "random", "random", "--deals", "4", "--no-progress"
    )
    assert "ppo" in arena.stdout and "Traceback" not in arena.stderr
