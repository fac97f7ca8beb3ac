// panelMessage is the extension's side of the trace panel's messages: a
// {watches: [EXPR...]} message (the panel's watch box changed) asks the
// language server for the trace again with those watches
// (wrapcheck.trace's third argument) and posts the answer to the panel,
// or {error} when the server refuses; the watches are kept (save) for the
// next trace the panel shows. It needs no vscode module, so that the
// panel's test runs it between the real server and the panel's page.
'use strict';

// panelMessage handles one message m of the panel showing the
// counterexample of name in the document uri. request(uri, name,
// watches) asks the server (a promise of wrapcheck.trace's answer),
// post(data) posts to the panel, save(watches) keeps them.
async function panelMessage(m, { uri, name, request, post, save }) {
  if (!m || !Array.isArray(m.watches)) return false;
  const watches = m.watches.filter((w) => typeof w === 'string');
  save(watches);
  try {
    post(await request(uri, name, watches));
  } catch (err) {
    post({ error: (err && err.message) || String(err) });
  }
  return true;
}

module.exports = { panelMessage };
