#!/usr/bin/env bash
# Solved when quoted fields stay whole (commas and doubled quotes inside quotes) and the report adds up.
set -u
node -e '
const assert = require("node:assert")
const { splitLine } = require("./lib/csv.js")
assert.deepStrictEqual(splitLine("2024-03-02,\"Coffee, large\",3.20"), ["2024-03-02", "Coffee, large", "3.20"])
assert.deepStrictEqual(splitLine("a,\"Book \"\"Dune\"\"\",9.99"), ["a", "Book \"Dune\"", "9.99"])
assert.deepStrictEqual(splitLine("x,,y"), ["x", "", "y"])
' || exit 1
out=$(node bin/report.js data/sample.csv | tail -n 1)
[ "$out" = "3 rows, total 15.69" ] || { echo "expected '3 rows, total 15.69', got '$out'"; exit 1; }
