import { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, like, lt, lte, ne, not, notInArray, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { z } from "zod";
import { ApiError } from "./errors";
import { parseOr400 } from "./validate";

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

const OPS = ["$eq", "$ne", "$gt", "$lt", "$gte", "$lte", "$starts", "$ends", "$cont", "$excl", "$in", "$notin", "$isnull", "$notnull", "$between",
  "$eqL", "$neL", "$startsL", "$endsL", "$contL", "$exclL", "$inL", "$notinL"] as const;
type Op = (typeof OPS)[number];

const MAX_LIMIT = 100;

const baseQuery = z.object({
  limit: z.coerce.number().int().min(1, "limit must be at least 1").max(MAX_LIMIT, `limit must be at most ${MAX_LIMIT}`).optional(),
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

function condition(columns: Columns, field: string, op: string, value: unknown): SQL {
  const col = columns[field];
  if (!col) throw new ApiError(400, `Invalid field "${field}": allowed fields are ${Object.keys(columns).join(", ")}.`);
  if (!OPS.includes(op as Op)) throw new ApiError(400, `Invalid operator "${op}".`);
  const lower = op.endsWith("L");
  const list = () => (Array.isArray(value) ? value : String(value ?? "").split(",")).map(String);
  const scalar = () => {
    if (value === undefined || value === "") throw new ApiError(400, `Operator "${op}" on "${field}" needs a value.`);
    // A boolean column binds any non-empty string as 1, so "false" must become false first.
    if (col.columnType === "SQLiteBoolean" && (value === "true" || value === "false")) return value === "true";
    return typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value) && col.columnType !== "SQLiteText" ? Number(value) : value;
  };
  const text = () => escapeLike(String(scalar()));
  switch (op as Op) {
    case "$eq": return eq(col, scalar());
    case "$ne": return ne(col, scalar());
    case "$gt": return gt(col, scalar());
    case "$lt": return lt(col, scalar());
    case "$gte": return gte(col, scalar());
    case "$lte": return lte(col, scalar());
    case "$eqL": return sql`lower(${col}) = ${String(scalar()).toLowerCase()}`;
    case "$neL": return sql`lower(${col}) != ${String(scalar()).toLowerCase()}`;
    case "$starts": case "$startsL": return likeOf(col, `${text()}%`, lower);
    case "$ends": case "$endsL": return likeOf(col, `%${text()}`, lower);
    case "$cont": case "$contL": return likeOf(col, `%${text()}%`, lower);
    case "$excl": case "$exclL": return not(likeOf(col, `%${text()}%`, lower));
    case "$in": return inArray(col, list());
    case "$notin": return notInArray(col, list());
    case "$inL": return inArray(sql`lower(${col})`, list().map((s) => s.toLowerCase()));
    case "$notinL": return notInArray(sql`lower(${col})`, list().map((s) => s.toLowerCase()));
    case "$isnull": return isNull(col);
    case "$notnull": return isNotNull(col);
    case "$between": {
      const [a, b] = list();
      if (a === undefined || b === undefined) throw new ApiError(400, `Operator "$between" on "${field}" needs two values.`);
      return and(gte(col, a), lte(col, b))!;
    }
  }
}

function parseFilter(columns: Columns, raw: string): SQL {
  const [field, op, ...rest] = raw.split("||");
  if (!field || !op) throw new ApiError(400, `Invalid filter "${raw}": use field||$op||value.`);
  return condition(columns, field, op, rest.join("||") || undefined);
}

/** `s` search: `{field: value}`, `{field: {$op: value}}`, `{$and: [...]}`, `{$or: [...]}`. */
function parseSearch(columns: Columns, node: unknown): SQL | undefined {
  if (node === null || typeof node !== "object" || Array.isArray(node)) throw new ApiError(400, "Invalid search: s must be a JSON object.");
  const parts: SQL[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(value)) throw new ApiError(400, `Invalid search: ${key} must be a list.`);
      const inner = value.map((v) => parseSearch(columns, v)).filter((x): x is SQL => !!x);
      const joined = key === "$and" ? and(...inner) : or(...inner);
      if (joined) parts.push(joined);
    } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [op, v] of Object.entries(value)) parts.push(condition(columns, key, op, v));
    } else {
      parts.push(value === null ? condition(columns, key, "$isnull", undefined) : condition(columns, key, "$eq", value));
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
  const base = parseOr400(baseQuery, { limit: one("limit"), offset: one("offset"), page: one("page") });
  const limit = base.limit ?? opts.defaultLimit ?? 25;
  const page = base.page ?? (base.offset !== undefined ? Math.floor(base.offset / limit) + 1 : 1);
  const offset = base.offset ?? (page - 1) * limit;

  let where: SQL | undefined;
  const s = one("s");
  if (s) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(s);
    } catch {
      throw new ApiError(400, "Invalid search: s must be JSON.");
    }
    where = parseSearch(columns, parsed);
  } else {
    const filters = (query.filter ?? []).map((f) => parseFilter(columns, f));
    const ors = (query.or ?? []).map((f) => parseFilter(columns, f));
    const all = and(...filters);
    if (ors.length === 0) where = all;
    else if (filters.length === 0) where = ors.length === 1 ? ors[0] : or(...ors);
    else where = or(all, and(...ors));
  }

  const sorts = query.sort?.length ? query.sort : [opts.defaultSort.join(",")];
  const orderBy = sorts.map((raw) => {
    const [field, dir = "ASC"] = raw.split(",");
    const col = columns[field];
    if (!col) throw new ApiError(400, `Invalid sort field "${field}".`);
    const d = dir.toUpperCase();
    if (d !== "ASC" && d !== "DESC") throw new ApiError(400, `Invalid sort order "${dir}": use ASC or DESC.`);
    return d === "ASC" ? asc(col) : desc(col);
  });
  // Rows that tie on the requested sort (same createdAt) must not swap between pages:
  // the id, unique, breaks every tie the same way each time.
  if (columns.id && !sorts.some((raw) => raw.split(",")[0] === "id")) orderBy.push(desc(columns.id));

  const fieldsRaw = one("fields");
  const fields = fieldsRaw ? fieldsRaw.split(",").map((f) => f.trim()).filter(Boolean) : undefined;
  for (const f of fields ?? []) if (!columns[f]) throw new ApiError(400, `Invalid field "${f}".`);
  return { where, orderBy, fields, limit, offset, page };
}

/** The answer shape of every admin list. */
export function crudPage<T>(data: T[], total: number, q: Pick<CrudQuery, "limit" | "page">) {
  return { data, count: data.length, total, page: q.page, pageCount: Math.max(1, Math.ceil(total / q.limit)) };
}

/** Keep only the requested `fields` of each row (id is always kept). */
export function pickFields<T extends Record<string, unknown>>(rows: T[], fields?: string[]): Partial<T>[] {
  if (!fields) return rows;
  return rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k === "id" || fields.includes(k))) as Partial<T>);
}
