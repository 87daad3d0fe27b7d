// `npm run bench`: runs the benchmarks in bench/*.bench.mjs (or the ones named on the
// command line, e.g. `npm run bench -- search`) one after another, prints their tables and
// writes each result to bench/results/<name>.json (git-ignored). Benchmarks are not tests:
// they never fail on a number, they measure it.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const wanted = process.argv.slice(2);
const all = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.mjs"))
  .map((f) => f.replace(/\.bench\.mjs$/, ""))
  .sort();
const names = wanted.length ? wanted : all;
const unknown = names.filter((n) => !all.includes(n));
if (unknown.length) {
  console.error(`no such benchmark: ${unknown.join(", ")} (have: ${all.join(", ")})`);
  process.exit(1);
}

mkdirSync(`${dir}results`, { recursive: true });
for (const name of names) {
  console.log(`\n== ${name} ==`);
  const { default: run } = await import(`./${name}.bench.mjs`);
  const started = new Date();
  const result = await run({ log: (...a) => console.log(...a) });
  // The machine is part of the result: numbers from a loaded 2-core box are not a server's.
  const env = {
    node: process.version,
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
  };
  const file = `${dir}results/${name}.json`;
  writeFileSync(
    file,
    `${JSON.stringify({ name, startedAt: started.toISOString(), seconds: (Date.now() - started.getTime()) / 1000, env, ...result }, null, 2)}\n`,
  );
  console.log(`wrote ${file.slice(dir.length - "bench/".length)}`);
}
