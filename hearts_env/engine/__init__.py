"""The rules engine: cards, the rules' knobs, seeding, the state's records, the compiled kernels that
step a batch of games, and what one seat may know (info sets, observations, rewards). The only
layer that knows a rule; it imports no other layer."""
