import { validator } from "hono/validator";
import { z } from "zod";
import { ApiError } from "./errors";

/** Turns zod issues into the list of messages the error body carries. */
export function issueMessages(error: z.ZodError): string[] {
  return error.issues.map((i) => {
    const path = i.path.join(".");
    return path && !i.message.startsWith(path) ? `${path}: ${i.message}` : i.message;
  });
}

/**
 * Parses `data` with `schema` or throws a 400 whose message lists what was wrong.
 * `message` replaces the list when a spec names one exact text for the failure.
 */
export function parseOr400<T extends z.ZodType>(
  schema: T,
  data: unknown,
  message?: string,
): z.output<T> {
  const r = schema.safeParse(data);
  if (!r.success) {
    const list = issueMessages(r.error);
    throw new ApiError(400, message ?? (list.length === 1 ? list[0] : list));
  }
  return r.data;
}

/**
 * Where the spec names one message for "something required is missing" (sign-up's
 * "Email or password is missing in request."), check presence first and fail with exactly
 * that text; values that are present but malformed still get `schema`'s precise reasons.
 */
export function requireFields<T extends z.ZodType>(keys: string[], message: string, schema: T) {
  return z
    .any()
    .superRefine((v, ctx) => {
      const missing =
        v === null ||
        typeof v !== "object" ||
        keys.some((k) => v[k] === undefined || v[k] === null || v[k] === "");
      if (missing) ctx.addIssue({ code: "custom", message });
    })
    .pipe(schema);
}

type Target = "json" | "query" | "param" | "form";

/**
 * Route middleware: validate one part of the request with zod; the handler reads the
 * parsed value with `c.req.valid(target)`. Bad input never reaches a handler.
 *
 * @example app.post("/x", valid("json", z.object({ a: z.string() })), (c) => c.req.valid("json").a)
 */
export function valid<T extends z.ZodType, K extends Target>(
  target: K,
  schema: T,
  message?: string,
) {
  return validator(target, (value) =>
    parseOr400(schema, target === "json" && value == null ? {} : value, message),
  );
}

/**
 * Whether typed text is clean: no lone UTF-16 surrogates (D1 stores them as U+FFFD, so the
 * text read back is not the text sent) and no control characters; `multiline` allows tabs
 * and line breaks.
 */
export const cleanText = (s: string, multiline = false) =>
  !(
    multiline ? /[\p{Cs}\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u : /[\p{Cs}\p{Cc}]/u
  ).test(s);

/** Common field shapes, written once. */
export const fields = {
  /** A display name: 2 to 30 characters after trimming, one clean line. */
  nickname: z
    .string({ error: "nickname must be a string" })
    .trim()
    .min(2, "nickname must be at least 2 characters")
    .max(30, "nickname must be at most 30 characters")
    .refine((s) => cleanText(s), "nickname must not contain control characters or broken unicode"),
  email: z
    .string({ error: "email must be a string" })
    .trim()
    .toLowerCase()
    .max(254, "email must be at most 254 characters")
    .pipe(z.email({ error: "email must be an email" })),
  password: z
    .string({ error: "password must be a string" })
    .min(8, "password must be at least 8 characters")
    .max(128, "password must be at most 128 characters"),
  uuid: z.uuid({ error: "must be a UUID" }),
  /** Query numbers arrive as strings. */
  int: (min: number, max: number) => z.coerce.number().int().min(min).max(max),
  color: z
    .string()
    .regex(/^#?[0-9a-fA-F]{6}$/, "color must be a 6-digit hex colour")
    .transform((s) => s.replace("#", "").toUpperCase()),
};
