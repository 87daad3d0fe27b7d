import { serviceApp } from "../lib/service";
import { adminProfileRoutes } from "./admin-profiles";
import { adminUserRoutes } from "./admin-users";
import { authRoutes } from "./auth";
import { capabilityRoutes } from "./capabilities";
import { deactivationRoutes } from "./deactivation";
import { emailRoutes } from "./emails";
import { imageRoutes } from "./images";
import { linkedAccountRoutes } from "./linked-accounts";
import { appleRoutes } from "./linked-apple";
import { discordRoutes } from "./linked-discord";
import { soundcloudRoutes } from "./linked-soundcloud";
import { spotifyRoutes } from "./linked-spotify";
import { youtubeRoutes } from "./linked-youtube";
import { moderationCommentRoutes } from "./moderation-comments";
import { passwordRoutes } from "./passwords";
import { banRoutes } from "./platform-bans";
import { platformRoleRoutes } from "./platform-roles";
import { profileRoutes } from "./profiles";
import { signUpRoutes } from "./sign-up";
import { voucherRoutes } from "./vouchers";
import { webSessionRoutes } from "./web-sessions";

/**
 * The user-service: accounts, sessions, e-mails, passwords, profiles, images, vouchers, and
 * platform moderation (bans, roles, badges, notes, deactivation), and linked provider
 * accounts (Discord, Spotify, YouTube, SoundCloud, Apple Music).
 */
export const userService = serviceApp("user-service");
for (const routes of [
  authRoutes,
  webSessionRoutes,
  signUpRoutes,
  emailRoutes,
  passwordRoutes,
  profileRoutes,
  imageRoutes,
  capabilityRoutes,
  voucherRoutes,
  adminUserRoutes,
  banRoutes,
  platformRoleRoutes,
  adminProfileRoutes,
  moderationCommentRoutes,
  deactivationRoutes,
  linkedAccountRoutes,
  discordRoutes,
  spotifyRoutes,
  youtubeRoutes,
  soundcloudRoutes,
  appleRoutes,
]) {
  userService.route("/", routes);
}
