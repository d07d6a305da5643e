"""Search distilled into networks: expert iteration (``expert_iteration``: the network learns the
guided search's choices) and the value head that cuts the search's rollouts short
(``value_head``)."""
