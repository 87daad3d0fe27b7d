import { parseMultipartStream } from "@remix-run/multipart-parser";
import CodecParser from "codec-parser";
import { parseWebStream } from "music-metadata";
import { readParts } from "../../workers/lib/multipart-stream";
import { Mp3Indexer } from "../../workers/songs/mp3";

/**
 * The parser bench's Worker (bench/parsers.bench.mjs): one task per request, on a body made
 * here as a stream (so the bench measures parsing, not a transfer): a 50 MB upload, an ID3v2
 * tag then MPEG-1 Layer III frames, bare or wrapped in multipart/form-data. Each task
 * answers what it found, so a parser that skipped work shows it.
 */

const FRAME = 417;
const FRAMES_PER_CHUNK = 157; // ~64 KB chunks, as a network delivers them
const BOUNDARY = "----bench-boundary-7MA4YWxkTrZu0gW";
const enc = new TextEncoder();

function id3Tag(): Uint8Array {
  const frame = (id: string, text: string) => {
    const body = enc.encode(`\0${text}`);
    const f = new Uint8Array(10 + body.length);
    f.set(enc.encode(id));
    new DataView(f.buffer).setUint32(4, body.length);
    f.set(body, 10);
    return f;
  };
  const frames = [
    frame("TIT2", "Bench Song"),
    frame("TPE1", "Bench Artist"),
    frame("TCON", "Rock"),
  ];
  const size = frames.reduce((n, f) => n + f.length, 0);
  const tag = new Uint8Array(10 + size);
  tag.set([
    0x49,
    0x44,
    0x33,
    3,
    0,
    0,
    (size >> 21) & 127,
    (size >> 14) & 127,
    (size >> 7) & 127,
    size & 127,
  ]);
  let at = 10;
  for (const f of frames) {
    tag.set(f, at);
    at += f.length;
  }
  return tag;
}

/** Bytes the current task has pulled from its body so far. */
let pulled = 0;

/** The upload as a stream of ~64 KB chunks: `bytes` of frames behind a tag, optionally as multipart. */
function upload(bytes: number, multipart: boolean): ReadableStream<Uint8Array> {
  pulled = 0;
  const chunk = new Uint8Array(FRAMES_PER_CHUNK * FRAME);
  for (let i = 0; i < FRAMES_PER_CHUNK; i++) chunk.set([0xff, 0xfb, 0x90, 0x64], i * FRAME);
  const chunks = Math.ceil(bytes / chunk.length);
  const head = multipart
    ? enc.encode(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="trackName"\r\n\r\nBench\r\n` +
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bench.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
      )
    : new Uint8Array(0);
  const tail = multipart ? enc.encode(`\r\n--${BOUNDARY}--\r\n`) : new Uint8Array(0);
  let sent = -1;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === -1) {
        const first = new Uint8Array([...head, ...id3Tag()]);
        pulled += first.length;
        controller.enqueue(first);
      } else if (sent < chunks) {
        pulled += chunk.length;
        controller.enqueue(chunk.slice());
      } else {
        if (tail.length) controller.enqueue(tail);
        controller.close();
      }
      sent++;
    },
  });
}

async function drain(stream: ReadableStream<Uint8Array>) {
  let n = 0;
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) n += c.length;
  return n;
}

type Task = (bytes: number) => Promise<Record<string, unknown>>;
const TASKS: Record<string, Task> = {
  /** Making and reading the body, nothing else: subtracted from every other task. */
  baseline: async (bytes) => ({ bytes: await drain(upload(bytes, true)) }),
  // `heldBeforeFirstByte`: how much of the body had been read when the file's first byte
  // reached the code that stores it, i.e. what the parser held in memory at that moment.
  "multipart-ours": async (bytes) => {
    let file = 0;
    let heldBeforeFirstByte = -1;
    for await (const part of readParts(upload(bytes, true), BOUNDARY)) {
      if (part.filename !== undefined)
        for await (const c of part.chunks()) {
          if (heldBeforeFirstByte < 0) heldBeforeFirstByte = pulled;
          file += c.length;
        }
      else await part.text(4096);
    }
    return { file, heldBeforeFirstByte };
  },
  "multipart-remix": async (bytes) => {
    let file = 0;
    let heldBeforeFirstByte = -1;
    for await (const part of parseMultipartStream(upload(bytes, true), {
      boundary: BOUNDARY,
      maxFileSize: 60 * 1024 * 1024,
    }))
      if (part.filename !== undefined) {
        if (heldBeforeFirstByte < 0) heldBeforeFirstByte = pulled;
        file += part.size;
      }
    return { file, heldBeforeFirstByte };
  },
  "frames-ours": async (bytes) => {
    const ix = new Mp3Indexer();
    for await (const c of upload(bytes, false) as unknown as AsyncIterable<Uint8Array>) ix.push(c);
    const r = ix.finish();
    return {
      frames: r.frames,
      segments: r.segments.length,
      title: r.tags.title,
      duration: r.duration,
    };
  },
  "frames-codec-parser": async (bytes) => {
    const parser = new CodecParser("audio/mpeg");
    let frames = 0;
    let duration = 0;
    for await (const c of upload(bytes, false) as unknown as AsyncIterable<Uint8Array>)
      for (const f of parser.parseChunk(c) as unknown as Iterable<{ duration: number }>) {
        frames++;
        duration += f.duration;
      }
    for (const f of parser.flush() as unknown as Iterable<{ duration: number }>) {
      frames++;
      duration += f.duration;
    }
    return { frames, duration: duration / 1000 };
  },
  "tags-music-metadata": async (bytes) => {
    const meta = await parseWebStream(
      upload(bytes, false),
      { mimeType: "audio/mpeg" },
      { duration: true, skipCovers: true },
    );
    return { title: meta.common.title, genre: meta.common.genre, duration: meta.format.duration };
  },
};

export default {
  async fetch(req: Request) {
    const url = new URL(req.url);
    const task = TASKS[url.searchParams.get("task") ?? ""];
    if (!task) return new Response("unknown task", { status: 404 });
    try {
      return Response.json(await task(Number(url.searchParams.get("bytes"))));
    } catch (err) {
      return Response.json({ error: String(err) }, { status: 500 });
    }
  },
};
