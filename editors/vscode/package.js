// Packages the extension as a .vsix with @vscode/vsce (fetched by npx):
// `npm run package` writes relay-text.vsix here; arguments after `--` go
// to `vsce package` (e.g. `npm run package -- --out /tmp/relay.vsix`).
// The project's LICENSE is copied in for the package, then removed.
"use strict";

const { spawnSync } = require("child_process");
const fs = require("fs");
const path = require("path");

const VSCE = "@vscode/vsce@3.9.2";
const license = path.join(__dirname, "LICENSE");
fs.copyFileSync(path.join(__dirname, "..", "..", "LICENSE"), license);
let status = 1;
try {
  const args = process.argv.slice(2);
  const out = args.includes("--out") || args.includes("-o") ? [] : ["--out", "relay-text.vsix"];
  const npx = process.platform === "win32" ? "npx.cmd" : "npx";
  const result = spawnSync(npx, ["--yes", VSCE, "package", "--allow-missing-repository", ...out, ...args], {
    cwd: __dirname,
    stdio: "inherit",
  });
  status = result.status === null ? 1 : result.status;
} finally {
  fs.rmSync(license, { force: true });
}
process.exit(status);
