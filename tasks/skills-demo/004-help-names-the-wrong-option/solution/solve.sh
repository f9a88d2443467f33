#!/usr/bin/env bash
set -eu
sed -i 's/--lowd/--loud/g' lib/usage.js
