#!/usr/bin/env node
// reference.js is the reference algorithm of visible-history continuation
// as an in-process JavaScript plugin runs it (the DSH GitHub Copilot
// plugin's approach, REFERENCE.md §3): the request body is a JavaScript
// object, each top-level reasoning item is fingerprinted by SHA-256 over
// its encrypted_content, the first payload of a turn sets the baseline,
// and every payload of the turn drops the items in the baseline. It strips
// no paired ids (the plugin does not).
//
// It exists so `continuity bench` can put numbers next to the Go filter,
// and so tests can check that both omit the same items. Plain Node.js, no
// dependencies.
//
//   node reference.js bench [--runs N] [--min-ms M] FILE...
//       For each payload file, one JSON line: {file, bytes, items, omitted,
//       fullNs: [...], filterNs: [...]} where full is JSON.parse, filter,
//       JSON.stringify of the file's text (what a Node gateway does) and
//       filter is the filter step alone on an already-parsed object (what
//       an in-process plugin pays). Each run is a turn's first payload.
//   node reference.js emit OUTDIR FILE...
//       Treats the files as the successive payloads of one turn and writes
//       each filtered body to OUTDIR/<index>.json; prints {omitted: [...]}.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

// Turn holds the baseline of one turn.
class Turn {
  constructor() {
    this.baseline = null;
  }

  // apply returns a new body object without the baseline's reasoning
  // items, and how many it omitted. body is not modified.
  apply(body) {
    if (!body || typeof body !== 'object' || !Array.isArray(body.input)) {
      throw new Error('the payload has no input array');
    }
    const prints = body.input.map((item) => fingerprint(item));
    if (this.baseline === null) {
      this.baseline = new Set(prints.filter((p) => p !== null));
    }
    let omitted = 0;
    const input = body.input.filter((item, i) => {
      if (prints[i] !== null && this.baseline.has(prints[i])) {
        omitted++;
        return false;
      }
      return true;
    });
    return { body: { ...body, input }, omitted };
  }
}

// fingerprint is the hex SHA-256 of a reasoning item's encrypted_content,
// or null for any other item.
function fingerprint(item) {
  if (!item || item.type !== 'reasoning') {
    return null;
  }
  if (typeof item.encrypted_content !== 'string' || item.encrypted_content === '') {
    throw new Error('UNSUPPORTED_REASONING: a reasoning item without encrypted_content');
  }
  return crypto.createHash('sha256').update(item.encrypted_content).digest('hex');
}

function ns(start) {
  return Number(process.hrtime.bigint() - start);
}

function bench(args) {
  let runs = 5;
  let minMs = 300;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--runs') runs = Number(args[++i]);
    else if (args[i] === '--min-ms') minMs = Number(args[++i]);
    else files.push(args[i]);
  }
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const sample = (fn) => {
      fn(); // warm up
      const times = [];
      const until = process.hrtime.bigint() + BigInt(minMs) * 1000000n;
      while (times.length < runs || (times.length < 1000 && process.hrtime.bigint() < until)) {
        const start = process.hrtime.bigint();
        fn();
        times.push(ns(start));
      }
      return times;
    };
    let omitted = 0;
    const fullNs = sample(() => {
      const r = new Turn().apply(JSON.parse(text));
      omitted = r.omitted;
      if (JSON.stringify(r.body).length === 0) throw new Error('empty output');
    });
    const parsed = JSON.parse(text);
    const filterNs = sample(() => new Turn().apply(parsed));
    const line = { file, bytes: Buffer.byteLength(text), items: parsed.input.length, omitted, fullNs, filterNs };
    process.stdout.write(JSON.stringify(line) + '\n');
  }
}

function emit(outDir, files) {
  const turn = new Turn();
  const omitted = files.map((file, i) => {
    const r = turn.apply(JSON.parse(fs.readFileSync(file, 'utf8')));
    fs.writeFileSync(path.join(outDir, `${i}.json`), JSON.stringify(r.body));
    return r.omitted;
  });
  process.stdout.write(JSON.stringify({ omitted }) + '\n');
}

function main(argv) {
  const [mode, ...rest] = argv;
  if (mode === 'bench') return bench(rest);
  if (mode === 'emit' && rest.length >= 2) return emit(rest[0], rest.slice(1));
  process.stderr.write('usage: reference.js bench [--runs N] [--min-ms M] FILE... | emit OUTDIR FILE...\n');
  process.exitCode = 2;
}

main(process.argv.slice(2));
