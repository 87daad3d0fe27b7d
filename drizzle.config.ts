import { defineConfig } from "drizzle-kit";

// `npm run db:generate` writes SQL migrations from the schema; wrangler applies them.
export default defineConfig({
  dialect: "sqlite",
  schema: "./workers/db/schema.ts",
  out: "./migrations",
});
