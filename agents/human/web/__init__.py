"""The browser table (``hearts-web``): play a seat against any agents, ask an agent for a hint,
measure yourself against an agent on the same deals, and play back recorded games. ``app`` is the
web app and its command line; ``guard`` what keeps other sites out; ``tables`` the games (played
with ``hearts_env.play.runner``); ``hints`` what an agent would play and why; ``request_specs`` the
agent specs a request may name; ``sessions`` the duplicate sessions and their figures; ``store``
their SQLite database; ``replays`` the recorded games on offer; ``static/`` the page. Every picture
of the table on the page is drawn from ``hearts_env.render.describe``'s view."""
