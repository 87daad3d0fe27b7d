import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { ActivityScreen } from "~/components/activity/ActivityScreen";
import { pageMeta } from "~/i18n";
import { callApi, userApi } from "~/lib/api.server";
import {
  SNOWFLAKE,
  type ActivityConfig,
  type ActivitySignIn,
  type GuildRoom,
} from "~/lib/activity";
import { formString } from "~/lib/forms";
import { ROOM_SERVICE, type RoomDto } from "~/lib/rooms";
import { startSession } from "~/lib/session.server";

export const meta = pageMeta("activity.title");

/** The Discord client id the SDK is made with (configuration: DISCORD_CLIENT_ID). */
export function loader({ context }: LoaderFunctionArgs): ActivityConfig {
  const id = context.env.DISCORD_CLIENT_ID;
  return { clientId: id && context.env.DISCORD_CLIENT_SECRET ? id : null };
}

/**
 * The SDK's `authorize` gave the frame a code: trade it at POST /auth/exchange-code (Discord's
 * token and our session, signing in or signing up the Discord person), keep the session in
 * the frame's cookie (startSession: partitioned, for Discord's frame only), and list the rooms
 * bound to the frame's guild. Answers Discord's access token for the SDK's `authenticate`.
 */
export async function action(args: ActionFunctionArgs) {
  const form = await args.request.formData();
  const code = formString(form, "code").slice(0, 2048);
  const guildId = formString(form, "guildId");
  if (!code)
    return data(
      { error: { status: 400, message: "code is required", generic: false } },
      { status: 400 },
    );
  const res = await userApi<{ access_token: string; token: string }>(args, "/auth/exchange-code", {
    method: "POST",
    json: { code },
  });
  if (!res.ok) return data({ error: res }, { status: res.status });
  const cookie = await startSession(args, res.data.token, true);
  if (!cookie) return data({ error: { status: 500, message: "", generic: true } }, { status: 502 });
  let rooms: GuildRoom[] = [];
  if (SNOWFLAKE.test(guildId)) {
    const list = await callApi<RoomDto[]>(args, `${ROOM_SERVICE}/rooms/discord/list/${guildId}`, {
      token: res.data.token,
    });
    if (list.ok)
      rooms = list.data.map((r) => ({
        slug: r.slug,
        name: r.name,
        numberOfUsersInRoom: r.numberOfUsersInRoom,
      }));
  }
  const answer: ActivitySignIn = { accessToken: res.data.access_token, rooms };
  return data({ signedIn: answer }, { headers: { "Set-Cookie": cookie } });
}

export default function ActivityPage() {
  return <ActivityScreen config={useLoaderData<typeof loader>()} />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
