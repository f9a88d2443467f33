/** The help text. */
function usage() {
  return ['Usage: greet [--lowd] [NAME]', '', 'Greets NAME (default: world).', '  --lowd  shout the greeting', '  --help  show this text'].join('\n')
}

module.exports = { usage }
