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
    middleware: {
      // The server's "show graph" action runs its command, which answers
      // with a page: send it to the command below, which shows the page.
      provideCodeActions: async (document, range, context, token, next) => {
        const actions = await next(document, range, context, token);
        for (const action of actions || []) {
          const command = action.command;
          if (command && command.command === "relay.showGraph") {
            command.command = "relay.showGraphView";
          }
        }
        return actions;
      },
    },
  };
  client = new LanguageClient("relay", "Relay language server", serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.commands.registerCommand("relay.restartServer", () => client && client.restart()),
    vscode.commands.registerCommand("relay.showGraphView", showGraph)
  );
  return client.start().catch((err) => {
    vscode.window.showErrorMessage(
      `Could not start \`${command.join(" ")}\` (${err.message || err}). ` +
        "Install relay-text with `pip install 'relay-text[lsp]'` or set relay.server.command."
    );
  });
}

// The graph of the function under the cursor (or of the one the code action
// names), in a web view beside the editor: the server's `relay.showGraph`
// answers with the `relay viz` page, which needs scripts and nothing else.
async function showGraph(uri, position) {
  if (!uri) {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== "relay") {
      vscode.window.showInformationMessage("Open a Relay file to see its graph.");
      return;
    }
    uri = editor.document.uri.toString();
    const at = editor.selection.active;
    position = { line: at.line, character: at.character };
  }
  let answer;
  try {
    answer = await client.sendRequest("workspace/executeCommand", { command: "relay.showGraph", arguments: [uri, position] });
  } catch (err) {
    vscode.window.showErrorMessage(`Relay: ${err.message || err}`);
    return;
  }
  const panel = vscode.window.createWebviewPanel("relayGraph", answer.title, vscode.ViewColumn.Beside, {
    enableScripts: true,
    retainContextWhenHidden: true,
  });
  panel.webview.html = answer.html;
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
