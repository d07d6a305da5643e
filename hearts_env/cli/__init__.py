"""Command-line plumbing shared by every console script (how a command ends: its output or one
line), and ``hearts-demo``. The other commands live with what they drive (``hearts_env.agents``,
``hearts_env.train``)."""
