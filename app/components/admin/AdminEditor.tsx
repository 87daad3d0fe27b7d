import { Form, Link } from "@remix-run/react";
import { ArrowLeft } from "lucide-react";
import type { ReactNode } from "react";
import { AdminNav } from "~/components/admin/AdminNav";
import { Alert, SubmitButton, buttonClass, useFocusFirstError, PageTitle } from "~/components/ui";
import type { DisplayError } from "~/lib/errors";
import { useT } from "~/i18n";

/** What an admin editor's action answers: the API's refusal, or that it saved. */
export type EditorResult = { error: DisplayError | null; saved: boolean } | undefined;

/**
 * The frame of the token-shop admin editors (bundles, consumables): back link, title, one
 * multipart form (its fields are the children) with the API's refusal or "Saved" above
 * them, Save/Create, and for an existing record a separate Delete form (`intent=delete`).
 * `formKey` remounts the form when the record changes, so its defaults follow the saved row.
 */
export function AdminEditor({
  backTo,
  backLabel,
  title,
  creating,
  formKey,
  result,
  children,
}: {
  backTo: string;
  backLabel: string;
  title: string;
  creating: boolean;
  formKey: string;
  result: EditorResult;
  children: ReactNode;
}) {
  const t = useT();
  useFocusFirstError(result?.error ? result : null);
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <Link to={backTo} className={`${buttonClass.ghost} -ml-3 text-sm`}>
        <ArrowLeft aria-hidden className="size-4" />
        {backLabel}
      </Link>
      <PageTitle size="fixed" className="mt-4">
        {title}
      </PageTitle>
      <Form
        method="post"
        encType="multipart/form-data"
        className="mt-6 grid gap-5 rounded-3xl border border-line bg-panel/80 p-6 sm:grid-cols-2 sm:p-8"
        key={formKey}
      >
        <div className="space-y-3 sm:col-span-2">
          {result?.error && <Alert error={result.error} />}
          {result?.saved && <Alert success>{t("adminShop.saved")}</Alert>}
        </div>
        {children}
        <div className="flex flex-wrap gap-3 sm:col-span-2">
          <SubmitButton
            label={creating ? "adminShop.create" : "adminShop.save"}
            pendingLabel="adminShop.saving"
            intent="save"
          />
        </div>
      </Form>
      {!creating && (
        <Form method="post" className="mt-6">
          <SubmitButton
            label="adminShop.delete"
            pendingLabel="adminShop.deleting"
            intent="delete"
            variant="secondary"
          />
        </Form>
      )}
    </div>
  );
}

/** An image picker beside the current image (if any), for an AdminEditor form. */
export function AdminImageInput({
  id,
  label,
  hint,
  src,
  testId,
}: {
  id: string;
  label: string;
  hint: string;
  src: string | null | undefined;
  testId: string;
}) {
  return (
    <div className="flex items-center gap-4 sm:col-span-2">
      {src && (
        <img src={src} alt="" className="size-20 rounded-xl object-cover" data-testid={testId} />
      )}
      <div className="min-w-0 flex-1">
        <label htmlFor={id} className="mb-1.5 block text-sm font-medium text-ink-100">
          {label}
        </label>
        <input
          id={id}
          type="file"
          name="file"
          accept="image/png,image/jpeg,image/gif,image/webp"
          className="block w-full text-sm text-ink-100 file:mr-3 file:rounded-full file:border-0 file:bg-white/10 file:px-4 file:py-2 file:font-semibold file:text-white"
        />
        <p className="mt-1 text-xs text-ink-300">{hint}</p>
      </div>
    </div>
  );
}

/** The picked file as a one-field multipart body for the upload call, or null when none was picked. */
export function pickedFile(form: FormData): FormData | null {
  const file = form.get("file");
  if (!(file instanceof File) || file.size === 0) return null;
  const upload = new FormData();
  upload.append("file", file, file.name);
  return upload;
}
