"""The one rule for table ids a bot cannot use (``protocol.unusable_table_id``): a decision whose
id word is an integer that is no table id (negative, or of more than 18 digits) is one it answers
``error``; a word that is no integer names no table; ``line_tables`` reads exactly the usable ids."""

from __future__ import annotations

import pytest

from hearts_env import protocol


@pytest.mark.parametrize(
    "word",
    [b"-1", b"-0", b"-999", b"-" + b"9" * 30, b"1" + b"0" * 18, b"9" * 19, b"9" * 5000, b"0" * 19 + b"5"],
)
def test_negative_and_too_large_ids_are_unusable(word):
    assert protocol.unusable_table_id(word)
    assert protocol.line_tables(b"play " + word + b" seat=0\n").tolist() == [-1]  # no table the bot plays


@pytest.mark.parametrize("word", [b"0", b"7", b"007", str(protocol.MAX_TABLE).encode(), b"0" * 17 + b"5"])
def test_ids_in_range_are_usable(word):
    assert not protocol.unusable_table_id(word)
    assert protocol.line_tables(b"play " + word + b" seat=0\n").tolist() == [int(word)]


@pytest.mark.parametrize("word", [b"", b"-", b"x", b"+5", b"5x", b"--5", b"\xd9\xa3", b"1.5"])
def test_words_that_are_no_integer_name_no_table(word):
    assert not protocol.unusable_table_id(word)
