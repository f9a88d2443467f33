const fs = require('node:fs')
function loadConfig(file) {
  const config = JSON.parse(fs.readFileSync(file, 'utf8'))
  return { host: config.host, port: config.port }
}
module.exports = { loadConfig }
if (require.main === module) console.log(`port: ${loadConfig('config.json').port}`)
