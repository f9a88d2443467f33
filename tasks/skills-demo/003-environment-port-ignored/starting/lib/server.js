const http = require('node:http')
const { log } = require('./log.js')

/** Serves a plain-text hello on the configured host and port. */
function startServer({ host, port }) {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' })
    response.end('hello\n')
  })
  server.listen(port, host, () => log(`listening on ${host}:${port}`))
  return server
}

module.exports = { startServer }
