"""Rule-based players: ``simple`` and the ``heuristic`` (one and two decks), their tables and
compiled kernels, and the loop that plays whole tables of compiled players in one kernel
(``players``, ``table``). They read only their own seat's information set."""
