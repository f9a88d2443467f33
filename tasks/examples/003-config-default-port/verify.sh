#!/usr/bin/env bash
# Solved when a missing port defaults to 8080 and an explicit one is kept.
set -u
out=$(node server-config.js)
[ "$out" = "port: 8080" ] || { echo "expected 'port: 8080', got '$out'"; exit 1; }
tmp=$(mktemp -d)
echo '{ "host": "h", "port": 9000 }' > "$tmp/c.json"
explicit=$(node -e "console.log(require('./server-config.js').loadConfig('$tmp/c.json').port)")
rm -rf "$tmp"
[ "$explicit" = "9000" ] || { echo "an explicit port must win: expected 9000, got '$explicit'"; exit 1; }
