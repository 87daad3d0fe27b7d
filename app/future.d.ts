// Single fetch is on (vite.config.ts): loaders return plain objects, and
// useLoaderData<typeof loader>() should infer their un-serialised types.
import "@remix-run/server-runtime";

declare module "@remix-run/server-runtime" {
  interface Future {
    v3_singleFetch: true;
  }
}
