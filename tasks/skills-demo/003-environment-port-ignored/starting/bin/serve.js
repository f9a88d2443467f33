#!/usr/bin/env node
const path = require('node:path')
const { loadSettings } = require('../lib/settings.js')
const { startServer } = require('../lib/server.js')
const { log } = require('../lib/log.js')

const settings = loadSettings(path.join(__dirname, '..', 'config.json'))
if (process.argv.includes('--dry-run')) log(`listening on ${settings.host}:${settings.port}`)
else startServer(settings)
