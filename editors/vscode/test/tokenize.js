// Tokenizes every example spec of the repository with the grammar and
// fails on any character that only the root scope covers (an unknown
// token): every word, number, operator and bracket must get a scope.
'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const root = path.join(__dirname, '..', '..', '..');
const wasm = fs.readFileSync(path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm')).buffer;

function specs(dir) {
  let out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out = out.concat(specs(p));
    else if (e.name.endsWith('.wrap')) out.push(p);
  }
  return out;
}

async function main() {
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (s) => new oniguruma.OnigScanner(s),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) => {
      if (scope !== 'source.wrap') return null;
      const file = path.join(__dirname, '..', 'syntaxes', 'wrap.tmLanguage.json');
      return vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
  });
  const grammar = await registry.loadGrammar('source.wrap');
  const files = specs(path.join(root, 'examples')).concat(specs(path.join(root, 'docs', 'testdata')));
  let bad = 0;
  let tokens = 0;
  const seen = new Set();
  for (const file of files) {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    let stack = vsctm.INITIAL;
    lines.forEach((line, i) => {
      const r = grammar.tokenizeLine(line, stack);
      for (const t of r.tokens) {
        const text = line.slice(t.startIndex, t.endIndex);
        tokens++;
        if (text.trim() === '') continue;
        const scopes = t.scopes.filter((s) => s !== 'source.wrap');
        if (scopes.length === 0 || scopes.some((s) => s.startsWith('invalid'))) {
          if (bad < 20) console.error(`${path.relative(root, file)}:${i + 1}:${t.startIndex + 1}: unknown token ${JSON.stringify(text)}`);
          bad++;
        }
        scopes.forEach((s) => seen.add(s));
      }
      stack = r.ruleStack;
    });
  }
  // The checks that the grammar does tell things apart.
  for (const s of ['comment.line.double-slash.wrap', 'storage.type.wrap', 'entity.name.wrap', 'keyword.control.wrap',
    'keyword.operator.word.wrap', 'constant.numeric.integer.wrap', 'variable.other.wrap']) {
    if (!seen.has(s)) {
      console.error(`no token of scope ${s} in the examples`);
      bad++;
    }
  }
  if (files.length === 0) {
    console.error('no examples found');
    bad++;
  }
  if (bad > 0) {
    console.error(`${bad} unknown tokens`);
    process.exit(1);
  }
  console.log(`ok: ${files.length} specs, ${tokens} tokens, no unknown token`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
