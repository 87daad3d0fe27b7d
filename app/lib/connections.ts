import type { MessageKey } from "~/i18n";

/** The Connected accounts page's data (GET /api/user-service/linked-accounts). */
export type LinkProvider = "discord" | "spotify" | "youtube" | "soundcloud" | "apple";
export interface ProviderInfo {
  provider: LinkProvider;
  name: string;
  available: boolean;
}
export interface LinkInfo {
  provider: LinkProvider;
  variant: "web" | "mobile";
  externalId: string;
  displayName: string | null;
  active: boolean;
  linkedAt: string;
}
export interface Connections {
  providers: ProviderInfo[];
  links: LinkInfo[];
}

/** Providers the web page links through OAuth (Apple Music links in the apps, with MusicKit). */
export const OAUTH_PROVIDERS: readonly LinkProvider[] = [
  "discord",
  "spotify",
  "youtube",
  "soundcloud",
];

/** Why a link attempt came back without a link (the callback's `?failed=` reason). */
export const FAILURES = ["state", "denied", "elsewhere", "unavailable", "generic"] as const;
export type Failure = (typeof FAILURES)[number];
export const failureKey = (f: Failure): MessageKey => `linked.failed.${f}`;
export const perkKey = (p: LinkProvider): MessageKey => `linked.${p}Perk`;
