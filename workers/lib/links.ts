/**
 * The origin links in e-mails point to: `PUBLIC_HOST` when set (production), otherwise the
 * origin the request came to, so a local run on any port mails working links.
 */
export function publicOrigin(c: { env: { PUBLIC_HOST?: string }; req: { url: string } }): string {
  return (c.env.PUBLIC_HOST || new URL(c.req.url).origin).replace(/\/+$/, "");
}
