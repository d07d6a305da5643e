"""Deals written as card strings, shared by the scripted tests (seat 0 first)."""

# Trick 1: seat 1 must follow clubs; seat 2 is void in clubs and holds the AH; seat 3 holds only
# hearts and the QS.
FIRST_TRICK = [
    "2C 4C 6C 8C TC QC AC QD KD AD 4S 5S 6S",
    "3C 5C 7C 9C JC KC 7S 8S 9S TS JS KS AS",
    "AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD 2S 3S",
    "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
]
# Seat 1 takes trick 1 with its only club, the AC, and then leads holding the QS, the JD, spades
# and hearts.
LEADS = [
    "2C 3C 4C 2D 3D 4D 5D 6D 7D 8D 9D TD 2H",
    "AC QS JD 3H 4H 5H 6H 2S 3S 4S 5S 6S 7S",
    "5C 6C 7C 8C 9C TC JC QC KC QD KD AD 8S",
    "7H 8H 9H TH JH QH KH AH 9S TS JS KS AS",
]
# One suit per seat: seat 0 leads every trick with a club and takes every card.
SUITS = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]
