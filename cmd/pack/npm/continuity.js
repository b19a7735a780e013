#!/usr/bin/env node
// The `continuity` command of the npm package @continuity-dev/continuity:
// it finds the binary in this platform's optional dependency
// (@continuity-dev/continuity-<platform>-<arch>, which npm installed
// because its os and cpu match) and runs it with this process's
// arguments, standard streams, exit status and signals.
"use strict";
const { spawn } = require("node:child_process");

const platformPackage = `@continuity-dev/continuity-${process.platform}-${process.arch}`;
const executable = process.platform === "win32" ? "continuity.exe" : "continuity";

let binary;
try {
  binary = require.resolve(`${platformPackage}/bin/${executable}`);
} catch {
  console.error(
    `continuity: the binary for ${process.platform}-${process.arch} is not installed: npm did not install ${platformPackage}.\n` +
      `Reinstall without --no-optional / --omit=optional (npm install -g @continuity-dev/continuity), ` +
      `or use a release archive or \`go install\` (README.md, "Install").`,
  );
  process.exit(1);
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

// A signal sent to this launcher goes to the binary, which decides how to
// end; the launcher then ends the way the binary did.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of forwarded) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}

child.on("error", (err) => {
  console.error(`continuity: could not start ${binary}: ${err.message}`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  if (signal) {
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
