// The wrap extension: highlighting, snippets and the language server
// (`wrapcheck lsp`), started from the wrapcheck binary on PATH or the one
// the setting wrapcheck.path names, and the trace panel: a check lens
// whose check found a violation ("violated: NAME (N steps)") opens the
// counterexample as the playground shows it (the trace table, the lasso,
// the sequence diagram), from the server's wrapcheck.trace.
'use strict';

const crypto = require('crypto');
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');
const { panelHTML } = require('./panel/html.js');
const { panelMessage } = require('./panel/host.js');

let client;
let panel;
let watching; // the panel's message handler of the trace it shows

function activate(context) {
  const config = vscode.workspace.getConfiguration('wrapcheck');
  const command = config.get('path') || 'wrapcheck';
  const serverOptions = { command, args: ['lsp'] };
  const clientOptions = {
    documentSelector: [{ scheme: 'file', language: 'wrap' }, { scheme: 'untitled', language: 'wrap' }],
    middleware: {
      // The server's lens of a violated check runs wrapcheck.showTrace
      // (Markdown); here it opens the trace panel instead.
      provideCodeLenses: async (document, token, next) => {
        const lenses = await next(document, token);
        for (const lens of lenses || []) {
          if (lens.command && lens.command.command === 'wrapcheck.showTrace') lens.command.command = 'wrapcheck.tracePanel';
        }
        return lenses;
      },
    },
  };
  client = new LanguageClient('wrapcheck', 'wrapcheck', serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.commands.registerCommand('wrapcheck.restart', () => client.restart()),
    vscode.commands.registerCommand('wrapcheck.tracePanel', (uri, name) => showTrace(context, uri, name)),
  );
  return client.start();
}

// showTrace opens (or reuses) the trace panel on the last counterexample
// of the check name in the document uri; without arguments, of a check
// of the active editor's document that the user names.
async function showTrace(context, uri, name) {
  if (!uri) {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return;
    uri = editor.document.uri.toString();
    name = await vscode.window.showInputBox({ prompt: 'the violated invariant or property' });
    if (!name) return;
  }
  const request = (uri, name, watches) =>
    client.sendRequest('workspace/executeCommand', { command: 'wrapcheck.trace', arguments: watches.length ? [uri, name, watches] : [uri, name] });
  const save = (watches) => context.workspaceState.update('wrapcheck.watches', watches);
  let data;
  try {
    data = await request(uri, name, context.workspaceState.get('wrapcheck.watches') || []);
  } catch (err) {
    vscode.window.showWarningMessage(err.message || String(err));
    return;
  }
  const media = vscode.Uri.joinPath(context.extensionUri, 'media');
  if (!panel) {
    panel = vscode.window.createWebviewPanel('wrapcheckTrace', 'wrapcheck trace', vscode.ViewColumn.Beside, {
      enableScripts: true,
      localResourceRoots: [media],
    });
    panel.onDidDispose(() => (panel = undefined));
  }
  panel.title = `trace: ${name}`;
  const wv = panel.webview;
  if (watching) watching.dispose();
  watching = wv.onDidReceiveMessage((m) => panelMessage(m, { uri, name, request, post: (d) => wv.postMessage(d), save }));
  let ready;
  const loaded = new Promise((resolve) => (ready = resolve));
  const sub = wv.onDidReceiveMessage((m) => m && m.ready && ready());
  wv.html = panelHTML({
    script: wv.asWebviewUri(vscode.Uri.joinPath(media, 'panel.js')).toString(),
    style: wv.asWebviewUri(vscode.Uri.joinPath(media, 'style.css')).toString(),
    cspSource: wv.cspSource,
    nonce: crypto.randomBytes(16).toString('base64'),
  });
  panel.reveal(vscode.ViewColumn.Beside, true);
  await loaded;
  sub.dispose();
  wv.postMessage(data);
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
