/**
 * The texts of the shared library (workers/lib/), which every service answers with:
 * authentication, the CRUD query language, uploads and multipart parsing. Services keep
 * their own texts in `workers/<service>/messages.ts` (MSG); tests import these from here.
 */
export const LIB_MSG = {
  // Authentication (auth.ts).
  invalidToken: "Invalid or expired token.",
  guestsCannot: "Guests cannot do this; please sign up or log in.",
  invalidServiceKey: "Invalid service key.",
  ghostReadOnly: "A ghost token can only read: it cannot change anything.",
  chatTokenOnlyChat: "A chat token opens only the direct-message and room chat calls.",
  // Purpose keys (purpose-keys.ts): the root they are derived from is not configured.
  rootSecretMissing: "Signing is not configured (ROOT_SECRET).",
  // The CRUD query language (crud-query.ts).
  invalidField: (field: string, allowed: string[]) =>
    `Invalid field "${field}": allowed fields are ${allowed.join(", ")}.`,
  invalidOperator: (op: string) => `Invalid operator "${op}".`,
  tooManyConditions: (max: number) => `Too many conditions: at most ${max} per query.`,
  tooManyValues: (max: number) => `Too many values: at most ${max} per query.`,
  invalidValue: (field: string) => `Invalid value for "${field}": use a string, number or boolean.`,
  needsValue: (op: string, field: string) => `Operator "${op}" on "${field}" needs a value.`,
  oneValue: (op: string, field: string) =>
    `Operator "${op}" on "${field}" takes one value, not a list.`,
  betweenNeedsTwo: (field: string) => `Operator "$between" on "${field}" needs two values.`,
  invalidFilter: (raw: string) => `Invalid filter "${raw}": use field||$op||value.`,
  searchNotObject: "Invalid search: s must be a JSON object.",
  searchTooDeep: (max: number) => `Invalid search: at most ${max} levels of $and/$or.`,
  searchNotList: (key: string) => `Invalid search: ${key} must be a list.`,
  searchNotJson: "Invalid search: s must be JSON.",
  tooManySorts: (max: number) => `Too many sort fields: at most ${max}.`,
  invalidSortField: (field: string) => `Invalid sort field "${field}".`,
  invalidSortOrder: (dir: string) => `Invalid sort order "${dir}": use ASC or DESC.`,
  invalidFieldName: (field: string) => `Invalid field "${field}".`,
  // Images decoded and encoded again (images.ts).
  imageUnreadable: "file is not a readable image.",
  imageTooLarge: (maxSide: number, maxPixels: number, d: { width: number; height: number }) =>
    `file is too large an image (${d.width} x ${d.height}): at most ${maxSide} pixels a side and ${(maxPixels / 1e6).toFixed(1)} megapixels.`,
  imageTooHeavy: (maxBytes: number) =>
    `file is still over ${Math.round(maxBytes / 1024 / 1024)} MB once re-encoded; send a smaller picture.`,
  // Uploads and multipart bodies (uploads.ts, multipart-stream.ts).
  fieldEmpty: (field: string) => `${field} is empty.`,
  rangeNotSatisfiable: (size: number) => `Range not satisfiable: the file has ${size} bytes.`,
  multipartEndsEarly: "Malformed multipart body: it ends too early.",
  multipartUnclosedPart: "Malformed multipart body: a part is not closed by its boundary.",
  multipartHeaderNoName: "Malformed multipart body: a part header has no name.",
  multipartNotFormData: "Malformed multipart body: a part is not form-data.",
  multipartPartNoName: "Malformed multipart body: a part has no name.",
  multipartTooManyParts: (max: number) => `Malformed multipart body: more than ${max} parts.`,
  multipartHeadersTooLong: "Malformed multipart body: part headers are too long.",
  multipartNoLineBreak: "Malformed multipart body: a boundary is not followed by a line break.",
  fieldTooLong: (name: string, max: number) => `Form field "${name}" is longer than ${max} bytes.`,
} as const;
