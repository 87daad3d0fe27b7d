// The part of m3u8-parser 7.2.0 (no bundled types) the HLS tests read (test/hls-standard.test.ts).
declare module "m3u8-parser" {
  export interface ParsedSegment {
    uri: string;
    duration: number;
    timeline: number;
    key?: { method: string; uri: string; iv?: Uint32Array };
  }
  export interface Manifest {
    version?: number;
    targetDuration?: number;
    mediaSequence?: number;
    playlistType?: string;
    endList?: boolean;
    segments: ParsedSegment[];
  }
  export class Parser {
    manifest: Manifest;
    push(chunk: string): void;
    end(): void;
  }
}
