/** A comma-separated list of positive numbers from the environment (BENCH_RATES="100,300"). */
export const list = (v, dflt) =>
  (v ?? dflt)
    .split(",")
    .map(Number)
    .filter((x) => x > 0);
