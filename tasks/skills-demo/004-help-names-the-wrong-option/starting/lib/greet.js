/** The greeting for a name; shouted with `loud`. */
function greet(name, { loud = false } = {}) {
  const text = `Hello, ${name}!`
  return loud ? text.toUpperCase() : text
}

module.exports = { greet }
