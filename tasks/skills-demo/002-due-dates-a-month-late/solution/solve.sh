#!/usr/bin/env bash
# Months in Date.UTC are 0-based: pass the parsed month minus one.
set -eu
sed -i 's/Date.UTC(year, month, day)/Date.UTC(year, month - 1, day)/' lib/dates.js
