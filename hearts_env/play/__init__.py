"""Games played by policies: the ``Policy`` interface, the options an agent factory takes, the one
batched runner every loop uses, recorded games (replays) and the progress bars of long runs.
Imports only the engine."""
