/**
 * A bench's one way into its Miniflare worker: POST `body` as JSON to the worker's fetch and
 * answer its JSON; a failure throws with the op and the start of the answer.
 */
export const workerCall = (mf) => async (body) => {
  const res = await mf.dispatchFetch("http://bench/", {
    method: "POST",
    body: JSON.stringify(body),
  });
  if (!res.ok)
    throw new Error(
      `${body.op ?? "call"} failed (${res.status}): ${(await res.text()).slice(0, 500)}`,
    );
  return res.json();
};
