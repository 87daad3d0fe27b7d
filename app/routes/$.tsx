import { data } from "@remix-run/cloudflare";

/**
 * Any path no other route claims: a 404 inside the app shell (header, language, user), not
 * the bare root error page.
 */
export async function loader() {
  throw data({ message: null }, { status: 404 });
}

export default function NotFound() {
  return null;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
