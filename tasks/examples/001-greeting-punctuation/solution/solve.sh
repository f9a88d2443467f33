#!/usr/bin/env bash
set -eu
sed -i 's/Hello, ${name}`/Hello, ${name}!`/' greet.js
