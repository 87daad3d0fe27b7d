/**
 * A library loaded on first use (docs/ARCHITECTURE.md, "Lazy libraries"): `import()` runs
 * once, the first time the returned function is called, and every later call shares that
 * one promise. A Worker that never takes a payment, reads a phone number or decodes an
 * image never evaluates Stripe's SDK, libphonenumber's metadata or photon's WASM, so its
 * cold start (and every test file's start-up) skips them.
 *
 * A failed load is forgotten, so the next call tries again instead of failing for ever.
 *
 * @example
 *   const loadStripe = lazyModule(() => import("stripe"));
 *   const { default: Stripe } = await loadStripe();
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((err: unknown) => {
      pending = undefined;
      throw err;
    }));
}
