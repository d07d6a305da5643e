"""The agents' kernels call the core's: cache them in the folder of both packages' sources
(see ``hearts_env.compiled``). Imported first by ``agents/__init__.py``."""

from pathlib import Path

from hearts_env import compiled

compiled.use_cache_for(Path(__file__).resolve().parent)
