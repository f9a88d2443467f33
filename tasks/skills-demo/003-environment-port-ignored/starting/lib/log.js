/** One line on stdout, as the server reports itself. */
function log(line) {
  console.log(line)
}

module.exports = { log }
