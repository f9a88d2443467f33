#!/usr/bin/env bash
# Solved when dates keep their month: due dates across month and year ends, and parsing itself.
set -u
check() {
  out=$(node bin/due.js "$1" "$2")
  [ "$out" = "due $3" ] || { echo "node bin/due.js $1 $2: expected 'due $3', got '$out'"; exit 1; }
}
check 2024-03-15 14 2024-03-29
check 2024-01-31 1 2024-02-01
check 2024-12-20 30 2025-01-19
node -e '
const assert = require("node:assert")
const { parseDay } = require("./lib/dates.js")
assert.strictEqual(parseDay("2024-02-29").toISOString(), "2024-02-29T00:00:00.000Z")
' || exit 1
