import { useCallback, useSyncExternalStore } from "react";
import { songsClient } from "./api.client";
import { isSpecialCrate, type CrateDto } from "./songs";

/**
 * The signed-in user's own crates, kept once in the browser for the "Add to crate" menus
 * (fetched on first use, 60 s fresh like the spec's crate cache). The crates page writes
 * its edits here so every menu sees them.
 */
interface Snapshot {
  crates: CrateDto[] | null;
  loading: boolean;
  error: unknown;
}
const FRESH_MS = 60_000;
let snapshot: Snapshot = { crates: null, loading: false, error: null };
let loadedAt = 0;
let owner: string | null = null;
const listeners = new Set<() => void>();
const SERVER: Snapshot = { crates: null, loading: false, error: null };

function set(next: Partial<Snapshot>) {
  snapshot = { ...snapshot, ...next };
  listeners.forEach((l) => l());
}

export function setMyCrates(crates: CrateDto[]) {
  loadedAt = Date.now();
  set({ crates: crates.filter((c) => !isSpecialCrate(c)), error: null });
}

export function updateMyCrates(fn: (crates: CrateDto[]) => CrateDto[]) {
  if (snapshot.crates) set({ crates: fn(snapshot.crates) });
}

async function load(userUuid: string | null, force = false) {
  if (owner !== userUuid) {
    owner = userUuid;
    snapshot = { crates: null, loading: false, error: null };
    loadedAt = 0;
  }
  if (snapshot.loading || (!force && snapshot.crates && Date.now() - loadedAt < FRESH_MS)) return;
  set({ loading: true });
  try {
    const page = await songsClient().crates(100, 0);
    setMyCrates(page.data);
  } catch (error) {
    set({ error });
  } finally {
    set({ loading: false });
  }
}

/** The signed-in user's crates; `userUuid` keys the cache (a new user starts empty). */
export function useMyCrates(userUuid: string | null) {
  const snap = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => snapshot,
    () => SERVER,
  );
  const ensure = useCallback((force?: boolean) => load(userUuid, force), [userUuid]);
  return { ...snap, ensure };
}
