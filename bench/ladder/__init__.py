"""The ladder: bots from anywhere play rated duplicate matches over the network, around the clock
(``hearts-ladder``, ``docs/ladder.md``). ``server`` accepts bots and schedules matches, ``seats``
plays a connected bot's seat with the fault rule, ``db`` stores every match, deal and decision
(SQLite or PostgreSQL), ``ratings`` recomputes the standings from what is stored, ``web`` shows
them."""
