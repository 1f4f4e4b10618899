// llama.cpp reference for the GGUF tests and benchmark: loads exported GGUF files with node-llama-cpp
// (the prebuilt CPU backend) and, in ONE node process for the whole job file:
//   - compares llama.cpp's next-token probabilities (full vocabulary, controlledEvaluate with
//     probabilities, temperature 1, no top-k / top-p / min-p) with ours (float32 log-probabilities, T x V,
//     as written by `traindeck-trainer eval-logits`) at every position,
//   - tokenises texts with the exported vocabulary,
//   - optionally measures generation speed,
//   - records every warning llama.cpp logs while loading each model.
//
// usage: node llama_reference.mjs JOB.json RESULT.json
// JOB: { "nodeModules": DIR, "threads": N,
//        "models": [ { "id": S, "gguf": FILE, "contextSize": N,
//                      "sequences": [ { "ids": [..], "ours": FILE } ],
//                      "tokenize": [ TEXT, ... ],
//                      "speed": { "prompt": [ids], "generate": N } } ] }
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const started = performance.now();
const [jobPath, resultPath] = process.argv.slice(2);
if (!jobPath || !resultPath) {
    console.error("usage: node llama_reference.mjs JOB.json RESULT.json");
    process.exit(2);
}
const job = JSON.parse(fs.readFileSync(jobPath, "utf8"));
const entry = path.join(job.nodeModules, "node-llama-cpp", "dist", "index.js");
if (!fs.existsSync(entry)) {
    console.error(`node-llama-cpp is missing (${entry}); run scripts/setup-deps.sh`);
    process.exit(3);
}
const { getLlama, LlamaLogLevel } = await import(pathToFileURL(entry).href);

let phase = "startup";
const logs = [];  // {phase, level, message}
const llama = await getLlama({
    gpu: false,
    build: "never",
    usePrebuiltBinaries: true,
    progressLogs: false,
    maxThreads: job.threads ?? 1,
    logLevel: LlamaLogLevel.warn,
    logger(level, message) {
        const text = String(message).trim();
        if (text.length > 0)
            logs.push({ phase, level: String(level), message: text });
    },
});

function readOurLogProbs(file, steps, vocab) {
    const buf = fs.readFileSync(file);
    if (buf.length !== steps * vocab * 4)
        throw new Error(`${file}: ${buf.length} bytes, expected ${steps} x ${vocab} float32`);
    return new Float32Array(buf.buffer, buf.byteOffset, steps * vocab);
}

const result = { models: [], logs, startupMs: performance.now() - started };
for (const m of job.models) {
    const out = { id: m.id, gguf: m.gguf };
    result.models.push(out);
    phase = `load ${m.id}`;
    const loadStart = performance.now();
    const model = await llama.loadModel({ modelPath: m.gguf, gpuLayers: 0, useMmap: true });
    out.loadMs = performance.now() - loadStart;
    out.trainContextSize = model.trainContextSize;
    out.fileType = model.fileInfo?.metadata?.general?.file_type;
    out.architecture = model.fileInfo?.metadata?.general?.architecture;

    if (m.tokenize?.length) {
        phase = `tokenize ${m.id}`;
        out.tokenize = m.tokenize.map((text) => Array.from(model.tokenize(text, true)));
    }

    if (m.sequences?.length || m.speed) {
        phase = `context ${m.id}`;
        const c0 = performance.now();
        const context = await model.createContext({
            contextSize: m.contextSize ?? 256,
            batchSize: m.contextSize ?? 256,
            flashAttention: false,
            threads: job.threads ?? 1,
            // f32 KV cache: the default f16 cache rounds K and V, which would dominate the comparison.
            experimentalKvCacheKeyType: "F32",
            experimentalKvCacheValueType: "F32",
        });
        out.contextMs = performance.now() - c0;
        out.sequences = [];
        phase = `evaluate ${m.id}`;
        for (const s of m.sequences ?? []) {
            const sequence = context.getSequence();
            const input = s.ids.map((t) => [t, { generateNext: { probabilities: true,
                options: { temperature: 1, topK: 0, topP: 1, minP: 0 } } }]);
            const t0 = performance.now();
            const evaluated = await sequence.controlledEvaluate(input);
            const evalMs = performance.now() - t0;
            const T = s.ids.length;
            let vocab = 0;
            for (let i = 0; i < T; i++)
                if (evaluated[i]?.next?.probabilities)
                    vocab = Math.max(vocab, evaluated[i].next.probabilities.size);
            const r = { length: T, evalMs, vocab, maxAbsDiff: 0, worst: null, meanPeak: 0, argmaxAgree: 0,
                        minMapSize: Infinity, sumError: 0, maxAbsDiffRaw: 0 };
            const t1 = performance.now();
            if (s.ours) {
                const V = s.vocab;
                const ours = readOurLogProbs(s.ours, T, V);
                for (let i = 0; i < T; i++) {
                    const probs = evaluated[i]?.next?.probabilities;
                    if (!probs)
                        throw new Error(`${m.id}: no probabilities at position ${i}`);
                    r.minMapSize = Math.min(r.minMapSize, probs.size);
                    const row = i * V;
                    let ourBest = 0, theirBest = 0, ourBestP = -1, theirBestP = -1, sum = 0;
                    // node-llama-cpp normalises the softmax with a float32 sum over the whole vocabulary, which
                    // scales every probability by up to ~1e-3; renormalise in double before comparing (and
                    // report the raw difference too).
                    for (const p of probs.values())
                        sum += p;
                    const seen = new Uint8Array(V);
                    for (const [token, raw] of probs) {
                        if (token < 0 || token >= V)
                            throw new Error(`${m.id}: token ${token} outside the vocabulary`);
                        seen[token] = 1;
                        const p = raw / sum;
                        const q = Math.exp(ours[row + token]);
                        const d = Math.abs(p - q);
                        if (d > r.maxAbsDiff)
                            r.maxAbsDiff = d, r.worst = { position: i, token, llama: p, ours: q };
                        r.maxAbsDiffRaw = Math.max(r.maxAbsDiffRaw, Math.abs(raw - q));
                        if (p > theirBestP) theirBestP = p, theirBest = token;
                        if (q > ourBestP) ourBestP = q, ourBest = token;
                    }
                    r.sumError = Math.max(r.sumError, Math.abs(sum - 1));
                    r.meanPeak += theirBestP / T;
                    if (ourBest === theirBest) r.argmaxAgree++;
                }
            }
            r.compareMs = performance.now() - t1;
            out.sequences.push(r);
            await sequence.dispose();
        }
        if (m.speed) {
            // Prompt processing: one batch of prompt tokens (after a warm-up decode that builds the graph);
            // generation: the ordinary greedy generation loop (sequence.evaluate), one token per decode.
            phase = `speed ${m.id}`;
            const sequence = context.getSequence();
            const prompt = m.speed.prompt;
            await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, 8));
            await sequence.clearHistory();
            const t0 = performance.now();
            await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1));
            const t1 = performance.now();
            let generated = 0;
            const t2 = performance.now();
            for await (const token of sequence.evaluate([prompt[prompt.length - 1]], { temperature: 0 })) {
                void token;
                if (++generated >= m.speed.generate)
                    break;
            }
            const t3 = performance.now();
            out.speed = { promptTokens: prompt.length - 1, promptMs: t1 - t0,
                          promptTokensPerSecond: (prompt.length - 1) / ((t1 - t0) / 1000),
                          generated, generateMs: t3 - t2, generateTokensPerSecond: generated / ((t3 - t2) / 1000) };
            await sequence.dispose();
        }
        await context.dispose();
    }
    await model.dispose();
}
phase = "shutdown";
await llama.dispose();
result.totalMs = performance.now() - started;
fs.writeFileSync(resultPath, JSON.stringify(result));
