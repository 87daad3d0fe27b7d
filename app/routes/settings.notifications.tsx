import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { NotificationSettingsScreen } from "~/components/social/NotificationSettingsScreen";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { requireUser } from "~/lib/session.server";
import { SOCIAL, type NotificationSettings } from "~/lib/social";

export const meta = pageMeta("notif.settingsTitle");

/** Which kinds are on, quiet hours, and whether web push is offered here at all. */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  const [settings, key] = await Promise.all([
    callApi<NotificationSettings>(args, `${SOCIAL}/notification-settings`, { token }),
    callApi<{ publicKey: string | null }>(args, `${SOCIAL}/web-notifications/vapid-public-key`),
  ]);
  return {
    settings: settings.ok ? settings.data : null,
    error: settings.ok ? null : settings,
    webPush: key.ok && !!key.data.publicKey,
  };
}

export default function NotificationSettingsPage() {
  return <NotificationSettingsScreen {...useLoaderData<typeof loader>()} />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
