import { serviceApp } from "../lib/service";
import { adminProfileRoutes } from "./admin-profiles";
import { adminUserRoutes } from "./admin-users";
import { agoraRoutes } from "./agora";
import { authRoutes } from "./auth";
import { capabilityRoutes } from "./capabilities";
import { cometChatRoutes } from "./comet-chat";
import { deactivationRoutes } from "./deactivation";
import { emailRoutes } from "./emails";
import { imageRoutes } from "./images";
import { mobileAuthRoutes } from "./mobile-auth";
import { linkedAccountRoutes } from "./linked-accounts";
import { appleRoutes } from "./linked-apple";
import { discordRoutes } from "./linked-discord";
import { soundcloudRoutes } from "./linked-soundcloud";
import { spotifyRoutes } from "./linked-spotify";
import { youtubeRoutes } from "./linked-youtube";
import { moderationCommentRoutes } from "./moderation-comments";
import { passwordRoutes } from "./passwords";
import { phoneValidationRoutes } from "./phone-validation";
import { phoneWhitelistRoutes } from "./phone-whitelist";
import { banRoutes } from "./platform-bans";
import { platformRoleRoutes } from "./platform-roles";
import { profileRoutes } from "./profiles";
import { signUpRoutes } from "./sign-up";
import { voucherRoutes } from "./vouchers";
import { webSessionRoutes } from "./web-sessions";

/**
 * The user-service: accounts, sessions, e-mails, passwords, profiles, images, vouchers, and
 * platform moderation (bans, roles, badges, notes, deactivation), phone validation and
 * mobile sign-in, the client tokens (Agora live audio, chat, ghost), and linked provider
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
  phoneValidationRoutes,
  mobileAuthRoutes,
  phoneWhitelistRoutes,
  agoraRoutes,
  cometChatRoutes,
  linkedAccountRoutes,
  discordRoutes,
  spotifyRoutes,
  youtubeRoutes,
  soundcloudRoutes,
  appleRoutes,
]) {
  userService.route("/", routes);
}
