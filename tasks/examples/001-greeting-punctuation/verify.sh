#!/usr/bin/env bash
# Solved when the greeting ends with an exclamation mark.
set -u
out=$(node greet.js Ada)
[ "$out" = "Hello, Ada!" ] || { echo "expected 'Hello, Ada!', got '$out'"; exit 1; }
