"""Search: PIMC over worlds drawn by the engine's world sampler (``pimc``), the search guided by the
trained network (``pimc_ppo``), its value head and the exact endgame. A search plays rule-based
or learned players in its rollouts; it never imports a table for people or the training code."""
