// Runs one ONNX model with onnxruntime-node (the reference and the benchmark peer of tests/test_onnx_models.c and
// bench/onnx.c). Needs onnxruntime-node and onnxruntime-common on NODE_PATH (tests/fetch_ort.sh sets them up).
//   node tests/ort_run.js MODEL INPUT.bin D0,D1,... OUTPUT.bin [THREADS] [RUNS]
// INPUT.bin holds the first input's float32 values (little-endian, row-major). OUTPUT.bin receives the first
// output's float32 values. Prints one JSON line: {"dims":[...],"load_first_ms":..,"run_ms":[...]}; load_first_ms is
// session creation plus the first run; run_ms are the RUNS timed runs after it (default 0).
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const [model, input, shapeText, output, threadsText, runsText] = process.argv.slice(2);
  if (!model || !input || !shapeText || !output) throw new Error('usage: ort_run.js MODEL INPUT.bin D0,D1,... OUTPUT.bin [THREADS] [RUNS]');
  const dims = shapeText.split(',').map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const bytes = fs.readFileSync(input);
  if (bytes.length !== count * 4) throw new Error(`input has ${bytes.length} bytes, the shape needs ${count * 4}`);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  const threads = Number(threadsText || 1), runs = Number(runsText || 0);
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential' });
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
  let result = await session.run(feeds);
  const loadFirst = Number(process.hrtime.bigint() - t0) / 1e6;
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    result = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const out = result[session.outputNames[0]];
  if (out.type !== 'float32') throw new Error(`output type ${out.type}, expected float32`);
  fs.writeFileSync(output, Buffer.from(out.data.buffer, out.data.byteOffset, out.data.byteLength));
  console.log(JSON.stringify({ dims: out.dims, load_first_ms: loadFirst, run_ms: times }));
}
main().catch((e) => { console.error(String(e && e.message || e)); process.exit(1); });
