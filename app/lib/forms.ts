import type { MessageKey } from "~/i18n";
import type { DisplayError } from "./errors";

/**
 * What a form's action answers when it does not redirect: errors per field (message keys,
 * translated on the page), an API error in the spec's words, the values to put back, or
 * a success flag.
 */
export interface FormState {
  fieldErrors?: Partial<Record<string, MessageKey>>;
  error?: DisplayError;
  values?: Record<string, string>;
  /** Which of the page's forms answered (pages with several forms). */
  intent?: string;
  ok?: boolean;
  /** Extra text for a success message (an address the code went to, say). */
  detail?: string;
}

export const formString = (form: FormData, name: string): string => {
  const v = form.get(name);
  return typeof v === "string" ? v : "";
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkEmail(email: string): MessageKey | undefined {
  if (!email) return "validation.emailRequired";
  if (email.length > 254 || !EMAIL.test(email)) return "validation.emailInvalid";
}

/** A new password: 8 to 128 characters (the API's rule, workers/lib/validate.ts). */
export function checkNewPassword(password: string): MessageKey | undefined {
  if (!password) return "validation.passwordRequired";
  if (password.length < 8 || password.length > 128) return "validation.passwordLength";
}

export const hasErrors = (e: Record<string, unknown>) => Object.values(e).some(Boolean);
