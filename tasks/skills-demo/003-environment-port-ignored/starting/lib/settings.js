const fs = require('node:fs')

const DEFAULTS = { host: '127.0.0.1', port: 3000 }

/** Settings named by environment variables (PORT, HOST). */
function fromEnv(env) {
  const settings = {}
  if (env.PORT !== undefined && env.PORT !== '') settings.port = Number(env.PORT)
  if (env.HOST !== undefined && env.HOST !== '') settings.host = env.HOST
  return settings
}

/** Settings in a JSON file; none when the file is missing. */
function fromFile(file) {
  if (!fs.existsSync(file)) return {}
  return JSON.parse(fs.readFileSync(file, 'utf8'))
}

/** The settings in effect: defaults, then the config file, then the environment. */
function loadSettings(file, env = process.env) {
  return { ...DEFAULTS, ...fromEnv(env), ...fromFile(file) }
}

module.exports = { loadSettings, DEFAULTS }
