#!/usr/bin/env bash
# Solved when the total of the price column is 4.5.
set -u
out=$(node total.js prices.csv)
[ "$out" = "4.5" ] || { echo "expected 4.5, got '$out'"; exit 1; }
