// panelHTML is the trace panel's page: the playground's style sheet and
// the bundled panel script (media/), under a Content-Security-Policy that
// lets only that script run. It needs no vscode module, so that the
// panel's test builds the same page outside VS Code.
'use strict';

function panelHTML({ script, style, cspSource, nonce }) {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${cspSource} data:; style-src ${cspSource} 'unsafe-inline'; font-src ${cspSource}; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${style}">
<title>wrapcheck trace</title>
</head>
<body>
<main style="display: block">
<div id="verdict">waiting for the trace…</div>
<p id="shape"></p>
<div id="traceBox"></div>
<ul id="notes"></ul>
<div id="mermaid"></div>
</main>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>
`;
}

module.exports = { panelHTML };
