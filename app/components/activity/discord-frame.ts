import type { DiscordSDK } from "@discord/embedded-app-sdk";

/**
 * The Embedded App SDK's side of the Discord Activity (issue 16), in the browser only. The SDK
 * talks to the Discord client that frames us by postMessage: a handshake, Discord's READY,
 * then `authorize` (Discord asks the person, once, and hands back an OAuth code: no redirect,
 * no state) and `authenticate` with the access token our server got for that code.
 *
 * Inside Discord every request of the frame goes through Discord's proxy
 * (`https://<client id>.discordsays.com`, the URL mapping `/` to this Worker). The app uses
 * relative URLs only (pages, data, the API and the room socket), so nothing needs rewriting
 * and `patchUrlMappings` is not called; an outside host the page would reach directly
 * (YouTube's iframe API, provider artwork) needs its own URL mapping in the Developer Portal.
 */

/** Discord opens an Activity with these query parameters; without them the SDK cannot start. */
export function inDiscordFrame(search: string): boolean {
  const q = new URLSearchParams(search);
  return !!(q.get("frame_id") && q.get("instance_id") && q.get("platform"));
}

/** The scopes the Activity asks for: who the person is, and which servers they are in. */
export const ACTIVITY_SCOPES = ["identify", "guilds"] as const;

/** Starts the SDK, waits for Discord's READY and asks for an authorization code. */
export async function authorizeInDiscord(
  clientId: string,
): Promise<{ sdk: DiscordSDK; code: string; guildId: string | null }> {
  // Loaded here, not at the top: the SDK reads window when made, and only this page needs it.
  const { DiscordSDK } = await import("@discord/embedded-app-sdk");
  // Our console stays ours: the SDK would otherwise forward every log line to Discord.
  const sdk = new DiscordSDK(clientId, { disableConsoleLogOverride: true });
  await sdk.ready();
  const { code } = await sdk.commands.authorize({
    client_id: clientId,
    response_type: "code",
    state: "",
    prompt: "none",
    scope: [...ACTIVITY_SCOPES],
  });
  return { sdk, code, guildId: sdk.guildId };
}
