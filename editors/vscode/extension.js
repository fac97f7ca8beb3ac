// The wrap extension: highlighting, snippets and the language server
// (`wrapcheck lsp`), started from the wrapcheck binary on PATH or the one
// the setting wrapcheck.path names.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('wrapcheck');
  const command = config.get('path') || 'wrapcheck';
  const serverOptions = { command, args: ['lsp'] };
  const clientOptions = {
    documentSelector: [{ scheme: 'file', language: 'wrap' }, { scheme: 'untitled', language: 'wrap' }],
  };
  client = new LanguageClient('wrapcheck', 'wrapcheck', serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.commands.registerCommand('wrapcheck.restart', () => client.restart()),
  );
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
