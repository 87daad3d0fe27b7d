import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  lt,
  lte,
  ne,
  not,
  notInArray,
  or,
  sql,
  type SQL,
} from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { db } from "../db/client";
import type { Env } from "../env";
import { z } from "zod";
import { ApiError } from "./errors";
import { parseOr400 } from "./validate";
import { LIB_MSG } from "./messages";

/**
 * The crud query language of the admin lists (nestjsx/crud style, as the seeds show):
 * `filter=field||$op||value` (repeatable, ANDed), `or=...` (ORed with the filters),
 * `s={"field":{"$cont":"x"}}` (a JSON search that wins over filter/or), `sort=field,DESC`,
 * `fields=a,b`, `limit`, `offset`, `page`; `join` and `cache` are accepted and ignored.
 * Answers `{ data, count, total, page, pageCount }`.
 *
 * Only columns named in `columns` can be filtered or sorted: anything else is a 400, so an
 * admin list never exposes a column (a password hash) by accident.
 *
 * @example parseCrudQuery(c.req.queries(), { email: users.email }, { defaultSort: ["id", "DESC"] })
 */
export type Columns = Record<string, SQLiteColumn>;

const OPS = [
  "$eq",
  "$ne",
  "$gt",
  "$lt",
  "$gte",
  "$lte",
  "$starts",
  "$ends",
  "$cont",
  "$excl",
  "$in",
  "$notin",
  "$isnull",
  "$notnull",
  "$between",
  "$eqL",
  "$neL",
  "$startsL",
  "$endsL",
  "$contL",
  "$exclL",
  "$inL",
  "$notinL",
] as const;
type Op = (typeof OPS)[number];

const MAX_LIMIT = 100;
/**
 * What one query may ask for. D1 binds at most 100 values per statement and SQLite nests
 * at most 100 deep, so 120 filters or an `$in` of 200 ids used to fail in D1 (a 500);
 * these bounds make them a 400 first. `s` nesting is bounded too (it is parsed recursively).
 */
const MAX_CONDITIONS = 20;
const MAX_VALUES = 60;
const MAX_SEARCH_DEPTH = 5;
const MAX_SORTS = 5;
interface Budget {
  conditions: number;
  values: number;
}

const baseQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1, "limit must be at least 1")
    .max(MAX_LIMIT, `limit must be at most ${MAX_LIMIT}`)
    .optional(),
  offset: z.coerce.number().int().min(0, "offset must not be negative").optional(),
  page: z.coerce.number().int().min(1, "page must be at least 1").optional(),
});

export interface CrudQuery {
  where?: SQL;
  orderBy: SQL[];
  fields?: string[];
  limit: number;
  offset: number;
  page: number;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

function likeOf(col: SQLiteColumn, pattern: string, lower: boolean): SQL {
  const left = lower ? sql`lower(${col})` : sql`${col}`;
  return sql`${left} like ${lower ? pattern.toLowerCase() : pattern} escape '\\'`;
}

// A value from `s` is any JSON; only strings, numbers and booleans can be bound (an object
// reached D1 as a value and failed there with a 500).
const isPlain = (v: unknown): v is string | number | boolean =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean";

function condition(
  columns: Columns,
  field: string,
  op: string,
  value: unknown,
  budget: Budget,
): SQL {
  const col = columns[field];
  if (!col) throw new ApiError(400, LIB_MSG.invalidField(field, Object.keys(columns)));
  if (!OPS.includes(op as Op)) throw new ApiError(400, LIB_MSG.invalidOperator(op));
  if (++budget.conditions > MAX_CONDITIONS)
    throw new ApiError(400, LIB_MSG.tooManyConditions(MAX_CONDITIONS));
  const spend = (n: number) => {
    budget.values += n;
    if (budget.values > MAX_VALUES) throw new ApiError(400, LIB_MSG.tooManyValues(MAX_VALUES));
  };
  if (value !== undefined && !isPlain(value) && !(Array.isArray(value) && value.every(isPlain))) {
    throw new ApiError(400, LIB_MSG.invalidValue(field));
  }
  const lower = op.endsWith("L");
  const list = () => {
    const items = (Array.isArray(value) ? value : String(value ?? "").split(",")).map(String);
    spend(items.length);
    return items;
  };
  const scalar = () => {
    if (value === undefined || value === "") throw new ApiError(400, LIB_MSG.needsValue(op, field));
    if (Array.isArray(value)) throw new ApiError(400, LIB_MSG.oneValue(op, field));
    spend(1);
    // A boolean column binds any non-empty string as 1, so "false" must become false first.
    if (col.columnType === "SQLiteBoolean" && (value === "true" || value === "false"))
      return value === "true";
    return typeof value === "string" &&
      /^-?\d+(\.\d+)?$/.test(value) &&
      col.columnType !== "SQLiteText"
      ? Number(value)
      : value;
  };
  const text = () => escapeLike(String(scalar()));
  switch (op as Op) {
    case "$eq":
      return eq(col, scalar());
    case "$ne":
      return ne(col, scalar());
    case "$gt":
      return gt(col, scalar());
    case "$lt":
      return lt(col, scalar());
    case "$gte":
      return gte(col, scalar());
    case "$lte":
      return lte(col, scalar());
    case "$eqL":
      return sql`lower(${col}) = ${String(scalar()).toLowerCase()}`;
    case "$neL":
      return sql`lower(${col}) != ${String(scalar()).toLowerCase()}`;
    case "$starts":
    case "$startsL":
      return likeOf(col, `${text()}%`, lower);
    case "$ends":
    case "$endsL":
      return likeOf(col, `%${text()}`, lower);
    case "$cont":
    case "$contL":
      return likeOf(col, `%${text()}%`, lower);
    case "$excl":
    case "$exclL":
      return not(likeOf(col, `%${text()}%`, lower));
    case "$in":
      return inArray(col, list());
    case "$notin":
      return notInArray(col, list());
    case "$inL":
      return inArray(
        sql`lower(${col})`,
        list().map((s) => s.toLowerCase()),
      );
    case "$notinL":
      return notInArray(
        sql`lower(${col})`,
        list().map((s) => s.toLowerCase()),
      );
    case "$isnull":
      return isNull(col);
    case "$notnull":
      return isNotNull(col);
    case "$between": {
      const [a, b] = list();
      if (a === undefined || b === undefined)
        throw new ApiError(400, LIB_MSG.betweenNeedsTwo(field));
      return and(gte(col, a), lte(col, b))!;
    }
  }
}

function parseFilter(columns: Columns, raw: string, budget: Budget): SQL {
  const [field, op, ...rest] = raw.split("||");
  if (!field || !op) throw new ApiError(400, LIB_MSG.invalidFilter(raw));
  return condition(columns, field, op, rest.join("||") || undefined, budget);
}

/** `s` search: `{field: value}`, `{field: {$op: value}}`, `{$and: [...]}`, `{$or: [...]}`. */
function parseSearch(columns: Columns, node: unknown, budget: Budget, depth = 1): SQL | undefined {
  if (node === null || typeof node !== "object" || Array.isArray(node))
    throw new ApiError(400, LIB_MSG.searchNotObject);
  if (depth > MAX_SEARCH_DEPTH) throw new ApiError(400, LIB_MSG.searchTooDeep(MAX_SEARCH_DEPTH));
  const parts: SQL[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(value)) throw new ApiError(400, LIB_MSG.searchNotList(key));
      const inner = value
        .map((v) => parseSearch(columns, v, budget, depth + 1))
        .filter((x): x is SQL => !!x);
      const joined = key === "$and" ? and(...inner) : or(...inner);
      if (joined) parts.push(joined);
    } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [op, v] of Object.entries(value))
        parts.push(condition(columns, key, op, v, budget));
    } else {
      parts.push(
        value === null
          ? condition(columns, key, "$isnull", undefined, budget)
          : condition(columns, key, "$eq", value, budget),
      );
    }
  }
  return and(...parts);
}

export function parseCrudQuery(
  query: Record<string, string[]>,
  columns: Columns,
  opts: { defaultSort: [string, "ASC" | "DESC"]; defaultLimit?: number },
): CrudQuery {
  const one = (k: string) => query[k]?.[query[k].length - 1];
  const base = parseOr400(baseQuery, {
    limit: one("limit"),
    offset: one("offset"),
    page: one("page"),
  });
  const limit = base.limit ?? opts.defaultLimit ?? 25;
  const page = base.page ?? (base.offset !== undefined ? Math.floor(base.offset / limit) + 1 : 1);
  const offset = base.offset ?? (page - 1) * limit;

  let where: SQL | undefined;
  const budget: Budget = { conditions: 0, values: 0 };
  const s = one("s");
  if (s) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(s);
    } catch {
      throw new ApiError(400, LIB_MSG.searchNotJson);
    }
    where = parseSearch(columns, parsed, budget);
  } else {
    const filters = (query.filter ?? []).map((f) => parseFilter(columns, f, budget));
    const ors = (query.or ?? []).map((f) => parseFilter(columns, f, budget));
    const all = and(...filters);
    if (ors.length === 0) where = all;
    else if (filters.length === 0) where = ors.length === 1 ? ors[0] : or(...ors);
    else where = or(all, and(...ors));
  }

  const sorts = query.sort?.length ? query.sort : [opts.defaultSort.join(",")];
  if (sorts.length > MAX_SORTS) throw new ApiError(400, LIB_MSG.tooManySorts(MAX_SORTS));
  const orderBy = sorts.map((raw) => {
    const [field, dir = "ASC"] = raw.split(",");
    const col = columns[field];
    if (!col) throw new ApiError(400, LIB_MSG.invalidSortField(field));
    const d = dir.toUpperCase();
    if (d !== "ASC" && d !== "DESC") throw new ApiError(400, LIB_MSG.invalidSortOrder(dir));
    return d === "ASC" ? asc(col) : desc(col);
  });
  // Rows that tie on the requested sort (same createdAt) must not swap between pages:
  // the id, unique, breaks every tie the same way each time.
  if (columns.id && !sorts.some((raw) => raw.split(",")[0] === "id"))
    orderBy.push(desc(columns.id));

  const fieldsRaw = one("fields");
  const fields = fieldsRaw
    ? fieldsRaw
        .split(",")
        .map((f) => f.trim())
        .filter(Boolean)
    : undefined;
  for (const f of fields ?? [])
    if (!columns[f]) throw new ApiError(400, LIB_MSG.invalidFieldName(f));
  return { where, orderBy, fields, limit, offset, page };
}

/** The answer shape of every admin list. */
export function crudPage<T>(data: T[], total: number, q: Pick<CrudQuery, "limit" | "page">) {
  return {
    data,
    count: data.length,
    total,
    page: q.page,
    pageCount: Math.max(1, Math.ceil(total / q.limit)),
  };
}

/** Keep only the requested `fields` of each row (id is always kept). */
export function pickFields<T extends Record<string, unknown>>(
  rows: T[],
  fields?: string[],
): Partial<T>[] {
  if (!fields) return rows;
  return rows.map(
    (r) =>
      Object.fromEntries(
        Object.entries(r).filter(([k]) => k === "id" || fields.includes(k)),
      ) as Partial<T>,
  );
}

// The crud parameters' shapes; parseCrudQuery checks what they say (fields, operators).
// Other keys (a client's cache-buster) are ignored rather than refused.
const many = z.union([z.string(), z.array(z.string())]).transform((v) => [v].flat());
const one = z.union([z.string(), z.array(z.string())]).transform((v) => [v].flat().slice(-1));
/** Route validator for an admin list's query: `valid("query", crudQuerySchema)`. */
export const crudQuerySchema = z.object({
  fields: one.optional(),
  s: one.optional(),
  filter: many.optional(),
  or: many.optional(),
  sort: many.optional(),
  join: many.optional(),
  limit: one.optional(),
  offset: one.optional(),
  page: one.optional(),
  cache: one.optional(),
});

/**
 * One admin list: the crud query over `table`, a page of rows mapped by `toDto`, and the
 * total, as `{ data, count, total, page, pageCount }`. Every admin list uses this.
 *
 * @example return c.json(await crudList(c.env, users, USER_COLUMNS, c.req.valid("query"), toOwnProfile));
 */
export async function crudList<Row, Dto extends Record<string, unknown>>(
  env: Pick<Env, "DB">,
  table: SQLiteTable,
  columns: Columns,
  raw: z.output<typeof crudQuerySchema>,
  toDto: (row: Row) => Dto,
  opts: {
    defaultSort: [string, "ASC" | "DESC"];
    /** Rows outside it are never listed, whatever the query says (ANDed with it, `s` too). */
    scope?: SQL;
  } = { defaultSort: ["id", "DESC"] },
) {
  const query = Object.fromEntries(
    Object.entries(raw).filter((e): e is [string, string[]] => e[1] !== undefined),
  );
  const q = parseCrudQuery(query, columns, opts);
  const where = opts.scope ? and(opts.scope, q.where) : q.where;
  const d = db(env);
  const [rows, [{ total }]] = await Promise.all([
    d
      .select()
      .from(table)
      .where(where)
      .orderBy(...q.orderBy)
      .limit(q.limit)
      .offset(q.offset)
      .all() as Promise<Row[]>,
    d.select({ total: count() }).from(table).where(where).all(),
  ]);
  return crudPage(pickFields(rows.map(toDto), q.fields), total, q);
}
