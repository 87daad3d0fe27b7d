// `wrangler dev` for the benches that need the real Worker (bench/rooms.bench.mjs): started on
// free ports with its own state directory, stopped with its whole process group (npx,
// wrangler, workerd), even when the bench fails or is interrupted; plus the HTTP and token
// helpers a bench needs to talk to it. Not a benchmark itself (bench/run.mjs runs only
// *.bench.mjs files).
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { importPKCS8, SignJWT } from "jose";
import { buildWebApp } from "../../scripts/build-web.mjs";
import { ensureDevVars } from "../../scripts/setup.mjs";
import { sleep } from "./sockets.mjs";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const ENV = {
  ...process.env,
  CI: "1",
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });

/** A fresh, empty state directory for one wrangler of this run (`.wrangler/bench-<label>-<pid>`). */
export function freshState(label) {
  const state = `${ROOT}.wrangler/bench-${label}-${process.pid}`;
  rmSync(state, { recursive: true, force: true });
  mkdirSync(state, { recursive: true });
  return state;
}

/** `wrangler dev` on a free port with a fresh state dir; resolves once `ready(base)` answers. */
export async function startWrangler(label, args, ready) {
  const state = freshState(label);
  return { state, ...(await launch(label, args, state, ready)) };
}

/** Every wrangler this run started, so a failure anywhere still stops them all. */
const children = new Set();

let built = false;

/** `wrangler dev` with `args` on the state dir `state`; resolves `{ child, base, port, log }` once `ready(base)`. */
export async function launch(label, args, state, ready) {
  // The project's own Worker (no --config) serves the built web app: build it once per run.
  if (!args.includes("--config") && !built) {
    buildWebApp(ENV);
    built = true;
  }
  const port = await freePort();
  const inspector = await freePort();
  const child = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      ...args,
      "--port",
      String(port),
      "--inspector-port",
      String(inspector),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
    ],
    { cwd: ROOT, env: ENV, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  children.add(child);
  let log = "";
  // BENCH_LOG_DIR=<dir>: every line each wrangler says, in <dir>/<label>.log (else the last 20 kB).
  const file = process.env.BENCH_LOG_DIR && `${process.env.BENCH_LOG_DIR}/${label}.log`;
  const keep = (d) => {
    log = (log + d).slice(-20_000);
    if (file) appendFileSync(file, d);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const base = `http://127.0.0.1:${port}`;
  const proc = { child, base, port, inspector, log: () => log };
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if (await ready(base)) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      stop(proc);
      throw new Error(`${label}: wrangler dev did not start:\n${log.slice(-3000)}`);
    }
    await sleep(300);
  }
  return proc;
}

/** SIGTERM to the whole process group (npx, wrangler, workerd), SIGKILL 3 s later if any is left. */
export function stop(proc, signal = "SIGTERM") {
  if (!proc?.child?.pid) return;
  try {
    process.kill(-proc.child.pid, signal);
  } catch {
    return; /* gone */
  }
  if (signal === "SIGTERM") setTimeout(() => stop(proc, "SIGKILL"), 3000).unref();
}

/** Stops every wrangler this run started and waits until they are gone. */
export async function stopAll() {
  for (const child of children) stop({ child });
  await sleep(3000);
  for (const child of children) stop({ child }, "SIGKILL");
  children.clear();
}

/** On Ctrl-C or a kill, every wrangler this run started goes too (SIGKILL: no time to wait). */
export function stopAllOnSignal() {
  const onSignal = (code) => () => {
    for (const child of children) stop({ child }, "SIGKILL");
    process.exit(code);
  };
  process.once("SIGINT", onSignal(130));
  process.once("SIGTERM", onSignal(143));
}

/** A JSON call to the Worker; throws with the status and body on anything but 2xx. */
export async function api(base, method, path, { token, json, headers = {} } = {}) {
  const send = () =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        ...headers,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(json ? { "content-type": "application/json" } : {}),
      },
      body: json ? JSON.stringify(json) : undefined,
    });
  // A kept-alive connection the runtime closed while a long phase ran (minutes of sockets
  // connecting) fails with ECONNRESET before the request reaches it: such a request was
  // never handled, so it is sent again on a fresh connection (up to 3 tries).
  let res;
  for (let attempt = 1; ; attempt++) {
    try {
      res = await send();
      break;
    } catch (e) {
      const code = e?.cause?.code;
      if (attempt >= 3 || (code !== "ECONNRESET" && code !== "UND_ERR_SOCKET")) throw e;
      await new Promise((r) => setTimeout(r, 1000 * attempt));
    }
  }
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** A variable of .dev.vars (made by `npm install`; made now if missing), unquoted. */
export function devVar(name) {
  ensureDevVars();
  const devVars = readFileSync(`${ROOT}.dev.vars`, "utf8");
  const v = new RegExp(`^${name}=(.*)$`, "m").exec(devVars)?.[1];
  if (v === undefined) throw new Error(`.dev.vars has no ${name}`);
  return v.replace(/^"|"$/g, "").replace(/\\n/g, "\n");
}

/**
 * Signs user tokens with the dev key pair, as the user-service would: `sign(uuid, roles)`.
 * The account must exist in D1 with session version 0 (the gateway and REST read it), and
 * roles count only as D1 holds them.
 */
export async function devSigner() {
  const key = await importPKCS8(devVar("JWT_PRIVATE_KEY"), "RS256");
  return (sub, roles = ["user"]) =>
    new SignJWT({ type: "user", roles, sv: 0 })
      .setProtectedHeader({ alg: "RS256", typ: "JWT" })
      .setSubject(sub)
      .setIssuer("hangout/user-service")
      .setIssuedAt()
      .setExpirationTime("2h")
      .sign(key);
}

/** Runs `sql` on the local D1 under `state` (before its wrangler starts, or beside it). */
export function d1Execute(state, sql) {
  const file = `${state}/bench.sql`;
  writeFileSync(file, sql);
  execFileSync(
    "npx",
    ["wrangler", "d1", "execute", "DB", "--local", "--file", file, "--persist-to", state],
    { cwd: ROOT, env: ENV, stdio: "pipe" },
  );
  rmSync(file, { force: true });
}
