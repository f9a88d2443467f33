#!/usr/bin/env bash
set -eu
sed -i 's/port: config.port }/port: config.port ?? 8080 }/' server-config.js
