#!/usr/bin/env node
const { greet } = require('../lib/greet.js')
const { usage } = require('../lib/usage.js')

const args = process.argv.slice(2)
if (args.includes('--help')) {
  console.log(usage())
} else {
  const name = args.find((arg) => !arg.startsWith('--')) ?? 'world'
  console.log(greet(name, { loud: args.includes('--loud') }))
}
