// Reference results for the tokenizer tests and the benchmark, computed by third-party code:
//   lenml    - @lenml/tokenizers (a port of transformers.js) loaded with the given tokenizer.json
//              (and tokenizer_config.json when given);
//   tiktoken - tiktoken (WASM) loaded with the vocabulary as ranks and the tokenizer's split pattern;
//              it has no normalizer, so its input is NFC-normalised with String.prototype.normalize.
//   nfc      - String.prototype.normalize("NFC") of each document (ICU);
//   lossy    - TextDecoder("utf-8") (WHATWG replacement of ill-formed UTF-8) of base64 byte strings.
//
// Usage: node reference.mjs REQUEST.json OUT.json
// REQUEST: { "nodeModules": "/…/node_modules", "jobs": [JOB…] }
// JOB: { "tokenizer": "/…/tokenizer.json", "config": "/…/tokenizer_config.json" (optional),
//        "docs": ["text", …] or "docsFile": "/…/docs.json" (a JSON array of strings),
//        "engines": ["lenml", "tiktoken", "nfc"], "addSpecialTokens": false (lenml),
//        "flat": false (one concatenated id list per engine), "lossy": ["base64", …] (optional) }
// OUT: { "jobs": [{ "lenml": [[ids…]…], "tiktoken": …, "nfc": […], "lossy": […],
//                   "seconds": {"lenml": s, "tiktoken": s}, "bytes": n }…] }
// Exit status 3 with a message on stderr when a package is missing.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [requestPath, outPath] = process.argv.slice(2);
if (!requestPath || !outPath) {
  console.error('usage: node reference.mjs REQUEST.json OUT.json');
  process.exit(2);
}
const request = JSON.parse(fs.readFileSync(requestPath, 'utf8'));
const nm = request.nodeModules;
for (const pkg of ['@lenml/tokenizers/dist/main.mjs', 'tiktoken/lite.d.ts']) {
  if (!fs.existsSync(path.join(nm, pkg))) {
    console.error(`reference package missing: ${path.join(nm, pkg)} (run scripts/setup-deps.sh)`);
    process.exit(3);
  }
}

const requireFromNm = createRequire(path.join(nm, 'noop.js'));
let lenmlLib = null;
const lenmlCache = new Map();
const tiktokenCache = new Map();
const jsonCache = new Map();

function readJson(p) {
  if (!jsonCache.has(p)) jsonCache.set(p, JSON.parse(fs.readFileSync(p, 'utf8')));
  return jsonCache.get(p);
}

async function lenmlFor(job) {
  const key = job.tokenizer + '\n' + (job.config ?? '');
  if (!lenmlCache.has(key)) {
    lenmlLib ??= await import(pathToFileURL(path.join(nm, '@lenml/tokenizers/dist/main.mjs')).href);
    const config = job.config ? readJson(job.config) : {};
    lenmlCache.set(key, new lenmlLib.tokenizers.PreTrainedTokenizer(readJson(job.tokenizer), config));
  }
  return lenmlCache.get(key);
}

function tiktokenFor(job) {
  if (!tiktokenCache.has(job.tokenizer)) {
    const { Tiktoken } = requireFromNm('tiktoken/lite');
    const tj = readJson(job.tokenizer);
    // GPT-2 byte-level alphabet: printable bytes stand for themselves, the others for 256 + n.
    const charToByte = new Map();
    let n = 0;
    for (let b = 0; b < 256; b++) {
      const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      charToByte.set(String.fromCodePoint(printable ? b : 256 + n++), b);
    }
    const lines = [];
    for (const [token, id] of Object.entries(tj.model.vocab)) {
      const bytes = [];
      for (const ch of token) bytes.push(charToByte.get(ch));
      lines.push(Buffer.from(bytes).toString('base64') + ' ' + id);
    }
    const special = {};
    for (const t of tj.added_tokens ?? []) special[t.content] = t.id;
    const pattern = tj.pre_tokenizer.pretokenizers.find((p) => p.type === 'Split').pattern.Regex;
    tiktokenCache.set(job.tokenizer, new Tiktoken(lines.join('\n'), special, pattern));
  }
  return tiktokenCache.get(job.tokenizer);
}

function timed(fn) {
  const t0 = process.hrtime.bigint();
  const r = fn();
  return [r, Number(process.hrtime.bigint() - t0) / 1e9];
}

function collect(perDoc, flat) {
  if (!flat) return perDoc;
  const out = [];
  for (const ids of perDoc) for (const id of ids) out.push(id);
  return out;
}

const results = [];
for (const job of request.jobs) {
  const docs = job.docs ?? (job.docsFile ? JSON.parse(fs.readFileSync(job.docsFile, 'utf8')) : []);
  const engines = job.engines ?? [];
  const out = { seconds: {}, bytes: docs.reduce((n, d) => n + Buffer.byteLength(d, 'utf8'), 0) };
  if (engines.includes('lenml')) {
    const tok = await lenmlFor(job);
    const opts = { add_special_tokens: !!job.addSpecialTokens };
    const [ids, s] = timed(() => docs.map((d) => tok.encode(d, opts)));
    out.lenml = collect(ids, job.flat);
    out.seconds.lenml = s;
  }
  if (engines.includes('tiktoken')) {
    const enc = tiktokenFor(job);
    const [ids, s] = timed(() => docs.map((d) => Array.from(enc.encode_ordinary(d.normalize('NFC')))));
    out.tiktoken = collect(ids, job.flat);
    out.seconds.tiktoken = s;
  }
  if (engines.includes('nfc')) out.nfc = docs.map((d) => d.normalize('NFC'));
  if (job.lossy) {
    const dec = new TextDecoder('utf-8');
    out.lossy = job.lossy.map((b) => dec.decode(Buffer.from(b, 'base64')));
  }
  results.push(out);
}
for (const enc of tiktokenCache.values()) enc.free();
fs.writeFileSync(outPath, JSON.stringify({ jobs: results }));
