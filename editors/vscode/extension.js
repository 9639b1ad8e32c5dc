// The Relay extension: the grammar and language configuration come from
// package.json; this file starts `relay lsp` (relay-text's language server)
// for .rly and .relay files. Install relay-text with its `lsp` extra
// (`pip install 'relay-text[lsp]'`) so that `relay` is on the PATH, or set
// `relay.server.command`. Not bundled: run `npm install` in this folder.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("relay");
  if (!config.get("server.enabled", true)) {
    return;
  }
  const command = config.get("server.command", ["relay", "lsp"]);
  const serverOptions = {
    command: command[0],
    args: command.slice(1),
    transport: TransportKind.stdio,
  };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "relay" },
      { scheme: "untitled", language: "relay" },
    ],
  };
  client = new LanguageClient("relay", "Relay language server", serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.commands.registerCommand("relay.restartServer", () => client && client.restart())
  );
  return client.start().catch((err) => {
    vscode.window.showErrorMessage(
      `Could not start \`${command.join(" ")}\` (${err.message || err}). ` +
        "Install relay-text with `pip install 'relay-text[lsp]'` or set relay.server.command."
    );
  });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
