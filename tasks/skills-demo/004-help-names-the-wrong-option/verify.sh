#!/usr/bin/env bash
# Solved when the help text names --loud (and never --lowd) and the option still works.
set -u
help=$(node bin/greet.js --help)
echo "$help" | grep -q -- '--loud  shout the greeting' || { echo "the help text does not describe --loud:"; echo "$help"; exit 1; }
if echo "$help" | grep -q -- '--lowd'; then echo "the help text still names --lowd"; exit 1; fi
[ "$(node bin/greet.js --loud Ada)" = "HELLO, ADA!" ] || { echo "--loud no longer shouts"; exit 1; }
