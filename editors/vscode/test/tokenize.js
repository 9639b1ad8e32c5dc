#!/usr/bin/env node
// Tokenize Relay files with the extension's TextMate grammar, as VS Code
// does (vscode-textmate + vscode-oniguruma).
//
//   node test/tokenize.js --check PATH...   every non-blank piece of text gets a
//                                           scope besides `source.relay`, and
//                                           none is `invalid.*`; exit 1 if not
//   node test/tokenize.js --dump FILE       one line per token:
//                                           `line:column<TAB>text<TAB>scopes`
//
// Needs `npm install` (or `npm ci`) in editors/vscode first.
"use strict";

const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const GRAMMAR = path.join(__dirname, "..", "syntaxes", "relay.tmLanguage.json");
const ROOT_SCOPE = "source.relay";

async function loadGrammar() {
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm")).buffer;
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) =>
      scopeName === ROOT_SCOPE ? vsctm.parseRawGrammar(fs.readFileSync(GRAMMAR, "utf8"), GRAMMAR) : null,
  });
  return registry.loadGrammar(ROOT_SCOPE);
}

function* tokens(grammar, text) {
  let stack = vsctm.INITIAL;
  const lines = text.split(/\r\n|\r|\n/);
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const result = grammar.tokenizeLine(line, stack);
    for (const tok of result.tokens) {
      const piece = line.slice(tok.startIndex, tok.endIndex);
      yield { line: n + 1, column: tok.startIndex + 1, text: piece, scopes: tok.scopes };
    }
    stack = result.ruleStack;
  }
}

function relayFiles(p) {
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return [p];
  const out = [];
  for (const name of fs.readdirSync(p).sort()) {
    if (name.startsWith(".")) continue;
    const full = path.join(p, name);
    if (fs.statSync(full).isDirectory()) out.push(...relayFiles(full));
    else if (name.endsWith(".rly") || name.endsWith(".relay")) out.push(full);
  }
  return out;
}

async function main() {
  const [mode, ...args] = process.argv.slice(2);
  const grammar = await loadGrammar();
  if (mode === "--dump") {
    const text = fs.readFileSync(args[0], "utf8");
    const out = [];
    for (const tok of tokens(grammar, text)) {
      if (!tok.text.trim()) continue;
      out.push(`${tok.line}:${tok.column}\t${tok.text}\t${tok.scopes.slice(1).join(" ")}`);
    }
    process.stdout.write(out.join("\n") + "\n");
    return 0;
  }
  if (mode === "--check") {
    const files = args.flatMap(relayFiles);
    const problems = [];
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      for (const tok of tokens(grammar, text)) {
        if (!tok.text.trim()) continue;
        if (tok.scopes.length < 2) {
          problems.push({ file, line: tok.line, column: tok.column, text: tok.text, problem: "unscoped" });
        } else if (tok.scopes.some((s) => s.startsWith("invalid."))) {
          problems.push({ file, line: tok.line, column: tok.column, text: tok.text, problem: tok.scopes.join(" ") });
        }
      }
    }
    process.stdout.write(JSON.stringify({ files: files.length, problems }, null, 1) + "\n");
    return problems.length ? 1 : 0;
  }
  process.stderr.write("usage: tokenize.js --check PATH... | --dump FILE\n");
  return 2;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
    process.exit(2);
  }
);
