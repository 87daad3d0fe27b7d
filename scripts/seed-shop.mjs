// Demo shop data for `npm run dev` and the browser tests: two token bundles and a
// subscription plan, sold in local test mode (no Stripe key needed). Idempotent: fixed
// product ids (INSERT OR IGNORE) and one bundle per product (inserted only if missing),
// so it runs on every start. The bundle rows are the merch-service's table; they are
// written here directly because seeding runs before the server is up.

/** The seeded products; ids are stable so tests and pages can find them. */
export const SEED_PRODUCTS = [
  {
    id: "demo-tokens-100",
    name: "100 tokens",
    description: "A handful of tokens for a few treats in the room.",
    paymentType: "one_time",
    price: 199,
    tokens: 100,
  },
  {
    id: "demo-tokens-550",
    name: "550 tokens",
    description: "A stack of tokens, with 50 on the house.",
    paymentType: "one_time",
    price: 999,
    tokens: 550,
  },
  {
    id: "demo-plan-pro",
    name: "Hangout Pro",
    description: "Subscriber avatars and perks, billed monthly.",
    paymentType: "recurring",
    price: 499,
    level: "pro",
  },
];

const q = (s) => (s === null || s === undefined ? "NULL" : `'${String(s).replace(/'/g, "''")}'`);

export function shopSeedSql() {
  const stmts = [];
  for (const p of SEED_PRODUCTS) {
    stmts.push(
      `INSERT OR IGNORE INTO products (id, name, description, payment_type, price, currency, subscription_level) VALUES (${q(p.id)}, ${q(p.name)}, ${q(p.description)}, ${q(p.paymentType)}, ${p.price}, 'usd', ${q(p.level)});`,
    );
    if (p.tokens) {
      stmts.push(
        `INSERT INTO token_bundles (product_id, name, description, token_amount) SELECT ${q(p.id)}, ${q(p.name)}, ${q(p.description)}, ${p.tokens} WHERE NOT EXISTS (SELECT 1 FROM token_bundles WHERE product_id = ${q(p.id)});`,
      );
    }
  }
  return stmts.join("\n");
}
