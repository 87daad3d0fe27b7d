// What the stadium bench reads from /proc about the processes `wrangler dev` started (Linux
// only): which of them is the runtime that runs our Worker and the port it listens on, how
// many file descriptors each holds, and CPU time. Why: under `wrangler dev` a client socket
// goes through wrangler's proxy, a second workerd process that held ~6.5 descriptors per
// client socket (4 pipes, 2 sockets) against a hard limit of 20,000 here, so it, not the
// Room, stopped a stadium run near 3,000 sockets. The runtime itself holds ~1 per socket.
// Not a benchmark itself (bench/run.mjs runs only *.bench.mjs files).
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

const HZ = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s

/** `/proc/<pid>/stat` fields after the name: [0] state, [2] pgid, [11] utime, [12] stime. */
function stat(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, "utf8");
  return {
    comm: s.slice(s.indexOf("(") + 1, s.lastIndexOf(")")),
    f: s.slice(s.lastIndexOf(")") + 2).split(" "),
  };
}

/** Every live process of the process group `pgid`: [{pid, comm, args}]. */
export function groupProcs(pgid) {
  const out = [];
  for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const { comm, f } = stat(p);
      if (Number(f[2]) !== pgid) continue;
      const args = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").filter(Boolean);
      out.push({ pid: Number(p), comm, args });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** CPU ms (user + system) the processes `pids` used so far (a gone one counts 0). */
export function cpuMs(pids) {
  let ticks = 0;
  for (const pid of pids)
    try {
      const { f } = stat(pid);
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* gone */
    }
  return (ticks * 1000) / HZ;
}

/** How many file descriptors `pid` holds now (null when it is gone). */
export function fdCount(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** The TCP ports on 127.0.0.1 that `pid` listens on (its socket inodes in LISTEN state). */
export function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`))
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      /* closed meanwhile */
    }
  const ports = [];
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const c = line.trim().split(/\s+/);
    // c[1] local "0100007F:PORT" (hex), c[3] state (0A = LISTEN), c[9] inode
    if (c[3] === "0A" && inodes.has(c[9]) && c[1].startsWith("0100007F:"))
      ports.push(parseInt(c[1].split(":")[1], 16));
  }
  return ports;
}

/**
 * The runtime of a `wrangler dev` process group: the workerd that does not listen on the
 * dev port (`proxyPort`, wrangler's proxy workerd), and its base URL, the one of its
 * listening ports where `ready(base)` answers (Miniflare's entry). Requests sent there reach
 * the Worker as they would through the proxy, minus the proxy's hop (no MF-Proxy-Shared-Secret
 * header: the entry keeps the request's own Host).
 */
export async function findRuntime(pgid, proxyPort, ready) {
  const workerds = groupProcs(pgid).filter((p) => p.comm === "workerd");
  const proxy = workerds.find((p) => listeningPorts(p.pid).includes(proxyPort)) ?? null;
  for (const p of workerds.filter((w) => w !== proxy))
    for (const port of listeningPorts(p.pid)) {
      const base = `http://127.0.0.1:${port}`;
      try {
        if (await ready(base)) return { pid: p.pid, base, proxyPid: proxy?.pid ?? null };
      } catch {
        /* not the entry */
      }
    }
  throw new Error(
    `no runtime workerd answering in process group ${pgid} (workerd pids: ${workerds.map((w) => w.pid).join(", ") || "none"})`,
  );
}
