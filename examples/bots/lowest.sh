#!/bin/sh
# A Hearts bot in POSIX shell (docs/bot-protocol.md): it plays its lowest legal card, the first
# one listed (a decision lists cards in id order: clubs, diamonds, spades, hearts, each 2 to A).
# It keeps nothing between decisions, so it plays any number of tables at once.
#   hearts-arena "program:command=sh examples/bots/lowest.sh" heuristic heuristic heuristic
set -f # the fields are words, never file names
read -r hello
if [ "$hello" != "hearts-bot-protocol 1" ]; then
    echo "lowest.sh: expected 'hearts-bot-protocol 1', got '$hello'" >&2
    exit 1
fi
echo "hearts-bot-protocol 1 name=lowest tables=many"
while read -r kind table fields; do
    case $kind in
    pass | play) # a decision: answer "TABLE CARD" with the first of legal=C1,C2,...
        for field in $fields; do
            case $field in
            legal=*)
                cards=${field#legal=}
                echo "$table ${cards%%,*}"
                ;;
            esac
        done
        ;;
    quit) exit 0 ;;
    esac # table lines, events and "go" need nothing
done
