/**
 * Apple Music linking in the browser (issue 16): MusicKit JS, configured with our developer
 * token, asks the person and hands back a Music User Token, which the page posts to
 * POST /apple/user-token. The script comes from configuration (`MUSICKIT_JS_URL`, Apple's CDN
 * in production); in development without it, the local stand-in /musickit-stand-in.js, which
 * has MusicKit's shape (workers/security-headers.ts `musicKitScriptUrl` decides, and admits it
 * in the page's CSP).
 */
export interface MusicKitSetup {
  scriptUrl: string;
  developerToken: string;
}

interface MusicKitInstance {
  authorize(): Promise<string>;
}
interface MusicKitGlobal {
  configure(o: { developerToken: string; app: { name: string; build: string } }): unknown;
}

let loading: Promise<MusicKitGlobal> | null = null;

/** Loads the script once (a script element: the page's CSP admits its origin). */
function loadMusicKit(src: string): Promise<MusicKitGlobal> {
  const w = window as unknown as { MusicKit?: MusicKitGlobal };
  if (w.MusicKit) return Promise.resolve(w.MusicKit);
  loading ??= new Promise<MusicKitGlobal>((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src;
    s.async = true;
    s.onload = () => (w.MusicKit ? resolve(w.MusicKit) : reject(new Error("MusicKit missing")));
    s.onerror = () => {
      loading = null;
      reject(new Error("MusicKit did not load"));
    };
    document.head.appendChild(s);
  });
  return loading;
}

/** Asks the person through MusicKit; resolves to their Music User Token. */
export async function appleMusicUserToken(setup: MusicKitSetup): Promise<string> {
  const kit = await loadMusicKit(setup.scriptUrl);
  // v3 answers a promise of the instance, v1 the instance itself: await covers both.
  const music = (await kit.configure({
    developerToken: setup.developerToken,
    app: { name: "Hangout", build: "1" },
  })) as MusicKitInstance;
  const token = await music.authorize();
  if (typeof token !== "string" || !token) throw new Error("MusicKit gave no token");
  return token;
}
