// Reads each ITF trace named on the command line with Quint's ITF reader
// (ofItf, the reader behind Quint's own ITF input), prints each state as
// Quint reads it (a Quint expression), and writes the states back with
// Quint's ITF writer (toItf): one JSON line per file,
// {"file", "vars", "states": [text], "roundtrip": [state]}. A trace the
// reader cannot take makes the script fail.
'use strict'
const fs = require('fs')
const itf = require('@informalsystems/quint/dist/src/itf')
const { expressionToString } = require('@informalsystems/quint/dist/src/ir/IRprinting')

for (const file of process.argv.slice(2)) {
  const trace = JSON.parse(fs.readFileSync(file, 'utf8'))
  const states = itf.ofItf(trace)
  const back = itf.toItf(trace.vars, states)
  if (back.isLeft()) {
    throw new Error(`${file}: Quint cannot write back what it read: ${back.value}`)
  }
  process.stdout.write(JSON.stringify({
    file,
    vars: back.value.vars,
    states: states.map(expressionToString),
    roundtrip: back.value.states,
  }) + '\n')
}
