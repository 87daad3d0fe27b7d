import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Leaderboard } from "../durable/leaderboard";
import { DEACTIVATED_PAGE_SQL } from "../durable/leaderboard-hidden";
import { signUp } from "./helpers";

/**
 * A Leaderboard hides deactivated accounts (issue 15): off the pages, the count and every
 * rank, their balance kept and still earning; shown again at their balance as it is then.
 */

type Stub = DurableObjectStub<Leaderboard>;
const board = (name = crypto.randomUUID()) => env.Leaderboard.getByName(name);

/** Inside the object (the cast: test/env.d.ts widens Cloudflare.Env). */
const inBoard = <T>(stub: Stub, fn: (o: Leaderboard, state: DurableObjectState) => T) =>
  runInDurableObject(stub as DurableObjectStub, (o, state) =>
    fn(o as unknown as Leaderboard, state),
  );

/** The rank counts, and what they must be: the GROUP BY of the visible users' points. */
const countsAndTruth = (stub: Stub) =>
  inBoard(stub, (_o, state) => [
    state.storage.sql.exec(`SELECT balance, n FROM balance_counts ORDER BY balance`).toArray(),
    state.storage.sql
      .exec(
        `SELECT balance, COUNT(*) AS n FROM points WHERE user_uuid NOT IN (SELECT user_uuid FROM hidden_users) GROUP BY balance ORDER BY balance`,
      )
      .toArray(),
  ]);

/** a 50, b 40, c 30, d 30, e 10. */
async function fiveUsers(stub: Stub) {
  const at = Date.now();
  await stub.addPointsBatch(
    [
      ["a", 50],
      ["b", 40],
      ["c", 30],
      ["d", 30],
      ["e", 10],
    ].map(([u, p]) => ({
      eventId: `start-${u}`,
      userUuid: u as string,
      points: p as number,
      occurredAt: at,
    })),
  );
}

const ranks = async (stub: Stub) =>
  (await stub.page(100, 0)).rows.map((r) => [r.userUuid, r.balance, r.rank]);

describe("Leaderboard: hidden users", () => {
  it("a hidden user leaves the page, the count and the ranks (the others close up); unhidden, they are back at the same place", async () => {
    const stub = board();
    await fiveUsers(stub);
    expect((await stub.page(100, 0)).total).toBe(5);

    expect(await stub.setHidden("b", true)).toEqual({ hidden: true, changed: true });
    expect(await ranks(stub)).toEqual([
      ["a", 50, 1],
      ["c", 30, 2],
      ["d", 30, 2],
      ["e", 10, 4],
    ]);
    expect((await stub.page(100, 0)).total).toBe(4);
    expect(await stub.count()).toBe(4);
    expect(await stub.rankOf("b")).toBeNull();
    expect(await stub.rankOf("e")).toEqual({ userUuid: "e", balance: 10, rank: 4 });
    // A page past the first skips them too.
    expect((await stub.top(2, 1)).map((r) => [r.userUuid, r.rank])).toEqual([
      ["c", 2],
      ["d", 2],
    ]);
    const [counts, truth] = await countsAndTruth(stub);
    expect(counts).toEqual(truth);

    expect(await stub.setHidden("b", false)).toEqual({ hidden: false, changed: true });
    expect(await ranks(stub)).toEqual([
      ["a", 50, 1],
      ["b", 40, 2],
      ["c", 30, 3],
      ["d", 30, 3],
      ["e", 10, 5],
    ]);
    expect((await stub.page(100, 0)).total).toBe(5);
    expect(await stub.rankOf("b")).toEqual({ userUuid: "b", balance: 40, rank: 2 });
  });

  it("points earned while hidden are kept, each event once, and count when shown again", async () => {
    const stub = board();
    await fiveUsers(stub);
    await stub.setHidden("e", true);
    const at = Date.now();
    expect(await stub.addPoints("late-1", "e", 35, at)).toEqual({
      applied: true,
      balance: 45,
      version: 2,
    });
    // The same event again (a redelivery) changes nothing, hidden or not.
    expect(await stub.addPoints("late-1", "e", 35, at)).toMatchObject({
      applied: false,
      balance: 45,
    });
    // A hidden newcomer has a balance but no place either.
    expect(await stub.addPoints("new-1", "f", 99, at)).toMatchObject({ applied: true });
    await stub.setHidden("f", true);
    expect(await stub.addPoints("new-2", "g", 5, at)).toMatchObject({ applied: true });
    expect((await stub.page(100, 0)).total).toBe(5);
    expect(await stub.rankOf("e")).toBeNull();
    expect((await ranks(stub)).map((r) => r[0])).toEqual(["a", "b", "c", "d", "g"]);
    let [counts, truth] = await countsAndTruth(stub);
    expect(counts).toEqual(truth);

    await stub.setHidden("e", false);
    expect(await stub.rankOf("e")).toEqual({ userUuid: "e", balance: 45, rank: 2 });
    expect(await ranks(stub)).toEqual([
      ["a", 50, 1],
      ["e", 45, 2],
      ["b", 40, 3],
      ["c", 30, 4],
      ["d", 30, 4],
      ["g", 5, 6],
    ]);
    [counts, truth] = await countsAndTruth(stub);
    expect(counts).toEqual(truth);
  });

  it("hiding twice or showing twice changes nothing; so does showing someone never hidden or hiding someone with no points", async () => {
    const stub = board();
    await fiveUsers(stub);
    await stub.setHidden("a", true);
    const once = [await ranks(stub), await stub.count(), await countsAndTruth(stub)];
    expect(await stub.setHidden("a", true)).toEqual({ hidden: true, changed: false });
    expect([await ranks(stub), await stub.count(), await countsAndTruth(stub)]).toEqual(once);

    await stub.setHidden("a", false);
    const shown = [await ranks(stub), await stub.count(), await countsAndTruth(stub)];
    expect(await stub.setHidden("a", false)).toEqual({ hidden: false, changed: false });
    expect(await stub.setHidden("c", false)).toEqual({ hidden: false, changed: false });
    expect(await stub.setHidden("nobody", true)).toEqual({ hidden: true, changed: true });
    expect([await ranks(stub), await stub.count(), await countsAndTruth(stub)]).toEqual(shown);
    expect(shown[1]).toBe(5);
  });

  it("many hides and shows at once leave the counts exact", async () => {
    const stub = board();
    await fiveUsers(stub);
    const users = ["a", "b", "c", "d", "e"];
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => stub.setHidden(users[i % 5], i % 3 !== 0)),
    );
    // The last call per user: i = 55..59 -> hidden unless i % 3 === 0 (57: c shown).
    expect((await ranks(stub)).map((r) => r[0])).toEqual(["c"]);
    expect(await stub.count()).toBe(1);
    const [counts, truth] = await countsAndTruth(stub);
    expect(counts).toEqual(truth);
  });

  it("the flag survives an eviction of every object", async () => {
    const name = crypto.randomUUID();
    await fiveUsers(board(name));
    await board(name).setHidden("a", true);
    await abortAllDurableObjects();
    const stub = board(name);
    expect(await stub.rankOf("a")).toBeNull();
    expect(await stub.count()).toBe(4);
    expect((await ranks(stub))[0]).toEqual(["b", 40, 1]);
    await stub.setHidden("a", false);
    await abortAllDurableObjects();
    expect(await board(name).rankOf("a")).toEqual({ userUuid: "a", balance: 50, rank: 1 });
  });

  it("rejects a malformed call, changing nothing", async () => {
    const stub = board();
    await fiveUsers(stub);
    for (const call of [
      (o: Leaderboard) => o.setHidden("", true),
      (o: Leaderboard) => o.setHidden("x".repeat(201), true),
      (o: Leaderboard) => o.setHidden("a", "yes" as unknown as boolean),
    ])
      expect(
        await inBoard(stub, (o) => {
          try {
            call(o);
            return "no error";
          } catch (e) {
            return (e as Error).message;
          }
        }),
      ).not.toBe("no error");
    expect(await stub.count()).toBe(5);
  });

  it("the copy a new board makes reads the deactivated accounts through their own index, not every account", async () => {
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${DEACTIVATED_PAGE_SQL}`)
      .bind("", 1000)
      .all<{ detail: string }>();
    expect(plan.results.map((r) => r.detail).join("; ")).toMatch(/users_deactivated_idx/);
  });

  it("a board that starts after an account was deactivated hides it from birth; so does a board made before hiding existed", async () => {
    const gone = await signUp();
    const db = env.DB.prepare(`UPDATE users SET deactivated = ? WHERE uuid = ?`);
    // Older boards: points for the account, and no hidden_users table (as before this
    // change), with the rank counts of each older shape (both, no buckets, none).
    const shapes = [[], ["balance_buckets"], ["balance_buckets", "balance_counts"]];
    const olds = shapes.map(() => crypto.randomUUID());
    for (const [i, name] of olds.entries()) {
      await board(name).addPoints("o1", gone.uuid, 70);
      await board(name).addPoints("o2", "other", 20);
      await board(name).addPoints("o3", "third", 10);
      await inBoard(board(name), (_o, state) => {
        for (const table of ["hidden_users", ...shapes[i]])
          state.storage.sql.exec(`DROP TABLE ${table}`);
      });
    }
    await db.bind(1, gone.uuid).run();
    await abortAllDurableObjects();
    for (const name of olds) {
      expect(await board(name).rankOf(gone.uuid)).toBeNull();
      expect(await ranks(board(name))).toEqual([
        ["other", 20, 1],
        ["third", 10, 2],
      ]);
      // Read from the counts (not the page's position): the hidden balance is not in them.
      expect(await board(name).rankOf("third")).toMatchObject({ rank: 2 });
      expect(await board(name).count()).toBe(2);
      const [counts, truth] = await countsAndTruth(board(name));
      expect(counts).toEqual(truth);
    }
    const old = olds[0];

    // A new board: the account's first points there are hidden from the start.
    const fresh = board();
    await fresh.addPoints("f1", gone.uuid, 5);
    expect(await fresh.rankOf(gone.uuid)).toBeNull();
    expect(await fresh.count()).toBe(0);

    // The copy is made once: reactivation reaches a board through setHidden (the job), not
    // a second copy at the next start.
    await db.bind(0, gone.uuid).run();
    await abortAllDurableObjects();
    expect(await board(old).rankOf(gone.uuid)).toBeNull();
    await board(old).setHidden(gone.uuid, false);
    expect(await board(old).rankOf(gone.uuid)).toEqual({
      userUuid: gone.uuid,
      balance: 70,
      rank: 1,
    });
  });
});
