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

# Cancellation Hearts (two decks), six players: 17 cards each and a kitty of two.
# Twins: seats 0 and 1, 2 and 3, 4 and 5 hold the same cards, so a twin can always play the card
# its twin played, and cancel it. Seat 0 leads the first trick (hand 1).
TWINS6 = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D",
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D",
    "6D 7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S",
    "6D 7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S",
    "TS JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    "TS JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
]
TWINS6_KITTY = "AH AH"
# Seats 1 and 2 hold every club; the diamonds of trick 1 (5D, QD, AD AD, KD KD) cancel in two
# pairs, and seat 0 holds the QS and hearts with a few other cards.
CANCEL6 = [
    "5D 6D 7D 2S 3S 4S QS 2H 3H 4H 5H 6H 8H 9H TH JH QH",
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC QD 5S 6S 7S",
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC AD 8S 9S TS",
    "AD 7H 2D 2D 3D 3D 4D 4D 8D 8D 2S 5S 8S JS 2H 4H 5H",
    "KD 7H 5D 6D 7D 9D 9D 3S 6S 9S JS KS 6H 8H 9H TH JH",
    "KD TD TD JD JD QD 4S 7S TS KS AS AS QH KH KH AH AH",
]
CANCEL6_KITTY = "QS 3H"
# Eight players, 13 cards each and no kitty: every seat holds pairs of one suit.
PAIRS8 = [
    "2C 2C 3C 3C 4C 4C 5C 5C 6C 6C 7C 7C 8C",
    "8C 9C 9C TC TC JC JC QC QC KC KC AC AC",
    "2D 2D 3D 3D 4D 4D 5D 5D 6D 6D 7D 7D 8D",
    "8D 9D 9D TD TD JD JD QD QD KD KD AD AD",
    "2S 2S 3S 3S 4S 4S 5S 5S 6S 6S 7S 7S 8S",
    "8S 9S 9S TS TS JS JS QS QS KS KS AS AS",
    "2H 2H 3H 3H 4H 4H 5H 5H 6H 6H 7H 7H 8H",
    "8H 9H 9H TH TH JH JH QH QH KH KH AH AH",
]
