#!/usr/bin/env bash
# Solved when the environment overrides config.json, which overrides the defaults.
set -u
out=$(PORT=9000 node bin/serve.js --dry-run)
[ "$out" = "listening on 0.0.0.0:9000" ] || { echo "PORT=9000: expected 'listening on 0.0.0.0:9000', got '$out'"; exit 1; }
out=$(env -u PORT HOST=10.0.0.1 node bin/serve.js --dry-run)
[ "$out" = "listening on 10.0.0.1:8080" ] || { echo "HOST=10.0.0.1: expected 'listening on 10.0.0.1:8080', got '$out'"; exit 1; }
out=$(env -u PORT -u HOST node bin/serve.js --dry-run)
[ "$out" = "listening on 0.0.0.0:8080" ] || { echo "no environment: expected 'listening on 0.0.0.0:8080', got '$out'"; exit 1; }
